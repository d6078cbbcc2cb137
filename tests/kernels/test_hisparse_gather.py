"""HiSparse speculative gather: plan + copy against the set-based reference, and the contract."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import dataclass

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kdacheck.kernels import canary as cn
from kdacheck.kernels import hisparse_gather as hg
from kdacheck.kernels.hisparse_gather_ref import hisparse_spec_gather_reference

pytestmark = pytest.mark.slow  # the kernels in Triton's interpreter (python -m pytest -q -m 'not slow' skips them)


@dataclass
class Setup:
    toks: torch.Tensor
    seq: torch.Tensor
    dslot: torch.Tensor
    hloc: torch.Tensor
    host: torch.Tensor
    buf: cn.Guarded
    free: torch.Tensor
    src: cn.Guarded
    dst: cn.Guarded
    cnt: cn.Guarded
    out: cn.Guarded

    def call(self, **kw: object) -> hg.GatherResult:
        kw.setdefault("emulate_sglang_limits", False)
        return hg.hisparse_spec_gather(
            self.toks, self.seq, self.dslot, self.hloc, self.host, self.buf.tensor, self.free,
            self.src.tensor, self.dst.tensor, self.cnt.tensor, self.out.tensor, **kw,  # type: ignore[arg-type]
        )  # fmt: skip


def make_setup(
    seed: int,
    B: int = 3,
    D: int = 3,
    top_k: int = 8,
    max_seq: int = 40,
    item: int = 656,
    hit: float = 0.5,
    dup_from: int | None = None,
    pad: float = 0.1,
    cap: int | None = None,
) -> Setup:
    """Random selections; ``dup_from`` draws every token from a small range to force repeats."""
    g = torch.Generator().manual_seed(seed)
    n_sel = D * top_k
    cap = cap if cap is not None else n_sel
    seq = torch.randint(max(1, max_seq // 2), max_seq + 1, (B,), generator=g, dtype=torch.int32)
    hi = dup_from if dup_from is not None else max_seq
    toks = torch.randint(0, hi, (B, D, top_k), generator=g, dtype=torch.int32)
    toks[torch.rand(B, D, top_k, generator=g) < pad] = -1
    toks[0, 0, 0] = max_seq + 3  # beyond seq_len: ignored like a pad
    n_dev = B * n_sel + B * max_seq + 5  # free slots for the worst case + every token resident
    perm = torch.randperm(n_dev, generator=g)
    free = perm[: B * n_sel].view(B, n_sel).to(torch.int32)
    spare = perm[B * n_sel :].to(torch.int32)
    dslot = torch.full((B, max_seq), -1, dtype=torch.int32)
    resident = torch.rand(B, max_seq, generator=g) < hit
    dslot[resident] = spare[: int(resident.sum())]
    n_host = B * max_seq + 11
    hloc = torch.randperm(n_host, generator=g)[: B * max_seq].view(B, max_seq)
    host = torch.randint(0, 256, (n_host, item), generator=g, dtype=torch.uint8)
    buf = cn.guarded_empty((n_dev, item), torch.uint8, "cpu")
    rs = dslot[dslot >= 0].long()
    buf.tensor[rs] = torch.randint(0, 256, (rs.numel(), item), generator=g, dtype=torch.uint8)
    return Setup(
        toks, seq, dslot, hloc, host, buf, free,
        cn.guarded_empty((B, cap), torch.int64, "cpu"),
        cn.guarded_empty((B, cap), torch.int32, "cpu"),
        cn.guarded_empty((B,), torch.int32, "cpu"),
        cn.guarded_empty((B, D, top_k), torch.int32, "cpu"),
    )  # fmt: skip


def check_against_reference(s: Setup, **kw: object) -> hg.GatherResult:
    host_before = s.host.clone()
    buf_before = s.buf.tensor.clone()
    ref = hisparse_spec_gather_reference(s.toks, s.seq, s.dslot, s.hloc, s.host, buf_before, s.free)
    res = s.call(**kw)
    B = s.toks.shape[0]
    assert s.cnt.tensor.tolist() == ref.miss_count
    for b in range(B):
        c = ref.miss_count[b]
        assert s.src.tensor[b, :c].tolist() == ref.miss_src[b]
        assert s.dst.tensor[b, :c].tolist() == ref.miss_dst[b]
    assert torch.equal(s.out.tensor, ref.out_locs)
    # out_locs consistency: hits keep their slot, misses land in the plan, pads are -1
    for b in range(B):
        planned = set(s.dst.tensor[b, : ref.miss_count[b]].tolist())
        for tok, loc in zip(
            s.toks[b].flatten().tolist(), s.out.tensor[b].flatten().tolist(), strict=True
        ):
            if not 0 <= tok < int(s.seq[b]):
                assert loc == -1
            elif int(s.dslot[b, tok]) >= 0:
                assert loc == int(s.dslot[b, tok])
            else:
                assert loc in planned
    # canaries: margins, whole device buffer bit-exact, host cache unchanged, unused plan columns
    cap = s.src.tensor.shape[1]
    unused = torch.arange(cap)[None, :] >= s.cnt.tensor[:, None]
    reports = [
        cn.check_margins(s.buf),
        cn.check_equal_bits(s.buf.tensor, ref.device_buffer, "device buffer"),
        cn.check_equal_bits(s.host, host_before, "host cache"),
        cn.check_margins(s.src),
        cn.check_margins(s.dst),
        cn.check_margins(s.cnt),
        cn.check_margins(s.out),
        cn.check_poison(s.src.tensor, unused),
        cn.check_poison(s.dst.tensor, unused),
    ]
    for r in reports:
        assert r.intact, r
    return res


CASES = {
    "mixed": dict(hit=0.5),
    "duplicates across steps": dict(dup_from=6, hit=0.2),
    "all hit": dict(hit=1.0, pad=0.0),
    "all miss": dict(hit=0.0, pad=0.0, item=1152),
    "pads, odd item bytes": dict(pad=0.5, item=13),
    "int32 words": dict(item=1100, D=2, top_k=5),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_reference(seed: int, name: str) -> None:
    check_against_reference(make_setup(seed, **CASES[name]))  # type: ignore[arg-type]


def test_all_hit_has_no_misses(seed: int) -> None:
    s = make_setup(seed, hit=1.0, pad=0.0)
    check_against_reference(s)
    assert s.cnt.tensor.sum() == 0


def test_duplicates_copied_once(seed: int) -> None:
    s = make_setup(seed, B=2, D=4, top_k=8, dup_from=4, hit=0.0, pad=0.0)
    check_against_reference(s)
    for b in range(2):
        valid = {t for t in s.toks[b].flatten().tolist() if 0 <= t < int(s.seq[b])}
        assert int(s.cnt.tensor[b]) == len(valid)


def test_deterministic_and_allocates_plan_when_none(seed: int) -> None:
    s = make_setup(seed)
    check_against_reference(s)
    res = hg.hisparse_spec_gather(
        s.toks, s.seq, s.dslot, s.hloc, s.host, s.buf.tensor, s.free, emulate_sglang_limits=False
    )
    B = s.toks.shape[0]
    assert torch.equal(res.miss_count[:B], s.cnt.tensor)
    assert torch.equal(res.out_locs, s.out.tensor)
    for b in range(B):
        c = int(s.cnt.tensor[b])
        assert torch.equal(res.miss_src[b, :c], s.src.tensor[b, :c])


def test_real_sglang_limits(seed: int) -> None:
    """One case at SGLang's real limits (D=2, top_k=1024), with the limit checks on."""
    s = make_setup(seed, B=2, D=2, top_k=1024, max_seq=3000, item=656, hit=0.4, pad=0.01)
    check_against_reference(s, emulate_sglang_limits=True)


@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**31 - 1),
    B=st.integers(1, 3),
    D=st.integers(1, 5),
    top_k=st.integers(1, 12),
    max_seq=st.integers(1, 50),
    item=st.sampled_from([1, 8, 12, 656]),
    hit=st.floats(0, 1),
    dup=st.booleans(),
)
def test_random_shapes(
    seed: int, B: int, D: int, top_k: int, max_seq: int, item: int, hit: float, dup: bool
) -> None:
    s = make_setup(
        seed, B=B, D=D, top_k=top_k, max_seq=max_seq, item=item, hit=hit,
        dup_from=max(1, max_seq // 4) if dup else None,
    )  # fmt: skip
    check_against_reference(s)


# ----------------------------------------------------------------------------- contract


def _small(cap: int | None = None, **kw: int) -> Setup:
    return make_setup(0, B=2, D=2, top_k=4, max_seq=16, item=8, cap=cap, **kw)  # type: ignore[arg-type]


def _call(toks: torch.Tensor, src: object, dst: object, cnt: object, limits: bool) -> None:
    z = torch.zeros(1, dtype=torch.int32)
    hg.hisparse_spec_gather(
        toks,
        z,
        z,
        z,
        z,
        z,
        z,
        src,
        dst,
        cnt,
        emulate_sglang_limits=limits,  # type: ignore[arg-type]
    )


def test_hsp003_capacity_message_exact() -> None:
    """The plan was sized for one step (2048 columns) but D=4, top_k=2048 needs 8192."""
    toks = torch.zeros((1, 4, 2048), dtype=torch.int32)
    src = torch.zeros((1, 2048), dtype=torch.int64)
    dst = torch.zeros((1, 2048), dtype=torch.int32)
    cnt = torch.zeros((1,), dtype=torch.int32)
    with pytest.raises(ValueError) as exc:
        _call(toks, src, dst, cnt, True)
    assert str(exc.value) == (
        "speculative miss_src/miss_dst must have shape [batch, >= steps * top_k] (capacity 8192)."
    )
    assert str(exc.value) == hg.HSP003_CAPACITY_MESSAGE.format(plan_capacity=8192)


I64, I32 = torch.int64, torch.int32
SIBLINGS = [
    # (name, src, dst, cnt, message)
    ("only src", torch.zeros(2, 8, dtype=I64), None, None, hg.HSP003_TOGETHER_MESSAGE),
    ("no src", None, torch.zeros(2, 8, dtype=I32), None, hg.HSP003_TOGETHER_MESSAGE),
    ("src int32", torch.zeros(2, 8, dtype=I32), torch.zeros(2, 8, dtype=I32), torch.zeros(2, dtype=I32), hg.HSP003_PLAN_DTYPE_MESSAGE),
    ("dst int64", torch.zeros(2, 8, dtype=I64), torch.zeros(2, 8, dtype=I64), torch.zeros(2, dtype=I32), hg.HSP003_PLAN_DTYPE_MESSAGE),
    ("count int64", torch.zeros(2, 8, dtype=I64), torch.zeros(2, 8, dtype=I32), torch.zeros(2, dtype=I64), hg.HSP003_COUNT_DTYPE_MESSAGE),
    ("src 1-D", torch.zeros(16, dtype=I64), torch.zeros(2, 8, dtype=I32), torch.zeros(2, dtype=I32), hg.HSP003_CAPACITY_MESSAGE.format(plan_capacity=8)),
    ("too few rows", torch.zeros(1, 8, dtype=I64), torch.zeros(1, 8, dtype=I32), torch.zeros(2, dtype=I32), hg.HSP003_CAPACITY_MESSAGE.format(plan_capacity=8)),
    ("count 2-D", torch.zeros(2, 8, dtype=I64), torch.zeros(2, 8, dtype=I32), torch.zeros(2, 1, dtype=I32), hg.HSP003_COUNT_SHAPE_MESSAGE),
    ("count short", torch.zeros(2, 8, dtype=I64), torch.zeros(2, 8, dtype=I32), torch.zeros(1, dtype=I32), hg.HSP003_COUNT_SHAPE_MESSAGE),
    ("strides differ", torch.zeros(2, 8, dtype=I64), torch.zeros(2, 9, dtype=I32), torch.zeros(2, dtype=I32), hg.HSP003_STRIDE_MESSAGE),
]  # fmt: skip


@pytest.mark.parametrize("name,src,dst,cnt,msg", SIBLINGS, ids=[s[0] for s in SIBLINGS])
def test_hsp003_sibling_checks(name: str, src: object, dst: object, cnt: object, msg: str) -> None:
    toks = torch.zeros((2, 2, 4), dtype=torch.int32)
    with pytest.raises(ValueError) as exc:
        _call(toks, src, dst, cnt, False)
    assert str(exc.value) == msg


def test_sibling_messages_are_sglangs() -> None:
    assert (
        hg.HSP003_TOGETHER_MESSAGE
        == "miss_src, miss_dst, and miss_count must be provided together."
    )
    assert hg.HSP003_STRIDE_MESSAGE == "miss_src/miss_dst row strides must match."
    assert hg.HSP003_COUNT_SHAPE_MESSAGE == "speculative miss_count must have shape [batch]."


@pytest.mark.parametrize("steps", [1, 5])
def test_hsp001_steps(steps: int) -> None:
    toks = torch.zeros((1, steps, 1024), dtype=torch.int32)
    with pytest.raises(ValueError) as exc:
        _call(toks, None, None, None, True)
    assert str(exc.value) == f"HiSparse speculative swap requires 2-4 steps, got {steps}."


@pytest.mark.parametrize("steps,top_k", [(2, 512), (4, 4096)])
def test_hsp002_limits(steps: int, top_k: int) -> None:
    toks = torch.zeros((1, steps, top_k), dtype=torch.int32)
    with pytest.raises(ValueError, match=r"top_k >= 1024 and steps \* top_k <= 8192") as exc:
        _call(toks, None, None, None, True)
    assert f"top_k={top_k}" in str(exc.value)


def test_limits_switch_off_allows_small_shapes() -> None:
    s = _small()
    with pytest.raises(ValueError, match=r"2-4 steps|top_k >= 1024"):
        s.call(emulate_sglang_limits=True)
    check_against_reference(s)


def _mut(attr: str, b: int, i: int, value: int):  # type: ignore[no-untyped-def]
    def f(s: Setup) -> Setup:
        getattr(s, attr)[b, i] = value
        return s

    return f


def _replace(attr: str, fn):  # type: ignore[no-untyped-def]
    def f(s: Setup) -> Setup:
        setattr(s, attr, fn(getattr(s, attr)))
        return s

    return f


INDEX_BAD = [
    ("device_slot >= n_dev", _mut("dslot", 0, 0, 10**6), "device_slot"),
    ("host_loc out of range", lambda s: (s.dslot.fill_(-1), _mut("hloc", 1, 0, -5)(s))[1], "host_loc"),
    ("free slot out of range", _mut("free", 0, 1, 10**6), "free_slots"),
    ("free slots repeated", lambda s: _mut("free", 1, 0, int(s.free[0, 0]))(s), "distinct"),
    ("seq_len > max_seq", lambda s: (s.seq.__setitem__(0, 17), s)[1], "seq_lens"),
    ("free_slots too narrow", _replace("free", lambda t: t[:, :3].contiguous()), "free_slots"),
    ("tokens int64", _replace("toks", lambda t: t.long()), "int32"),
]  # fmt: skip


@pytest.mark.parametrize("name,mutate,match", INDEX_BAD, ids=[b[0] for b in INDEX_BAD])
def test_index_validation(name: str, mutate, match: str) -> None:  # type: ignore[no-untyped-def]
    s = mutate(_small())
    before = s.buf.base.clone()
    with pytest.raises(ValueError, match=match):
        s.call()
    assert cn.check_equal_bits(s.buf.base, before).intact
    assert cn.check_poison(s.src.base).intact


def test_out_of_range_free_slot_in_subprocess() -> None:
    """Host validation bypassed: the kernels clamp; nothing crashes, margins stay intact."""
    code = textwrap.dedent(
        """
        import os
        os.environ["TRITON_INTERPRET"] = "1"
        import torch
        from kdacheck.kernels import canary as cn
        from kdacheck.kernels.hisparse_gather import hisparse_spec_gather
        B, D, K, S, item = 1, 2, 4, 8, 8
        toks = torch.arange(D * K, dtype=torch.int32).view(B, D, K)
        free = torch.arange(D * K, dtype=torch.int32).view(B, D * K).clone()
        free[0, 0] = 10**6                                   # out of range
        buf = cn.guarded_empty((D * K, item), torch.uint8, "cpu")
        host = torch.randint(0, 255, (S, item), dtype=torch.uint8)
        r = hisparse_spec_gather(toks, torch.tensor([S], dtype=torch.int32),
                                 torch.full((B, S), -1, dtype=torch.int32),
                                 torch.arange(S).view(B, S), host, buf.tensor, free,
                                 emulate_sglang_limits=False, validate=False)
        print("margins", cn.check_margins(buf).intact, "count", int(r.miss_count[0]))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "margins True count 8" in proc.stdout


def test_plan_alone_matches_and_copies_nothing(seed: int) -> None:
    """``copy_items=False`` (the benchmark's plan timing) builds the same plan, moves no item;
    many tiles per request (block 16) exercise the tiled numbering across tiles."""
    s = make_setup(seed, B=3, D=4, top_k=40, dup_from=4, hit=0.3)
    check_against_reference(s)
    before = s.buf.tensor.clone()
    res = hg.hisparse_spec_gather(s.toks, s.seq, s.dslot, s.hloc, s.host, s.buf.tensor, s.free,
                                  emulate_sglang_limits=False, copy_items=False, block=16)
    assert torch.equal(s.buf.tensor, before)
    B = s.toks.shape[0]
    assert torch.equal(res.miss_count[:B], s.cnt.tensor) and torch.equal(res.out_locs, s.out.tensor)
    for b in range(B):
        c = int(s.cnt.tensor[b])
        assert torch.equal(res.miss_src[b, :c], s.src.tensor[b, :c]) and torch.equal(res.miss_dst[b, :c], s.dst.tensor[b, :c])


@pytest.mark.parametrize("fill", [0, -1, 12345])
def test_dirty_workspace_is_reset_where_read(seed: int, fill: int) -> None:
    """The marker table is never cleared as a whole (a memset of B × max_seq entries per call
    would grow with the context): each call resets only its missing tokens' entries. A reused
    table full of stale values (0 would win every atomic_min) still gives the reference's plan,
    twice in a row."""
    s = make_setup(seed, hit=0.3, dup_from=4)
    ws = torch.full(tuple(s.dslot.shape), fill, dtype=torch.int32)
    check_against_reference(s, workspace=ws)
    untouched = ws == fill
    assert untouched.any()  # entries of tokens no call missed stay as they were: not cleared
    s2 = make_setup(seed + 1, hit=0.3, dup_from=4)
    check_against_reference(s2, workspace=ws)


def test_workspace_shape_checked() -> None:
    s = make_setup(3)
    with pytest.raises(ValueError, match="workspace must be int32"):
        s.call(workspace=torch.zeros((1, 1), dtype=torch.int32))
