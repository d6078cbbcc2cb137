"""The kernel ops of ``kdacheck run``: one entry per kernel, as flash-linear-attention's ``OpConfig``.

An :class:`Op` names everything one kernel brings: its Triton kernel (the contract-checking
wrapper), its float64 reference, its case type (``cases.py``), the harness function that runs a
case, the bytes one launch moves (the bandwidth ``kdacheck run`` and the benchmarks report), the
memory a run allocates (the memory check) and its work (``kdacheck run``'s work budget), and its
benchmark in ``benchmarks/kernels.py``. The runner, the harness and the benchmarks all find an
op here, by its case (:func:`op_for`) or by its :class:`Kind`; nothing dispatches on a string.

Plain numbers, like ``cases.py``: importing this module pulls in neither torch nor triton (the
runner plans and budgets a run before torch is imported), so the kernel, the reference and the
harness function are named ``module:function`` and imported on first use (:meth:`Op.load`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from . import cases
from .cases import AnyCase, GatherCase, Mamba2Case, VerifyCase, Work


class Kind(enum.Enum):
    """An op's short name: a JUnit test case's class (``kdacheck-run-<kind>``) and the
    benchmarks' ``--only``."""

    VERIFY = "verify"  # KDA and GDN verify: one kernel, a per-channel or per-head gate (cases.Gate)
    MAMBA2 = "mamba2"
    GATHER = "gather"


@dataclass(frozen=True)
class Op:
    """One kernel op. The formulas take the op's case (``bytes_moved`` also the gather's unique
    misses, which only its plan knows; the verify ops ignore them)."""

    kind: Kind
    name: str  # CaseResult.kernel, as reports show it
    case: type[AnyCase]
    kernel: str  # "module:function" under kdacheck.kernels: the checked wrapper
    reference: str  # "module:function": the float64 (or exact) reference
    run: str  # the harness function: run(case, device) -> CaseResult
    bytes_moved: Callable[[Any, int], int]
    bytes_formula: str  # bytes_moved in words, as the benchmark rows state it
    bytes_needed: Callable[[Any], int]
    work: Callable[[Any, bool], list[Work]]
    benchmark: str  # its entry in benchmarks/kernels.py BENCHMARKS (the rows' "kernel")
    # the floor where the op's data lives: (case, misses, the link's GB/s) -> seconds, the link
    # named by floor_link (the verify ops' data is in device memory; the gather's host_cache in
    # pinned host memory, read over PCIe) and the formula in words
    floor: Callable[[Any, int, float], float]
    floor_link: str
    floor_formula: str

    def load(self, what: str) -> Callable[..., Any]:
        """``"kernel"``, ``"reference"`` or ``"run"`` (the harness function), imported now.
        The harness function is looked up on the module at each call, so a test may replace it."""
        module, _, function = getattr(self, what).partition(":")
        return getattr(import_module(f"{__package__}.{module}"), function)  # type: ignore[no-any-return]

    @property
    def modules(self) -> tuple[str, str]:
        """The modules of the kernel and the reference (``kda_verify``, ``kda_verify_ref``)."""
        return self.kernel.partition(":")[0], self.reference.partition(":")[0]


def _device_floor(bytes_moved: Callable[[Any, int], int]) -> Callable[[Any, int, float], float]:
    """The floor of an op whose data lives in device memory: its bytes over the link's GB/s."""
    return lambda case, misses, link_gbs: bytes_moved(case, misses) / (link_gbs * 1e9)


KDA_VERIFY = Op(
    kind=Kind.VERIFY, name="kda_verify", case=VerifyCase,
    kernel="kda_verify:kda_verify", reference="kda_verify_ref:kda_verify_reference", run="harness:run_verify",
    bytes_moved=cases.verify_bytes_moved,
    bytes_formula="N*HV*Vd*Kd*s*(1+T) + inputs (q,k,v,a,b bf16; o fp32) + params",
    bytes_needed=cases.verify_bytes_needed, work=cases.verify_work, benchmark="kda_verify",
    floor=_device_floor(cases.verify_bytes_moved),
    floor_link="device memory", floor_formula="bytes_moved / device memory bandwidth",
)  # fmt: skip
MAMBA2_VERIFY = Op(
    kind=Kind.MAMBA2, name="mamba2_verify", case=Mamba2Case,
    kernel="mamba2_verify:mamba2_verify", reference="mamba2_verify_ref:mamba2_verify_reference", run="harness:run_mamba2",
    bytes_moved=cases.mamba2_bytes_moved,
    bytes_formula="N*H*P*DS*s*(1+T) + inputs (x,dt,B,C bf16; o fp32)",
    bytes_needed=cases.mamba2_bytes_needed, work=cases.mamba2_work, benchmark="mamba2_verify",
    floor=_device_floor(cases.mamba2_bytes_moved),
    floor_link="device memory", floor_formula="bytes_moved / device memory bandwidth",
)  # fmt: skip
HISPARSE_GATHER = Op(
    kind=Kind.GATHER, name="hisparse_spec_gather", case=GatherCase,
    kernel="hisparse_gather:hisparse_spec_gather", reference="hisparse_gather_ref:hisparse_spec_gather_reference",
    run="harness:run_gather", bytes_moved=cases.gather_bytes_moved,
    bytes_formula="2*misses*item_bytes + B*D*top_k*12 (picks, slot lookups, out_locs) + misses*24 (host_loc, miss_src, miss_dst) + B*8",
    bytes_needed=cases.gather_bytes_needed, work=cases.gather_work, benchmark="hisparse_gather",
    floor=cases.gather_floor_s,
    floor_link="PCIe (SGLang's host_cache is pinned host memory)",
    floor_formula="max(misses*item_bytes / host link (pinned host memory over PCIe), the rest of bytes_moved / device memory)",
)  # fmt: skip

OPS: tuple[Op, ...] = (KDA_VERIFY, MAMBA2_VERIFY, HISPARSE_GATHER)
_BY_CASE = {op.case: op for op in OPS}
_BY_KIND = {op.kind: op for op in OPS}


def op_for(case: AnyCase) -> Op:
    """The op that runs ``case`` (one case type per op)."""
    return _BY_CASE[type(case)]


def by_kind(kind: Kind) -> Op:
    return _BY_KIND[kind]


_BY_NAME = {op.name: op for op in OPS}


def by_name(name: str) -> Op:
    """The op a model family names (``kdacheck.families``: ``FamilySpec.op``)."""
    return _BY_NAME[name]


def bytes_needed(case: AnyCase) -> int:
    """Every allocation of the case's run, device buffers and reference copies (an upper bound)."""
    return op_for(case).bytes_needed(case)


def work(case: AnyCase, on_cpu: bool) -> list[Work]:
    """The case's work: the kernel and its reference, counted before anything is allocated."""
    return op_for(case).work(case, on_cpu)
