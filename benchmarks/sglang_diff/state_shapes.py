#!/usr/bin/env python3
"""SGLang's own hybrid-state shapes for every model folder: the oracle of kdacheck's state formulas.

Run inside an oracle venv (README.md, build_venv.sh):

    /work/oracle/venv-0.5.23/bin/python benchmarks/sglang_diff/state_shapes.py \
        --sglang-version 0.5.23 --out tests/data/sglang-golden/state-0.5.23.json

(and, for the hand-made LFM2 configs, ``--folders tests/data/lfm2-handmade --out
tests/data/sglang-golden/state-lfm2-handmade-0.5.23.json``).
For each ``config.json`` under ``tests/data/models/`` and ``benchmarks/sglang_diff/models/`` it
loads the config with SGLang's own loader (``srt/utils/hf_transformers/config.py`` ``get_config``,
which picks SGLang's config classes), finds the hybrid config as SGLang does
(``srt/configs/hybrid_arch.py`` ``mambaish_config``) and reads its ``mamba2_cache_params`` at
attention-TP widths 1, 2, 4 and 8 (SGLang's parallel context answered with that width): the state
layers, the conv and temporal shapes, the dtypes and ``mamba_cache_per_req`` (one request's state,
``srt/configs/mamba_utils.py`` ``BaseLinearStateParams``), and the chunk size the extra-buffer
prefix cache checks the page size against (``getattr(hf_config, "mamba_chunk_size", 64)``,
``srt/arg_groups/overrides.py`` ``mamba_cache_chunk_size``). A width SGLang's shapes refuse (a head
count it cannot divide) is recorded with its exception. Nothing here is kdacheck code:
``tests/test_state_golden.py`` replays the file against kdacheck's family formulas.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIM_DIR = os.path.join(ROOT, "kdacheck", "sglang")
FOLDERS = (os.path.join(ROOT, "tests", "data", "models"), os.path.join(HERE, "models"))
WIDTHS = (1, 2, 4, 8)


def _setup() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ["HF_HOME"] = os.environ.get("SGLANG_ORACLE_HF_HOME", "/tmp/sglang-oracle-hf")
    sys.path.insert(0, SIM_DIR)
    import sim_gpu
    import stubs

    stubs.install()
    sim_gpu.install("h200")
    import logging
    import warnings

    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")


class _Parallel:
    """SGLang's ParallelContext as the config classes read it: every ``*_size`` is ``width``."""

    def __init__(self, width: int) -> None:
        self.width = width

    def __getattr__(self, name: str) -> int:
        if name.endswith("_size"):
            return self.width
        raise AttributeError(name)


def _set_width(width: int) -> None:
    ctx = _Parallel(width)
    for name, mod in list(sys.modules.items()):
        if not name.startswith("sglang.srt") or mod is None:
            continue
        if hasattr(mod, "get_parallel"):
            mod.get_parallel = lambda ctx=ctx: ctx  # type: ignore[attr-defined]
        if hasattr(mod, "linear_attn_tp_size"):
            mod.linear_attn_tp_size = lambda w=width: w  # type: ignore[attr-defined]


def _dtype(d: object) -> str:
    return str(d).replace("torch.", "")


def _shapes(folder: str) -> dict:
    from sglang.srt.configs.hybrid_arch import mambaish_config
    from sglang.srt.utils.hf_transformers.config import get_config

    out: dict = {}
    try:
        hf = get_config(folder, trust_remote_code=False)
    except Exception as exc:  # SGLang refuses the config itself
        return {"config_error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    out["architecture"] = (getattr(hf, "architectures", None) or ["?"])[0]
    out["config_class"] = type(hf).__name__
    # overrides.py mamba_cache_chunk_size: the config's mamba_chunk_size, else FLA's CHUNK_SIZE (64)
    chunk = getattr(hf, "mamba_chunk_size", 64)
    out["mamba_chunk_size"] = chunk if isinstance(chunk, int) else repr(chunk)[:40]
    mc = types.SimpleNamespace(hf_config=hf, is_draft_model=False, linear_attn_registry_result=None)
    cfg = mambaish_config(mc)
    if cfg is None:
        out["state"] = None
        return out
    out["state_config_class"] = type(cfg).__name__
    widths: dict = {}
    for w in WIDTHS:
        _set_width(w)
        try:
            p = cfg.mamba2_cache_params
        except Exception as exc:
            widths[str(w)] = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
            continue
        if p is None:
            widths[str(w)] = None
            continue
        widths[str(w)] = {
            "layers": len(p.layers),
            "conv": [list(c) for c in p.shape.conv],
            "temporal": list(p.shape.temporal),
            "conv_dtype": _dtype(p.dtype.conv),
            "temporal_dtype": _dtype(p.dtype.temporal),
            "mamba_cache_per_req": int(p.mamba_cache_per_req),
        }
        ring = getattr(p, "replayssm_ring_bytes_per_req", None)
        if ring is not None:  # the ReplaySSM-spec ring at two record lengths (its default 16, and 32)
            try:
                widths[str(w)]["replayssm_ring_per_req"] = {str(n): int(ring(record_len=n)) for n in (16, 32)}
            except Exception as exc:
                widths[str(w)]["replayssm_ring_per_req"] = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
    out["state"] = widths
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sglang-version", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--folders", nargs="+", default=list(FOLDERS),
                    help="the folders whose model sub-folders are read (default: tests/data/models and models/ here)")
    args = ap.parse_args(argv)
    _setup()
    import sglang

    if sglang.__version__ != args.sglang_version:
        print(f"this venv has SGLang {sglang.__version__}, not {args.sglang_version}", file=sys.stderr)
        return 2
    doc: dict = {"sglang_version": args.sglang_version, "widths": list(WIDTHS), "models": {}}
    for base in args.folders:
        for slug in sorted(os.listdir(base)):
            folder = os.path.join(base, slug)
            if not os.path.isfile(os.path.join(folder, "config.json")):
                continue
            key = os.path.relpath(folder, ROOT)
            doc["models"][key] = _shapes(folder)
            print(key, json.dumps(doc["models"][key])[:160], file=sys.stderr)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
