"""Replaying SGLang's own verdicts and resolved values (``tests/data/sglang-golden/``) on kdacheck.

The goldens were written by ``benchmarks/sglang_diff`` from SGLang's real argument pipeline
(``prepare_server_args`` + ``resolve_once``, on a CPU with a simulated GPU). Each case is a
launch line over a model folder holding the model's public ``config.json``
(``tests/data/models/<slug>``); this module lints each with kdacheck at the same version and GPU
and compares. Used by ``tests/test_sglang_golden.py`` and ``benchmarks/sglang_diff/compare.py``.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kdacheck import sglang
from kdacheck.gpus import gpu as gpu_profile
from kdacheck.lint import Options, lint_text
from kdacheck.resolve import Resolved
from kdacheck.rules import REGISTRY
from kdacheck.rules.sglang import AFTER_RESOLUTION

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "sglang-golden"
MODELS = ROOT / "tests" / "data" / "models"

# Rules whose errors SGLang raises after its argument pipeline (kdacheck.rules.sglang.AFTER_RESOLUTION).
POST_RESOLUTION = AFTER_RESOLUTION

# SGLang's refusal (raising function, and a piece of its message when the function raises
# several) → the kdacheck code that names that cause.
CAUSES: tuple[tuple[str, str, str], ...] = (
    ("handle_kv4_compatibility", "nvfp4 requires Blackwell", "ATTN003"),
    ("_verify_quantization", "Unknown quantization method: gptq", "BUILD005"),
    ("_verify_quantization", "", "BUILD006"),
    ("mamba_cache_chunk_size", "", "RADIX001"),  # called by validate_mamba_extra_buffer
    ("_nemotron_h_overrides", "", "MODEL013"),  # its one refusal: the ModelOpt relu2 assert (no message)
    ("_qwen4_exp_overrides", "", "MODEL010"),
    ("handle_kv4_compatibility", "KV4 is not tested on non-CUDA", "GPU003"),
    ("handle_attention_backend_compatibility", "CP shard masking", "ATTN009"),  # before GPU002's "TRTLLM": its words hold it
    ("handle_attention_backend_compatibility", "TRTLLM", "GPU002"),
    ("handle_kv4_compatibility", "", "ATTN005"),
    ("handle_nvfp4_prefill_kv_dequant_dtype", "", "ATTN005"),
    ("_check_dsa_backend_constraints", "", "ATTN004"),
    ("handle_attention_backend_compatibility", "Flex Attention", "ATTN006"),
    ("handle_model_specific_adjustments", "does not support triton attention backend", "ATTN007"),
    ("validate_mamba_extra_buffer", "", "RADIX001"),  # during resolution (mamba_hook.py), not at cache init
    ("check_server_args", "chunked_prefill_size must be divisible by page_size", "PAR004"),
    ("handle_mxfp8_kv_cache_compatibility", "mxfp8 requires an SM100+", "ATTN003"),
    ("prepare_server_args", "ambiguous option", "ARG002"),
    ("prepare_server_args", "unrecognized arguments", "ARG001"),
    ("prepare_server_args", "invalid", "ARG004"),
    ("prepare_server_args", "expected", "ARG004"),
    ("_handle_ngram", "division or modulo by zero", "SPEC010"),
    ("_handle_ngram", "external", "SPEC020"),  # the external SAM corpus (L1331-1349), before the page and DP checks
    ("_handle_ngram", "", "SPEC006"),
    ("_handle_eagle_family", "page_size > 1 is only supported", "SPEC004"),
    ("_handle_eagle_family", "trtllm_mha backend only supports topk", "SPEC005"),
    ("_handle_eagle_family", "standalone speculative decoding does not support dp", "SPEC006"),
    ("_handle_eagle_family", "'>' not supported", "SPEC012"),
    ("_handle_eagle_family", "--speculative-use-rejection-sampling", "SPEC019"),
    ("_handle_eagle_family", "", "SPEC001"),
    ("_dp_lm_head_validation", "", "PAR006"),
    ("handle_data_parallelism", "data-parallel replicas", "PAR002"),
    ("handle_data_parallelism", "", "PAR001"),
    ("check_pipeline_parallel_compat", "", "PAR003"),
    ("_handle_uno", "", "SPEC014"),
    ("_handle_dflash", "--speculative-draft-window-size must be >=", "SPEC009"),
    ("_handle_dflash", "block-size to be positive", "SPEC009"),
    ("_handle_dflash", "", "SPEC014"),
    ("_handle_dspark", "gamma + 1", "SPEC009"),
    ("_handle_dspark", "DSpark pipeline parallelism requires PD prefill", "PAR003"),
    ("_handle_dspark", "", "SPEC014"),
    ("_init_adaptive_speculative_params", "", "SPEC007"),
    ("handle_linear_attn_backend", "FlashKDA", "KDA010"),
    ("handle_linear_attn_backend", "bfloat16", "KDA004"),
    # --enable-linear-replayssm's own prerequisites (attention_hook.py L409-439), before the -spec ones
    ("handle_linear_attn_backend", "--enable-linear-replayssm requires", "RSSM003"),
    ("handle_linear_attn_backend", "--enable-linear-replayssm is not supported under PD", "RSSM003"),
    ("handle_linear_attn_backend", "--linear-replayssm-cache-len must be >= 1", "RSSM003"),
    ("handle_linear_attn_backend", "replayssm", "RSSM002"),
    ("validate_hisparse", "linear speculation", "HSP007"),
    ("validate_hisparse", "adaptive", "HSP007"),
    ("validate_hisparse", "", "HSP006"),
    ("_dsa_dcp_overrides", "DSA DCP", "HSP008"),
    # LMCache and HiCache (kv_cache_hook.py L393-397, L432-474): every refusal of that block
    ("handle_cache_compatibility", "--enable-lmcache", "RADIX004"),
    ("validate_hicache_host_memory_mode", "requires a storage backend", "RADIX005"),
    ("_resolve_max_context_size", "", "BUILD004"),
    ("handle_cache_compatibility", "LMCacheUnifiedRadixCache", "RADIX004"),
    ("handle_cache_compatibility", "enable-hierarchical-cache and disable-radix-cache", "RADIX004"),
    ("_convert_config_to_args", "Unsupported config option", "ARG010"),
    ("validate_mamba_no_buffer", "", "RADIX002"),
    ("handle_mamba_radix_cache", "", "RADIX003"),
    ("_mla_kv_cache_dtype_checks", "", "ATTN001"),
    ("_cutedsl_prefill_backend_fill", "", "ATTN008"),
    ("_minicpm_sala_overrides", "", "MODEL005"),
    # SGLang's NemotronHConfig refuses the config at load; kdacheck says so and cannot check (exit 2)
    ("_validate_layers_block_type", "", "INPUT"),
    ("_dsa_kv_cache_dtype_default", "", "ATTN002"),
    # DeepSeek-V4's own hook (deepseek_v4_hook.py apply_deepseek_v4_defaults, overrides.py _deepseek_v4_kv_cache_dtype)
    ("apply_deepseek_v4_defaults", "", "MODEL003"),
    ("_deepseek_v4_kv_cache_dtype", "", "MODEL003"),
    ("handle_cache_compatibility", "retraction-backup=host_pool", "RADIX004"),
    ("handle_cache_compatibility", "offload-kvcache", "RADIX004"),
    ("handle_cache_compatibility", "--swa-", "RADIX004"),
    ("handle_int8_mamba_checkpoint", "", "RADIX006"),
    ("handle_mamba_backend", "", "MEM006"),
    ("handle_hicache_ratio_default", "", "RADIX007"),
    ("validate_hicache_host_memory_mode", "buffer_only", "RADIX007"),
    ("resolve_hicache_dcp_compatibility", "", "RADIX007"),
    ("handle_hicache", "cannot share the layer_first", "RADIX007"),
    # handle_speculative_decoding's common checks (speculative_hook.py L165-229)
    ("handle_speculative_decoding", "", "SPEC018"),
    # the model hook before the overrides, the DeepSeek override's CP refusals, DeepSeek-V4's CP validation
    ("handle_model_specific_adjustments", "--enable-cp-decode-attn-tp", "MODEL006"),
    ("handle_model_specific_adjustments", "Intern-S2-Mobius", "MODEL006"),
    ("handle_model_specific_adjustments", "CP is only supported for prefill", "MODEL007"),
    ("_deepseek_family_overrides", "", "MODEL007"),
    ("validate_deepseek_v4_cp", "CP strategy", "MODEL008"),
    ("validate_deepseek_v4_cp", "zigzag CP requires the NPU", "MODEL008"),
    ("validate_deepseek_v4_cp", "round-robin split mode", "MODEL008"),
    ("validate_deepseek_v4_cp", "single machine", "MODEL008"),
    # the PD hook's own refusals, decode context parallelism, the boundary models, the final parallel check,
    # the TP LM-head all-to-all, the attention-DP size, the --config merger's file checks
    ("handle_pd_disaggregation", "", "PD008"),
    ("_validate_prefill_complete", "", "PD008"),
    ("handle_decode_context_parallelism", "", "PAR007"),
    ("handle_dcp_validation", "", "PAR007"),
    ("_boundary_parallelism_overrides", "", "PAR008"),
    ("check_pipeline_parallel_compat", "--min-free-slots-delay", "PAR009"),
    ("check_server_args", "--min-free-slots-delay", "PAR009"),
    ("check_server_args", "tp_size must be divisible by number of nodes", "PAR009"),
    ("check_server_args", "pp_max_micro_batch_size", "PAR009"),
    ("check_server_args", "multi-node data", "PAR009"),
    ("check_server_args", "moe_dense_tp_size", "PAR009"),
    ("_dp_lm_head_validation", "--enable-tp-lm-head-all-to-all", "PAR010"),
    ("_dp_lm_head_validation", "enable_tp_lm_head_all_to_all", "PAR010"),
    ("handle_data_parallelism", "--attn-dp-size must be positive", "PAR011"),
    ("_extract_config_file_path", "", "ARG011"),
    ("_validate_yaml_file", "Config file must be YAML", "ARG011"),
    ("_parse_yaml_config", "dictionary at root", "ARG011"),
    ("_dsa_split_backend_resolution", "learnable attention sinks", "ATTN012"),
    ("_derive_context_length", "", "BUILD002"),
)


def cause_code(case: dict[str, Any]) -> str | None:
    """The kdacheck code for SGLang's refusal of this case, when the table knows it."""
    function = (case.get("raised_at") or {}).get("function") or ""
    message = case.get("message") or ""
    for specific in (True, False):  # an entry naming a piece of the message before a function's catch-all
        for fn, piece, code in CAUSES:
            if bool(piece) is specific and function.startswith(fn) and piece in message:
                return code
    return None


FIELDS, HYBRID_FIELDS, effective = sglang.FIELDS, sglang.HYBRID_FIELDS, sglang.effective


@dataclass
class Comparison:
    version: str
    cases: int = 0
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)  # (sglang, kdacheck)
    post_resolution: int = 0
    field_total: Counter[str] = field(default_factory=Counter)
    field_equal: Counter[str] = field(default_factory=Counter)
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    cause_total: int = 0  # both refuse, SGLang's cause in CAUSES
    cause_named: int = 0  # ... and kdacheck reports that code
    cause_unmapped: Counter[str] = field(default_factory=Counter)  # both refuse, cause not in CAUSES
    cause_missed: Counter[str] = field(default_factory=Counter)  # the cause code kdacheck did not report
    # the resolved view's ``sglang.<field>`` layer against SGLang's resolved_dict(), on cases SGLang starts
    layer_total: Counter[str] = field(default_factory=Counter)
    layer_equal: Counter[str] = field(default_factory=Counter)
    layer_mismatches: list[tuple[str, str, Any, Any]] = field(default_factory=list)  # (id, field, SGLang, kdacheck)

    @property
    def verdict_agreement(self) -> float:
        agree = self.confusion[("refused", "error")] + self.confusion[("starts", "clean")]
        return agree / max(1, self.cases - self.post_resolution)

    @property
    def cause_agreement(self) -> float:
        """Where both refuse: kdacheck names SGLang's cause (a cause outside CAUSES counts as missed)."""
        return self.cause_named / max(1, self.cause_total + sum(self.cause_unmapped.values()))

    def field_agreement(self, name: str) -> float:
        return self.field_equal[name] / max(1, self.field_total[name])

    def layer_agreement(self, name: str) -> float:
        return self.layer_equal[name] / max(1, self.layer_total[name])


def load(version: str) -> list[dict[str, Any]]:
    """A golden file of ``tests/data/sglang-golden/`` by its stem: a version (``0.5.23``) or a named
    draw (``families-0.5.23``)."""
    path = GOLDEN / f"{version}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


DRAFTS = ROOT / "benchmarks" / "sglang_diff" / "models"  # the folders SGLang read the draft slugs from (oracle._map_argv)
CONFIGS = "benchmarks/sglang_diff/configs/"  # the --config files of generate.py --dims wide (oracle._map_argv)


def _drafts_local(argv: list[str]) -> list[str]:
    """A draft model slug as the local folder SGLang's run read it from (its config.json holds the
    DSpark block size SGLang uses), and a ``--config`` file of the harness as its absolute path."""
    out = list(argv)
    for i, tok in enumerate(out):
        name, eq, value = tok.partition("=")
        if name == "--config":  # the wide draws' --config files, written relative to the repository
            j, rel = (i, value) if eq else (i + 1, out[i + 1] if i + 1 < len(out) else "")
            if rel.startswith(CONFIGS) and (ROOT / rel).is_file():
                out[j] = f"{name}={ROOT / rel}" if eq else str(ROOT / rel)
            continue
        if name != "--speculative-draft-model-path":
            continue
        j, slug = (i, value) if eq else (i + 1, out[i + 1] if i + 1 < len(out) else "")
        if slug and "/" not in slug and (DRAFTS / slug / "config.json").is_file():
            out[j] = f"{name}={DRAFTS / slug}" if eq else str(DRAFTS / slug)
    return out


def lint_case(case: dict[str, Any]) -> tuple[Resolved | None, set[str]]:
    """kdacheck on one golden case: its resolved configuration and its error codes."""
    text = "python -m sglang.launch_server " + shlex.join(_drafts_local(case["argv"]))
    folder = MODELS / case["model"]
    if not folder.is_dir():  # the harness-only model folders (benchmarks/sglang_diff/models, SOURCES.md there)
        folder = DRAFTS / case["model"]
    opts = Options(version=case["sglang_version"], model=str(folder) if folder.is_dir() else None,
                   gpu=gpu_profile(case["gpu"]))
    result = lint_text(text, "<golden>", opts, ".")
    errors = {f.code for f in result.findings if f.severity.label == "error"}
    if result.error:
        errors.add("INPUT")
    return (result.resolved[0] if result.resolved else None), errors


def family_of(slug: str) -> str:
    """The family a golden's model folder belongs to: ``benchmarks/sglang_diff/generate.py``'s
    ``kind`` (dense, kda, gdn, mamba, dsa), read from that standard-library module."""
    import importlib.util

    global _KINDS
    if _KINDS is None:
        spec = importlib.util.spec_from_file_location("sglang_diff_generate", DRAFTS.parent / "generate.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _KINDS = {m: info["kind"] for m, info in module.MODELS.items()}
    return _KINDS.get(slug, "?")


_KINDS: dict[str, str] | None = None


def compare(version: str, rows: list[dict[str, Any]] | None = None) -> Comparison:
    out = Comparison(version)
    for case in load(version) if rows is None else rows:
        if case["verdict"] not in ("starts", "refused"):
            continue
        out.cases += 1
        cfg, errors = lint_case(case)
        startup = {c for c in errors if c not in POST_RESOLUTION}
        ours = "error" if startup else "clean"
        if case["verdict"] == "starts" and errors and not startup:
            out.post_resolution += 1
            continue
        out.confusion[(case["verdict"], ours)] += 1
        if case["verdict"] == "refused" and ours == "error":
            code = cause_code(case)
            if code is None:
                out.cause_unmapped[f"{case.get('exception')} {(case.get('raised_at') or {}).get('function')}"] += 1
            else:
                out.cause_total += 1
                if code in errors:
                    out.cause_named += 1
                else:
                    out.cause_missed[code] += 1
        if (case["verdict"] == "refused") != (ours == "error"):
            out.mismatches.append({"id": case["id"], "argv": case["argv"], "model": case["model"], "gpu": case["gpu"],
                                   "sglang": case.get("exception"), "message": case.get("message", "")[:160],
                                   "raised_at": case.get("raised_at"), "kdacheck": sorted(errors)})
        if case["verdict"] == "starts" and cfg is not None:
            _compare_layer(out, case, cfg)
            for sg, ours_name in FIELDS.items():
                if sg not in case["resolved"] or ours_name not in cfg.vals:
                    continue
                if sg in HYBRID_FIELDS and (cfg.model is None or not cfg.model.hybrid):
                    continue  # SGLang leaves them None for a model without linear attention
                want, got = effective(case["resolved"], sg), cfg.v(ours_name)
                if got is None and want is not None and sg not in ("max_running_requests", "speculative_num_steps"):
                    continue  # kdacheck says "not known" (e.g. graphs off: no max batch), not a value
                if want is None and sg in HYBRID_FIELDS:
                    continue  # decided later from the model config (the SSM dtype)
                out.field_total[sg] += 1
                if want == got:
                    out.field_equal[sg] += 1
    return out


def _compare_layer(out: Comparison, case: dict[str, Any], cfg: Resolved) -> None:
    """Every ``sglang.<field>`` of the resolved view against the golden's ``resolved`` value."""
    from kdacheck.report.values import SGLANG_FIELDS, layers

    shown = layers(cfg)
    for name in SGLANG_FIELDS:
        if name not in case["resolved"] or f"sglang.{name}" not in shown:
            continue
        want, got = case["resolved"][name], shown[f"sglang.{name}"][1]
        out.layer_total[name] += 1
        if json.dumps(want) == json.dumps(got):
            out.layer_equal[name] += 1
        else:
            out.layer_mismatches.append((case["id"], name, want, got))


def known_codes() -> set[str]:
    return set(REGISTRY)
