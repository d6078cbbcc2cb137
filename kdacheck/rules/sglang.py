"""SGLANG: what SGLang's own resolution says (``kdacheck lint --sglang``, kdacheck.sglang)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kdacheck.findings import Severity
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Consequence, Hit, rule
from kdacheck.sanitize import visible

# kdacheck rules whose errors SGLang raises after its argument pipeline, so SGLang's own
# resolution starting cannot confirm or refute them (the place that raises, SGLang 0.5.23); used by
# reconcile() and by the goldens' replay (tests/sglang_golden.py).
AFTER_RESOLUTION: dict[str, str] = {
    "KDA001": "srt/layers/attention/linear/kernels/kda_flashinfer.py L297 (first verify batch)",
    "KDA002": "srt/layers/attention/linear/kernels/kda_flashinfer.py L333 (CUDA-graph capture / first verify)",
    "KDA003": "srt/layers/attention/linear/kda_backend.py L509 (backend init)",
    "KDA005": "srt/layers/attention/linear/kda_backend.py (backend init)",
    "GPU001": "srt/layers/attention/attention_registry.py L473 attn_backend_wrapper (hybrid backend init)",
    "KDA007": "srt/models/<architecture>.py and the shared layers' asserts (model init; kdacheck/geometry.py)",
    "BUILD001": "srt/layers/quantization/fp8.py L570-610, L1585-1601 (the FP8 weights created at model init)",
    "BUILD003": "srt/layers/quantization/awq/schemes/awq_linear.py L39-52 (the AWQ weights created at model init)",
    "MEM002": "srt/mem_cache/kv_cache_configurator.py (pool sizing at model-runner init)",
    "MODEL004": "srt/models/nemotron_h_mtp.py L263-273 (the MTP draft's layers, at draft model init)",
    "HSP001": "srt/managers/hisparse_coordinator.py L180 (coordinator init)",
    "HSP002": "srt/managers/hisparse_coordinator.py L184 (coordinator init)",
    "HSP003": "kernels/ops/kvcache/hisparse.py L123 (first speculative swap)",
    "HSP004": "srt/managers/hisparse_coordinator.py (coordinator init)",
    "HSP005": "srt/managers/hisparse_coordinator.py (coordinator init)",
    "SPEC003": "the draft tree builder (first draft)",
    "SPEC015": "srt/model_executor/model_runner_components/attention_backend_setup.py L55/L65 (model-runner init, after the weights load)",
    "SPEC016": "srt/speculative/eagle_worker_v2.py L258 init_lm_head (draft memory-pool allocation, after the weights load)",
    "RSSM001": "srt/mem_cache/memory_pool.py L822-833 (the KDA ring, at pool allocation); a GDN tree verified as a chain (runs)",
    "SPEC013": "srt/mem_cache/kv_cache_configurator.py L3300 (state-cache sizing asserts D is set)",
    "RADIX009": "srt/mem_cache/kv_cache_configurator.py L3073-3075 _calculate_mamba_ratio (state-pool sizing)",
    "RSSM004": "srt/mem_cache/kv_cache_configurator.py L1706-1713 _build_hybrid_req_pool (state-pool construction)",
    "SPEC021": "srt/speculative/multi_layer_eagle_worker_v2.py L150-154 (multi-layer draft worker init, after the weights load)",
    "SPEC022": "srt/speculative/standalone_worker_v2.py L169-199 (STANDALONE worker init, after the weights load)",
    "MODEL012": "srt/mem_cache/kv_cache_configurator.py L2672-2677 _build_hybrid_linear_kv_pool (KV pool construction)",
}

_OWN_CODES = ("SGLANG001", "SGLANG002")  # SGLang's own verdict and its notes: never reconciled

# how lint.lint_launch's note starts where kdacheck could not read the model under --sglang
MODEL_UNREAD = "kdacheck could not read the model"


@rule(
    "SGLANG001", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="sglang-refuses",
    summary="SGLang's own argument resolution refuses the launch (--sglang)",
    what="""
        With `--sglang`, the launch line runs through SGLang's own parser and resolution
        (`prepare_server_args`, `resolve_once`, `check_server_args`) in a subprocess, without
        weights or GPU memory. A refusal is reported with SGLang's exception, message and the
        place in SGLang that raised it, whatever kdacheck's own rules say.
    """,
    why="This is what the server does at start-up, before it loads a single weight.",
    fix="Fix what SGLang's message names; the kdacheck rule for the same cause, if any, has the details.",
    example="kdacheck lint --sglang --gpu h200 --cmd 'python -m sglang.launch_server --model-path ./kimi --tp-size 2 --attn-dp-size 4'",
    sources=("0.5.23 `srt/server_args.py` `prepare_server_args`, `ServerArgs.resolve_once`, `check_server_args`",),
)
def sglang001(cfg: Resolved) -> Iterator[Hit]:
    res = cfg.sglang
    if res is None:
        return
    if res.get("verdict") == "refused":
        where = res.get("raised_at") or {}
        place = f" (at sglang/{where.get('file')}:{where.get('line')} `{where.get('function')}`)" if where.get("file") else ""
        message = str(res.get("message") or "").strip() or "(no message)"
        yield Hit(f"SGLang refuses to start: {res.get('exception')}: {message}{place}",
                  "fix what SGLang names (see the kdacheck findings on the same cause)")
    elif res.get("verdict") == "harness_error":
        yield Hit(f"SGLang's resolution could not run here: {res.get('exception')}: {str(res.get('message'))[:200]}",
                  "run on a machine with the SGLang version you deploy, or give --gpu to simulate the device",
                  severity=Severity.INFO)


@rule(
    "SGLANG002", Severity.INFO,
    consequence=Consequence.RUNS_OTHER,
    name="sglang-resolves-differently",
    summary="a value or verdict SGLang resolves differently from kdacheck (--sglang): a kdacheck defect, a note",
    what="""
        With `--sglang`, every field both resolve (steps, topk, draft tokens, TP, DP, attention
        DP, page size, running requests, the attention and linear-attention backends, the radix
        cache and its strategy, the overlap schedule, the SSM dtype) is compared, and so is the
        verdict. SGLang's verdict is the result: where kdacheck's start-up rules disagree, their
        errors become notes, and this note names both. A difference means kdacheck's checks ran
        on a value the server does not use: a kdacheck defect, never a fault of the launch.
    """,
    why="kdacheck's verdicts are only as good as its copy of SGLang's resolution; SGLang's own is the truth.",
    fix="Trust SGLang's value; report the difference to kdacheck with the launch line.",
    sources=("kdacheck `kdacheck/sglang/__init__.py` FIELDS (the fields compared)",),
)
def sglang002(cfg: Resolved) -> Iterator[Hit]:
    res = cfg.sglang
    if res is None or res.get("verdict") != "starts":
        return
    from kdacheck import sglang  # its subprocess machinery only when --sglang ran

    ours = {name: cfg.v(name) for name in sglang.FIELDS.values() if name in cfg}
    hybrid = cfg.model is not None and cfg.model.hybrid
    for field, theirs, mine in sglang.differences(res.get("resolved") or {}, ours, hybrid):
        yield Hit(f"kdacheck defect: SGLang resolves {field} = {theirs!r}; kdacheck resolved {mine!r}",
                  "trust SGLang's value, and report the difference to kdacheck")


def reconcile(cfg: Any, findings: list[Any]) -> list[Any]:
    """SGLang's verdict is the result: where it differs from kdacheck's, kdacheck's start-up
    errors become notes and one note names both verdicts ("kdacheck defect"), never a failure of
    the launch. Errors of rules SGLang only raises after its argument pipeline
    (``AFTER_RESOLUTION``) keep their severity: SGLang's resolution cannot judge them."""
    import dataclasses

    from kdacheck.findings import Finding, Severity

    res = cfg.sglang or {}
    verdict = res.get("verdict")
    if verdict not in ("starts", "refused"):
        return findings
    unread = cfg.model is None and cfg.model_note.startswith(MODEL_UNREAD)
    ours = sorted({f.code for f in findings if f.severity is Severity.ERROR and not f.not_checked
                   and f.code not in AFTER_RESOLUTION and f.code not in _OWN_CODES})
    out = list(findings)
    note = None
    if verdict == "starts" and ours:
        out = [dataclasses.replace(f, severity=Severity.INFO, message=f"kdacheck defect (SGLang's own resolution starts this launch): {f.message}")
               if f.code in ours and f.severity is Severity.ERROR else f for f in findings]
        note = (f"kdacheck defect: SGLang {cfg.version}'s own resolution starts this launch; kdacheck's start-up rules say it "
                f"refuses ({', '.join(ours)}). SGLang's verdict stands; those findings are shown as notes")
    elif verdict == "refused" and not ours:
        note = (f"kdacheck defect: SGLang {cfg.version}'s own resolution refuses this launch ({res.get('exception')}, SGLANG001); "
                "kdacheck's start-up rules found no error. SGLang's verdict stands")
    if note is not None:
        out.append(Finding("SGLANG002", Severity.INFO, visible(note), cfg.cmd.loc,
                           fix="report the launch line to kdacheck (a difference from SGLang's resolution)", source=cfg.cmd.name))
    if unread:
        said = "starts" if verdict == "starts" else "refuses to start (SGLANG001)"
        out.append(Finding("SGLANG002", Severity.INFO, visible(f"{cfg.model_note}; SGLang {cfg.version}'s own resolution ran and "
                                                                  f"{said}: that is the verdict"), cfg.cmd.loc,
                           fix="see the note: kdacheck's rules that need the model did not run", source=cfg.cmd.name))
    return out
