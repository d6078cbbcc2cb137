"""Canaries: prove a launch wrote nothing out of bounds and everything it should have.

Each output buffer is carved out of a larger, fully poisoned allocation (``guarded_empty``):
the margins before and after it, and every element the launch must not touch, keep the poison
bit pattern; comparisons are made on integer views of the bits (``bits``), so NaN poison
compares exactly. Checks return a :class:`CanaryReport` (intact, first bad index, count).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch

from .cases import CANARY_MARGIN

# Poison bit patterns, per dtype (NaN payloads for floats, so a stray read shows up too).
_BITS_DTYPE: dict[torch.dtype, torch.dtype] = {
    torch.float64: torch.int64,
    torch.float32: torch.int32,
    torch.bfloat16: torch.int16,
    torch.float16: torch.int16,
    torch.int64: torch.int64,
    torch.int32: torch.int32,
    torch.int16: torch.int16,
    torch.uint8: torch.uint8,
    torch.int8: torch.int8,
}
_POISON: dict[torch.dtype, int] = {
    torch.float64: 0x7FF8DEADBEEFDEAD,
    torch.float32: 0x7FC0DEAD,
    torch.bfloat16: 0x7FAD,
    torch.float16: 0x7E5A,
    torch.int64: 0x5A5A5A5A5A5A5A5A,
    torch.int32: 0x5A5A5A5A,
    torch.int16: 0x5A5A,
    torch.uint8: 0xA5,
    torch.int8: 0x5A,
}
DEFAULT_MARGIN = CANARY_MARGIN  # elements on each side (keeps 16-byte alignment for every dtype above)


@dataclass
class CanaryReport:
    """Outcome of one canary check."""

    name: str
    intact: bool
    first_bad: int | None  # flat index (in the checked region) of the first bad element
    count: int  # number of bad elements
    checked: int  # number of elements checked

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Guarded:
    """An output tensor living inside a larger poisoned allocation."""

    base: torch.Tensor  # flat, poisoned; length numel + 2 * margin
    tensor: torch.Tensor  # the view handed to the kernel
    margin: int


def bits(t: torch.Tensor) -> torch.Tensor:
    """Integer view of ``t``'s bits (same element size), for exact comparisons."""
    return t.view(_BITS_DTYPE[t.dtype])


def _poison_int(dtype: torch.dtype) -> int:
    """The poison pattern as a value of the signed integer view dtype."""
    raw = _POISON[dtype]
    bdt = _BITS_DTYPE[dtype]
    if bdt == torch.uint8:
        return raw
    width = torch.empty((), dtype=bdt).element_size() * 8
    return raw - (1 << width) if raw >= 1 << (width - 1) else raw


def poison_(t: torch.Tensor) -> torch.Tensor:
    """Fill ``t`` with its dtype's poison pattern (in place) and return it."""
    bits(t).fill_(_poison_int(t.dtype))
    return t


def guarded_empty(
    shape: tuple[int, ...] | list[int],
    dtype: torch.dtype,
    device: torch.device | str,
    margin: int = DEFAULT_MARGIN,
) -> Guarded:
    """Allocate a contiguous ``shape`` tensor inside a poisoned buffer with ``margin`` on each side.

    The tensor itself starts poisoned too (outputs are poisoned before the launch)."""
    numel = 1
    for s in shape:
        numel *= int(s)
    base = torch.empty(numel + 2 * margin, dtype=dtype, device=device)
    poison_(base)
    return Guarded(base, base[margin : margin + numel].view(*shape), margin)


def _report(name: str, bad: torch.Tensor) -> CanaryReport:
    bad = bad.reshape(-1)
    count = int(bad.sum())
    first = int(bad.nonzero()[0, 0]) if count else None
    return CanaryReport(name, count == 0, first, count, int(bad.numel()))


def check_margins(g: Guarded, name: str = "margins") -> CanaryReport:
    """Both margins still hold the poison pattern, bit for bit."""
    p = _poison_int(g.base.dtype)
    b = bits(g.base)
    n = g.base.numel()
    edges = torch.cat([b[: g.margin], b[n - g.margin :]])
    return _report(name, edges != p)


def check_poison(
    t: torch.Tensor, untouched: torch.Tensor | None = None, name: str = "untouched"
) -> CanaryReport:
    """Every element where ``untouched`` is True (all, when None) still holds the poison."""
    bad = bits(t) != _poison_int(t.dtype)
    if untouched is not None:
        bad = bad & untouched
    return _report(name, bad)


def check_written(t: torch.Tensor, written: torch.Tensor, name: str = "written") -> CanaryReport:
    """Every element where ``written`` is True no longer holds the poison."""
    return _report(name, (bits(t) == _poison_int(t.dtype)) & written)


def check_equal_bits(a: torch.Tensor, b: torch.Tensor, name: str = "unchanged") -> CanaryReport:
    """``a`` and ``b`` are identical bit for bit (``b`` is moved to ``a``'s device)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return CanaryReport(name, False, 0, max(a.numel(), 1), a.numel())
    return _report(name, bits(a) != bits(b.to(a.device)))


def all_intact(reports: list[CanaryReport]) -> bool:
    return all(r.intact for r in reports)
