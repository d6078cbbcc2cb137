# mypy: ignore-errors
"""Simulated NVIDIA GPU for running SGLang's argument resolution on a CPU host.

`install(profile)` must run BEFORE sglang is imported.  It answers the
torch.cuda queries SGLang's start-up resolution makes (availability, count,
capability, name, properties, free/total memory) and puts the `nvidia-smi`
stand-in from this folder first on PATH.  Nothing here allocates device
memory or runs kernels: anything that really needs a GPU still fails, and the
oracle reports such failures as harness errors, not as SGLang refusals.
"""

from __future__ import annotations

import os

HERE = os.path.dirname(os.path.abspath(__file__))

# Memory is what `nvidia-smi --query-gpu=memory.total` prints on these parts.
GPU_PROFILES = {
    "h200": {"name": "NVIDIA H200", "mem_mib": 143771, "cc": (9, 0), "sms": 132},
    "b200": {"name": "NVIDIA B200", "mem_mib": 183359, "cc": (10, 0), "sms": 148},
    "h100": {"name": "NVIDIA H100 80GB HBM3", "mem_mib": 81559, "cc": (9, 0), "sms": 132},
    # the other kdacheck --gpu profiles (kdacheck/gpus.py memory; vendor names and SM counts)
    "a100": {"name": "NVIDIA A100-SXM4-80GB", "mem_mib": 81920, "cc": (8, 0), "sms": 108},
    "a100-40gb": {"name": "NVIDIA A100-SXM4-40GB", "mem_mib": 40960, "cc": (8, 0), "sms": 108},
    "l40s": {"name": "NVIDIA L40S", "mem_mib": 46068, "cc": (8, 9), "sms": 142},
    "h20": {"name": "NVIDIA H20", "mem_mib": 97871, "cc": (9, 0), "sms": 78},
    "gb200": {"name": "NVIDIA GB200", "mem_mib": 189471, "cc": (10, 0), "sms": 152},
    "b300": {"name": "NVIDIA B300 SXM6 AC", "mem_mib": 275040, "cc": (10, 3), "sms": 148},
    # SM12x (RTX Blackwell, GB10): 99 KiB of opt-in shared memory per block, as Ada's
    "rtx-pro-6000": {"name": "NVIDIA RTX PRO 6000 Blackwell Server Edition", "mem_mib": 98304, "cc": (12, 0), "sms": 188,
                     "smem_optin": 101376},
    "rtx-5090": {"name": "NVIDIA GeForce RTX 5090", "mem_mib": 32768, "cc": (12, 0), "sms": 170, "smem_optin": 101376},
    "gb10": {"name": "NVIDIA GB10", "mem_mib": 131072, "cc": (12, 1), "sms": 48, "smem_optin": 101376},
}
# kdacheck's ROCm profiles (kdacheck/gpus.py, mi300x/mi325x/mi355x) are not simulated: SGLang's
# ROCm paths import aiter and HIP's torch, which a CUDA or CPU host does not have.
GPU_COUNT = 8


class _Props:
    def __init__(self, prof, index):
        self.name = prof["name"]
        self.major, self.minor = prof["cc"]
        self.total_memory = prof["mem_mib"] * 1024 * 1024
        self.multi_processor_count = prof["sms"]
        self.is_integrated = False
        self.is_multi_gpu_board = False
        self.uuid = f"00000000-0000-0000-0000-00000000000{index}"
        self.L2_cache_size = 50 * 1024 * 1024 if prof["cc"][0] == 9 else 126 * 1024 * 1024
        self.max_threads_per_multi_processor = 2048
        self.warp_size = 32
        self.regs_per_multiprocessor = 65536
        self.shared_memory_per_block_optin = prof.get("smem_optin", 232448 if prof["cc"][0] >= 9 else 101376)
        self.gcnArchName = ""
        self.pci_bus_id = index
        self.pci_device_id = 0
        self.pci_domain_id = 0

    def __repr__(self):
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
            f"minor={self.minor}, total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def env_for(profile: str) -> dict:
    prof = GPU_PROFILES[profile]
    return {
        "SGLANG_SIM_GPU": profile,
        "SGLANG_SIM_GPU_NAME": prof["name"],
        "SGLANG_SIM_GPU_MEM_MIB": str(prof["mem_mib"]),
        "SGLANG_SIM_GPU_CC": f"{prof['cc'][0]}.{prof['cc'][1]}",
        "SGLANG_SIM_GPU_COUNT": str(GPU_COUNT),
    }


def install(profile: str) -> None:
    import torch

    prof = GPU_PROFILES[profile]
    os.environ.update(env_for(profile))
    if not os.environ.get("PATH", "").startswith(HERE + os.pathsep):
        os.environ["PATH"] = HERE + os.pathsep + os.environ.get("PATH", "")

    cuda = torch.cuda
    total = prof["mem_mib"] * 1024 * 1024
    state = {"device": 0}

    def _idx(device=None):
        if device is None:
            return state["device"]
        if isinstance(device, int):
            return device
        if isinstance(device, str):
            return int(device.split(":")[1]) if ":" in device else 0
        return getattr(device, "index", None) or 0

    cuda.is_available = lambda: True
    cuda.device_count = lambda: GPU_COUNT
    cuda.is_initialized = lambda: True
    cuda._is_compiled = lambda: True
    cuda.init = lambda: None
    cuda._lazy_init = lambda: None
    cuda.current_device = lambda: state["device"]
    cuda.set_device = lambda d: state.__setitem__("device", _idx(d))
    cuda.get_device_capability = lambda device=None: prof["cc"]
    cuda.get_device_name = lambda device=None: prof["name"]
    cuda.get_device_properties = lambda device=None: _Props(prof, _idx(device))
    cuda.mem_get_info = lambda device=None: (total, total)
    cuda.synchronize = lambda device=None: None
    cuda.empty_cache = lambda: None
    cuda.memory_allocated = lambda device=None: 0
    cuda.max_memory_allocated = lambda device=None: 0
    cuda.memory_reserved = lambda device=None: 0
    cuda.get_arch_list = lambda: ["sm_90", "sm_100", "sm_120"]
    cuda.is_bf16_supported = lambda *a, **k: True
    cuda._get_nvml_device_index = lambda i: i
    if hasattr(torch, "_C"):
        torch._C._cuda_getDeviceCount = lambda: GPU_COUNT
    # A plain namespace so `torch.version.cuda` stays the build's own string.
    if getattr(torch.version, "cuda", None) is None:
        torch.version.cuda = "13.0"
    torch.version.hip = None
