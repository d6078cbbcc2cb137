#!/usr/bin/env python3
"""Registers, spills and occupancy of every kdacheck kernel variant, compiled for sm_90.

No GPU is needed: Triton compiles for a ``GPUTarget("cuda", 90, 32)`` with the ``ptxas`` it
bundles, and its bundled ``cuobjdump --dump-resource-usage`` reads each cubin's registers per
thread (REG), local memory per thread (LOCAL: spill stores land there; 0 = no spill), stack
and shared memory. The variants are the launches the wrappers make at the deployed shapes
(Kimi-Linear and Qwen3-Next: Kd = Vd = 128; Nemotron-H: P = 64, DS = 128; the HiSparse
gather at 2 x 4096 selections of 656 B items), with the block sizes the wrappers choose
(``kda_verify.verify_blocks``, ``mamba2_verify.verify_blocks``) and their ``num_warps``.

Occupancy (CTAs resident per SM) follows the CUDA occupancy calculator for sm_90:

- registers: a warp's registers are allocated in units of 256 (8 per thread), so a CTA of
  ``W`` warps at ``R`` registers per thread takes ``ceil(R * 32 / 256) * 256 * W`` of the
  SM's 65536 registers: ``by_regs = floor(65536 / that)``. At 4 warps: R <= 128 gives 4 CTAs,
  129-168 gives 3 (168: ceil(5376 / 256) = 21 units, 21 * 256 * 4 = 21504, 65536 // 21504 = 3),
  169-255 gives 2 (169: 22 units, 22528, 65536 // 22528 = 2);
- warps: at most 64 resident warps per SM: ``by_warps = 64 // W``;
- blocks: at most 32 CTAs per SM;
- shared memory: 228 KiB per SM, 1 KiB of it reserved per CTA:
  ``by_smem = 233472 // (SHARED + 1024)`` (unbounded when SHARED is 0).

``ctas_per_sm = min(by_regs, by_warps, by_blocks, by_smem)``. The tests judge the table
(``tests/kernels/test_harness.py``): no variant spills, every verify variant (the chain and
tree kernels) keeps at least ``MIN_CTAS_VERIFY`` CTAs per SM.

The compile is not the launch's exact specialisation (no pointer alignment hints are given;
the runtime adds ``tt.divisibility`` 16 to aligned pointers), which changes vector widths,
rarely the register count by more than a few.

Usage::

    python benchmarks/record_registers.py                     # the table, this Triton
    python benchmarks/record_registers.py --json OUT.json     # and the JSON document
    # the device's Triton (3.6.0) into a scratch target, then record its table:
    python -m pip download --no-deps --only-binary=:all: -d /tmp/t36 triton==3.6.0
    python -m pip install --no-index --no-deps --target /tmp/t36/site /tmp/t36/triton-3.6.0-*.whl
    PYTHONPATH=/tmp/t36/site python benchmarks/record_registers.py \\
        --json tests/data/triton-3.6-registers.json
    # check a recorded table against a live compile with that Triton:
    KDACHECK_TRITON36_SITE=/tmp/t36/site python -m pytest tests/kernels/test_harness.py -k triton_36
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any

REGS_PER_SM = 65536
REG_UNIT_PER_WARP = 256  # registers are allocated per warp in units of 256 (8 per thread)
MAX_WARPS_PER_SM = 64
MAX_CTAS_PER_SM = 32
SMEM_PER_SM = 233472  # 228 KiB
SMEM_RESERVED_PER_CTA = 1024
MIN_CTAS_VERIFY = 3  # the chain and tree verify kernels: <= 168 registers at 4 warps
SCHEMA = 1


def occupancy(regs: int, num_warps: int, shared: int = 0) -> dict[str, int]:
    """CTAs per SM on sm_90 by each limit, and the binding one (``ctas_per_sm``)."""
    per_warp = math.ceil(regs * 32 / REG_UNIT_PER_WARP) * REG_UNIT_PER_WARP
    by_regs = REGS_PER_SM // max(1, per_warp * num_warps)
    by_warps = MAX_WARPS_PER_SM // num_warps
    by_smem = SMEM_PER_SM // (shared + SMEM_RESERVED_PER_CTA) if shared else MAX_CTAS_PER_SM
    return {"by_regs": by_regs, "by_warps": by_warps, "by_blocks": MAX_CTAS_PER_SM, "by_smem": by_smem,
            "ctas_per_sm": min(by_regs, by_warps, MAX_CTAS_PER_SM, by_smem)}  # fmt: skip


@dataclass
class Variant:
    kernel: str  # the op's name (kda_verify, gdn_verify, mamba2_verify, hisparse_gather)
    variant: str
    group: str  # "verify" (chain and tree kernels: the occupancy target) or "gather"
    num_warps: int
    constexprs: dict[str, Any]
    regs: int | None = None
    local: int | None = None  # bytes of local memory per thread (spills)
    stack: int | None = None
    shared: int | None = None
    occupancy: dict[str, int] = field(default_factory=dict)
    error: str | None = None


def _pointer_types(kernel: str, state: str) -> dict[str, str]:
    """Pointer element types by parameter name; every other ``*_ptr`` is int32."""
    if kernel in ("kda_verify", "gdn_verify"):
        types = {n: "*bf16" for n in ("q_ptr", "k_ptr", "v_ptr", "a_ptr", "b_ptr")}
        types.update(alog_ptr="*fp32", dtb_ptr="*fp32", pool_ptr=f"*{state}", scratch_ptr=f"*{state}", o_ptr="*fp32")
        return types
    if kernel == "mamba2_verify":
        types = {n: "*bf16" for n in ("x_ptr", "dt_ptr", "B_ptr", "C_ptr", "D_ptr", "dtb_ptr")}
        types.update(A_ptr="*fp32", pool_ptr=f"*{state}", scratch_ptr=f"*{state}", o_ptr="*fp32")
        return types
    return {"host_loc_ptr": "*i64", "miss_src_ptr": "*i64", "host_ptr": "*i64", "dev_ptr": "*i64"}


def signature(fn: Any, pointers: dict[str, str], constexprs: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
    """The compile signature from the kernel's own parameters: a ``*_ptr`` by ``pointers``
    (int32 otherwise), ``scale`` fp32, other runtime scalars int32, constexprs as given (a
    constexpr with a default and no value takes its default)."""
    sig: dict[str, str] = {}
    consts = dict(constexprs)
    for p in fn.params:
        name = p.name
        if p.is_constexpr:
            if name not in consts:
                if not p.has_default:
                    raise ValueError(f"{fn.__name__}: no value for constexpr {name}")
                consts[name] = p.default
            sig[name] = "constexpr"
        elif name.endswith("_ptr"):
            sig[name] = pointers.get(name, "*i32")
        else:
            sig[name] = "fp32" if name == "scale" else "i32"
    return sig, consts


def variants() -> list[tuple[Variant, Any, dict[str, str]]]:
    from kdacheck.kernels import hisparse_gather as hg
    from kdacheck.kernels import kda_verify as kv
    from kdacheck.kernels import mamba2_verify as mv

    out: list[tuple[Variant, Any, dict[str, str]]] = []
    BK, BV = kv.verify_blocks(128, 128)
    for state in ("fp32", "bf16", "fp16"):  # SGLang's mamba_ssm_dtype choices
        for tree in (False, True):
            shape = "tree" if tree else "chain"
            for kernel, heads, head_gate in (("kda_verify", (32, 32), False), ("gdn_verify", (16, 32), True)):
                c = dict(H=heads[0] // 4, HV=heads[1] // 4, KD=128, VD=128, BK=BK, BV=BV, TREE=tree,
                         STATE_BF16=state == "bf16", STEP_GUARD=True, HEAD_GATE=head_gate)  # fmt: skip
                out.append((Variant(kernel, f"{state}-{shape}", "verify", 4, c), kv._kda_verify_kernel, _pointer_types(kernel, state)))
            BP, BDS = mv.verify_blocks(64, 128)
            c = dict(H=64 // 4, G=8 // 4, PD=64, DS=128, BP=BP, BDS=BDS, TREE=tree, STATE_BF16=state == "bf16")
            out.append((Variant("mamba2_verify", f"{state}-{shape}", "verify", 4, c), mv._mamba2_verify_kernel,
                        _pointer_types("mamba2_verify", state)))  # fmt: skip
    n_sel = 2 * 4096  # 2 steps x top_k 4096; the wrapper's default tiles of 128 selections
    block = min(1 << (n_sel - 1).bit_length(), 128)
    tile = dict(N_SEL=n_sel, BLOCK=block)
    n_tiles = -(-n_sel // block)
    gp = _pointer_types("hisparse_gather", "")
    for name, fn, extra in (("plan-reset", hg._plan_reset_kernel, {}), ("plan-mark", hg._plan_mark_kernel, {}),
                            ("plan-count", hg._plan_count_kernel, {}),
                            ("plan-write", hg._plan_write_kernel, {"BT": 1 << max(0, (n_tiles - 1).bit_length())}),
                            ("plan-out", hg._plan_out_kernel, {})):  # fmt: skip
        out.append((Variant("hisparse_gather", name, "gather", 4, dict(tile, **extra)), fn, gp))
    out.append((Variant("hisparse_gather", "copy", "gather", 4, dict(WORDS=82, BM=16, BW=128)), hg._hisparse_copy_kernel, gp))
    return out


def source_hash() -> str:
    """sha256 of the compiled kernels' source text, the block choices (the launch configs)
    and the variant list: a recorded table is current while this is unchanged."""
    import inspect

    from kdacheck.kernels import hisparse_gather as hg
    from kdacheck.kernels import kda_verify as kv
    from kdacheck.kernels import mamba2_verify as mv

    parts = []
    for fn in (kv._kda_verify_kernel, mv._mamba2_verify_kernel, hg._plan_reset_kernel, hg._plan_mark_kernel, hg._plan_count_kernel,
               hg._plan_write_kernel, hg._plan_out_kernel, hg._hisparse_copy_kernel):  # fmt: skip
        parts.append(inspect.getsource(getattr(fn, "fn", fn)))  # a JITFunction's (or interpreted) Python function
    parts += [inspect.getsource(kv.verify_blocks), inspect.getsource(mv.verify_blocks), inspect.getsource(variants)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _usage(cubin: bytes, cuobjdump: str) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.cubin")
        with open(path, "wb") as fh:
            fh.write(cubin)
        text = subprocess.run([cuobjdump, "--dump-resource-usage", path], capture_output=True, text=True,
                              timeout=120, check=False).stdout  # fmt: skip
    line = next((ln for ln in text.splitlines() if "REG:" in ln), "")
    fields = {}
    for tok in line.replace("Resource usage:", "").split():
        key, _, val = tok.partition(":")
        if val.isdigit():
            fields[key] = int(val)
    if "REG" not in fields:
        raise RuntimeError(f"cuobjdump printed no resource usage: {text.strip()[-300:]!r}")
    return fields


def measure() -> dict[str, Any]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    target = GPUTarget("cuda", 90, 32)
    cuobjdump = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    rows = []
    for v, fn, pointers in variants():
        try:
            sig, consts = signature(fn, pointers, v.constexprs)
            k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts), target=target,
                               options={"num_warps": v.num_warps})  # fmt: skip
            u = _usage(k.asm["cubin"], cuobjdump)
            v.regs, v.local, v.stack, v.shared = u["REG"], u.get("LOCAL", 0), u.get("STACK", 0), u.get("SHARED", 0)
            v.occupancy = occupancy(v.regs, v.num_warps, v.shared)
        except Exception as exc:  # recorded: the table is printed whole before anything is judged
            v.error = f"{type(exc).__name__}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"[:300]
        rows.append(asdict(v))
    return {"schema": SCHEMA, "triton": triton.__version__, "target": "cuda sm_90 (GPUTarget('cuda', 90, 32))",
            "source_sha256": source_hash(), "rule": "ctas_per_sm = min(65536 // (ceil(regs*32/256)*256*num_warps), "
            "64 // num_warps, 32, 233472 // (shared + 1024))", "rows": rows}  # fmt: skip


def table(doc: dict[str, Any]) -> str:
    head = ("kernel", "variant", "warps", "regs", "local", "stack", "shared", "by_regs", "CTAs/SM")
    body = []
    for r in doc["rows"]:
        if r.get("error"):
            body.append((r["kernel"], r["variant"], str(r["num_warps"]), "ERROR", r["error"], "", "", "", ""))
            continue
        o = r["occupancy"]
        body.append((r["kernel"], r["variant"], str(r["num_warps"]), str(r["regs"]), str(r["local"]), str(r["stack"]),
                     str(r["shared"]), str(o["by_regs"]), str(o["ctas_per_sm"])))  # fmt: skip
    w = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    lines = [f"sm_90 registers, Triton {doc['triton']} ({doc['rule']})"]
    lines.append("  ".join(h.ljust(x) for h, x in zip(head, w, strict=True)))
    lines += ["  ".join(c.ljust(x) for c, x in zip(b, w, strict=True)) for b in body]
    return "\n".join(lines)


def problems(doc: dict[str, Any]) -> list[str]:
    """Every row that misses the bound: a compile error, a spill, a verify kernel under
    ``MIN_CTAS_VERIFY`` CTAs per SM."""
    bad = []
    for r in doc["rows"]:
        name = f"{r['kernel']} {r['variant']}"
        if r.get("error"):
            bad.append(f"{name}: {r['error']}")
            continue
        if r["local"] or r["stack"]:
            bad.append(f"{name}: spills ({r['local']} B local, {r['stack']} B stack per thread)")
        if r["group"] == "verify" and r["occupancy"]["ctas_per_sm"] < MIN_CTAS_VERIFY:
            bad.append(f"{name}: {r['regs']} registers at {r['num_warps']} warps = {r['occupancy']['ctas_per_sm']} "
                       f"CTAs/SM, under the {MIN_CTAS_VERIFY} targeted")  # fmt: skip
    return bad


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--json", metavar="OUT", help="write the table as JSON to OUT")
    args = p.parse_args(argv)
    os.environ.pop("TRITON_INTERPRET", None)  # the interpreter never compiles (set before triton loads)
    doc = measure()
    print(table(doc))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
    bad = problems(doc)
    for b in bad:
        print("over the bound:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
