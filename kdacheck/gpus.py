"""GPU profiles for ``--gpu``: the device as SGLang's platform probes see it, its memory and bandwidth.

``sm`` is the compute capability × 10 that ``torch.cuda.get_device_capability()`` reports,
which is what SGLang's probes read (0.5.23 ``srt/utils/common.py`` L272-350,
``srt/runtime_context.py`` L1824-1840 ``_PLATFORM_PROBES``). On ROCm torch reports the gfx
target's GFXIP version: 94 for gfx942 (MI300X, MI325X), 95 for gfx950 (MI355X); SGLang's
CUDA probes (``is_sm90``, ``is_sm100``, ``is_sm120``, ``is_blackwell``) are false there, and the
properties below answer as those probes do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GPU:
    name: str
    sm: int  # compute capability × 10: 90 = Hopper, 100 = Blackwell, 120 = RTX Blackwell; ROCm: GFXIP × 10
    memory_mib: int
    source: str
    units: int = 0  # streaming multiprocessors (NVIDIA) or compute units (AMD)
    bandwidth: float = 0.0  # memory bandwidth, bytes per second
    link: float = 0.0  # peer link bandwidth per GPU (NVLink, Infinity Fabric, or PCIe when none), bytes per second
    arch: str = ""  # the ROCm gfx target; empty on CUDA
    urls: tuple[str, ...] = ()  # the public specifications the numbers come from

    @property
    def memory_bytes(self) -> int:
        return self.memory_mib * 1024 * 1024

    @property
    def hip(self) -> bool:
        """An AMD GPU under ROCm (SGLang's ``is_hip``)."""
        return bool(self.arch)

    @property
    def major(self) -> int:
        return self.sm // 10

    @property
    def hopper(self) -> bool:
        """SGLang's ``is_sm90`` / ``is_hopper_with_cuda_12_3``: CUDA capability 9.x."""
        return not self.hip and self.major == 9

    @property
    def sm100(self) -> bool:
        """SGLang's ``is_sm100``: CUDA capability 10.x (B200, GB200, B300)."""
        return not self.hip and self.major == 10

    @property
    def sm120(self) -> bool:
        """SGLang's platform ``is_sm120`` (``is_sm120_supported``): CUDA major 12, GB10's 12.1 included."""
        return not self.hip and self.major == 12

    @property
    def blackwell(self) -> bool:
        """SGLang's ``is_blackwell``: CUDA majors 10, 11 and 12."""
        return not self.hip and self.major in (10, 11, 12)

    @property
    def label(self) -> str:
        """How messages name the device: ``SM90``, or ``gfx950`` on ROCm."""
        return self.arch or f"SM{self.sm}"


_REPORTED = "memory as the device reports it (spec/models.md)"
_DATASHEET = "vendor datasheet"
_ROCM_SPECS = "https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html"  # VRAM (GiB), CUs, gfx target, GFXIP
_CUDA_CC = "https://developer.nvidia.com/cuda-gpus"  # compute capability
_GB = 1e9

GPUS: dict[str, GPU] = {
    g.name: g
    for g in (
        GPU("a100", 80, 81920, f"A100 80 GB SXM; {_DATASHEET}", 108, 2039 * _GB, 600 * _GB),
        GPU("a100-40gb", 80, 40960, f"A100 40 GB; {_DATASHEET}", 108, 1555 * _GB, 600 * _GB),
        GPU("l40s", 89, 46068, f"L40S 48 GB GDDR6; {_DATASHEET}", 142, 864 * _GB, 64 * _GB),
        GPU("h100", 90, 81559, f"H100 SXM 80 GB; {_REPORTED}", 132, 3350 * _GB, 900 * _GB),
        GPU("h20", 90, 97871, f"H20 96 GB; {_DATASHEET}", 78, 4000 * _GB, 900 * _GB),
        GPU("h200", 90, 143771, f"H200 141 GB; {_REPORTED}", 132, 4800 * _GB, 900 * _GB),
        GPU("b200", 100, 183359, f"B200 180 GB; {_REPORTED}", 148, 8000 * _GB, 1800 * _GB),
        GPU("gb200", 100, 189471, f"GB200 (Blackwell, 186 GB HBM3e usable per GPU); {_DATASHEET}", 152, 8000 * _GB, 1800 * _GB),
        GPU("b300", 103, 275040, f"B300 288 GB HBM3e; {_DATASHEET}", 148, 8000 * _GB, 1800 * _GB),
        GPU("rtx-pro-6000", 120, 96 * 1024,
            "RTX PRO 6000 Blackwell (Server and Workstation Editions: GB202, 188 SMs, 96 GB GDDR7, 1,792 GB/s, "
            "PCIe Gen5 x16 128 GB/s, no NVLink; the Max-Q edition too); CC 12.0; vendor datasheet",
            188, 1792 * _GB, 128 * _GB, urls=(
                "https://www.nvidia.com/en-us/products/workstations/professional-desktop-gpus/rtx-pro-6000/",
                "https://www.nvidia.com/en-us/data-center/rtx-pro-6000-blackwell-server-edition/",
                "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html", _CUDA_CC)),
        GPU("rtx-5090", 120, 32 * 1024,
            "GeForce RTX 5090 (GB202, 170 SMs, 32 GB GDDR7, 1,792 GB/s, PCIe Gen5 x16 128 GB/s); CC 12.0; vendor datasheet",
            170, 1792 * _GB, 128 * _GB, urls=(
                "https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/rtx-5090/", _CUDA_CC)),
        GPU("gb10", 121, 128 * 1024,
            "DGX Spark GB10 (Blackwell GPU, 6,144 CUDA cores = 48 SMs, 128 GB LPDDR5x unified with the CPU, 273 GB/s; "
            "ConnectX-7 200 Gb/s between two Sparks); CC 12.1; vendor datasheet. The memory is the CPU's too: "
            "SGLang sees what the OS leaves",
            48, 273 * _GB, 25 * _GB, urls=(
                "https://www.nvidia.com/en-us/products/workstations/dgx-spark/",
                "https://docs.nvidia.com/dgx/dgx-spark/hardware.html", _CUDA_CC)),
        GPU("mi300x", 94, 192 * 1024,
            "AMD Instinct MI300X (CDNA 3, gfx942, 304 CUs, 192 GiB HBM3, 5.3 TB/s; 7 Infinity Fabric links, "
            "896 GB/s peer); ROCm GPU specifications and vendor datasheet",
            304, 5300 * _GB, 896 * _GB, arch="gfx942", urls=(
                _ROCM_SPECS, "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html")),
        GPU("mi325x", 94, 256 * 1024,
            "AMD Instinct MI325X (CDNA 3, gfx942, 304 CUs, 256 GiB HBM3E, 6 TB/s; 7 Infinity Fabric links, "
            "896 GB/s peer); ROCm GPU specifications and vendor datasheet",
            304, 6000 * _GB, 896 * _GB, arch="gfx942", urls=(
                _ROCM_SPECS, "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html")),
        GPU("mi355x", 95, 288 * 1024,
            "AMD Instinct MI355X (CDNA 4, gfx950, 256 CUs, 288 GiB HBM3E, 8 TB/s; 7 Infinity Fabric links, "
            "1,075 GB/s peer); ROCm GPU specifications and vendor datasheet",
            256, 8000 * _GB, 1075 * _GB, arch="gfx950", urls=(
                _ROCM_SPECS, "https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html")),
    )
}


def gpu(name: str) -> GPU:
    key = name.strip().lower().replace("_", "-")
    if key in GPUS:
        return GPUS[key]
    raise ValueError(f"unknown GPU {name!r}: choose from {', '.join(GPUS)}")
