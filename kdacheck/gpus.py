"""GPU profiles for ``--gpu``: compute capability and memory as the device reports it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GPU:
    name: str
    sm: int  # compute capability × 10: 90 = Hopper, 100 = Blackwell
    memory_mib: int
    source: str

    @property
    def memory_bytes(self) -> int:
        return self.memory_mib * 1024 * 1024


_REPORTED = "memory as the device reports it (spec/models.md)"
_DATASHEET = "vendor datasheet"

GPUS: dict[str, GPU] = {
    g.name: g
    for g in (
        GPU("a100", 80, 81920, f"A100 80 GB SXM; {_DATASHEET}"),
        GPU("a100-40gb", 80, 40960, f"A100 40 GB; {_DATASHEET}"),
        GPU("l40s", 89, 46068, f"L40S 48 GB GDDR6; {_DATASHEET}"),
        GPU("h100", 90, 81559, f"H100 SXM 80 GB; {_REPORTED}"),
        GPU("h20", 90, 97871, f"H20 96 GB; {_DATASHEET}"),
        GPU("h200", 90, 143771, f"H200 141 GB; {_REPORTED}"),
        GPU("b200", 100, 183359, f"B200 180 GB; {_REPORTED}"),
        GPU("gb200", 100, 189471, f"GB200 (Blackwell, 186 GB HBM3e usable per GPU); {_DATASHEET}"),
        GPU("b300", 103, 275040, f"B300 288 GB HBM3e; {_DATASHEET}"),
    )
}


def gpu(name: str) -> GPU:
    key = name.strip().lower().replace("_", "-")
    if key in GPUS:
        return GPUS[key]
    raise ValueError(f"unknown GPU {name!r}: choose from {', '.join(GPUS)}")
