"""BUILD: what SGLang refuses when it builds the model on each rank (beyond the head shares, KDA007)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

from kdacheck import geometry, messages, versions
from kdacheck.findings import Severity
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Consequence, Hit, first_refusal, layout, rule


@rule(
    "BUILD001", Severity.ERROR,
    consequence=Consequence.REFUSES_MODEL,
    name="fp8-block-divides-rank-widths",
    needs="model",
    summary="an FP8 block-quantized checkpoint's block_n / block_k divide every per-rank MLP width",
    what="""
        A checkpoint quantized in FP8 blocks (`quantization_config.weight_block_size` [block_n,
        block_k]) stores one scale per block, so each rank's share of a quantized layer must be
        whole blocks: the routed experts' gate/up width `moe_intermediate_size / (tp / ep)` a
        multiple of block_n (and of block_k for their down projection when split), the shared
        expert's and a dense model's MLP `intermediate / tp` likewise (their gate/up projection
        is merged, so SGLang checks it at every TP). A module named in `modules_to_not_convert` /
        `ignored_layers` is not quantized and not checked. Qwen3-Next-FP8 at TP 8: 512 / 8 = 64
        per rank, not a multiple of 128.
    """,
    why="SGLang raises a ValueError when the model is built.",
    sglang_message=f"{messages.FP8_MOE_N}\n{messages.FP8_MOE_K}\n{messages.FP8_LINEAR_N}\n{messages.FP8_LINEAR_K}".replace(
        "{n}", "{}").replace("{b}", "{}"),
    fix="Use a TP size at which every per-rank width is whole blocks, or expert parallelism (`--ep-size`) for the experts.",
    example="python -m sglang.launch_server --model-path tests/data/models/qwen3-next-80b-fp8 --tp-size 8",
    sources=(
        "0.5.23 `srt/layers/quantization/fp8.py:570-610` `Fp8LinearMethod.validate_block_quant_shapes`; "
        "`:1585-1601` `Fp8MoEMethod.create_weights` (0.5.19: lines 508-531, 1176-1192)",
        "0.5.23 `srt/layers/quantization/fp8.py:354-355` (`ignored_layers` or `modules_to_not_convert`), `:396-399` `is_layer_skipped`",
        "0.5.23 `srt/runtime_context.py:154` (`moe_tp_size = tp_size // moe_ep_size // moe_dp_size`)",
    ),
    inferred="""
        The linear-attention projections (GDN `in_proj_qkvz` / `in_proj_ba`) and the attention
        projections are also checked by SGLang; kdacheck does not model their quantization
        (which of them a checkpoint leaves unconverted) and says nothing of them. Module names
        are matched by substring, without layer indices.
    """,
)
def build001(cfg: Resolved) -> Iterator[Hit]:
    if cfg.model is None:
        return
    tp, _, ep = layout(cfg)
    found = geometry.fp8_refusals(cfg.model, cfg.version, tp, ep)
    if found:
        first = found[0]
        ok = [t for t in (1, 2, 4, 8, 16) if t != tp and not geometry.layout_refusals(cfg.model, cfg.version, t, t, 1)]
        fix = f"use `--tp-size {max(t for t in ok if t < tp)}`" if any(t < tp for t in ok) else "use fewer TP ranks"
        yield Hit(f"{first.message} ({first.what}; {first.place})", fix, values=("tp_size",))


@rule(
    "BUILD002", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="context-length-within-model",
    needs="model",
    summary="--context-length ≤ the context length SGLang derives from the model's config",
    what="""
        SGLang derives a model's context length from its config (`get_context_length`: the first
        of `max_sequence_length`, `seq_length`, `max_seq_len`, `model_max_length`,
        `max_position_embeddings`, times the rope scaling factor unless the scaling names
        `original_max_position_embeddings` or is llama3's) and refuses a larger
        `--context-length` unless the server's environment sets
        `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1` (kdacheck cannot see the environment,
        so it says so). A config that writes none of those keys is not judged.
    """,
    why="SGLang raises a ValueError at start-up when it builds the model config.",
    sglang_message=messages.CONTEXT.replace("({n})", "({context_length})").replace("({d})", "({derived_context_len})"),
    fix="Lower `--context-length` to the model's, or set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 if the longer context is intended.",
    example="python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --context-length 32768",
    sources=(
        "0.5.23 `srt/configs/model_config.py:1291-1326` `_derive_context_length` (the ValueError at L1314-1316; 0.5.19: L887)",
        "0.5.23 `srt/utils/hf_transformers/common.py:668-694` `CONTEXT_LENGTH_KEYS`, `get_context_length`",
    ),
)
def build002(cfg: Resolved) -> Iterator[Hit]:
    g = cfg.model.geometry if cfg.model is not None else None
    asked = cfg.user("context_length")
    if g is None or not isinstance(asked, int):
        return
    derived, why = geometry.context_with(g, cfg.user("json_model_override_args"))
    if not derived or asked <= derived:
        return
    yield Hit(
        f"{messages.CONTEXT.format(n=asked, d=derived)} (derived from {why}; SGLang accepts it only with "
        "that variable in the server's environment, which kdacheck cannot see)",
        f"use `--context-length {derived}` or less",
        values=("context_length",),
    )


@rule(
    "BUILD003", Severity.ERROR,
    consequence=Consequence.REFUSES_MODEL,
    name="awq-groups-divide-rank-widths",
    needs="model",
    summary="an AWQ checkpoint's group size divides every per-rank MLP input width",
    what="""
        An AWQ checkpoint (`quantization_config.quant_method` `awq`) stores one scale and zero
        point per `group_size` input channels and packs `32 / bits` outputs into a word, so each
        rank's share of a quantized layer must be whole groups and whole words: the shared
        expert's and a dense model's `down_proj` input `intermediate / tp` a multiple of the
        group size, their merged `gate_up_proj` output `2 · intermediate / tp` a multiple of
        the pack factor. On CUDA SGLang first tries AWQ-Marlin; a layer Marlin cannot take falls
        back to the plain AWQ kernels, which refuse a misaligned share, so the refusal is the same
        on either path. A module named in `modules_to_not_convert` is left unquantized and not
        checked. Qwen2-72B's AutoAWQ release was padded for this reason (29568 / 8 = 3696, not
        whole 128-channel groups).
    """,
    why="SGLang raises a ValueError when the model is built.",
    sglang_message=f"{messages.AWQ_INPUT}\n{messages.AWQ_OUTPUT}",
    fix="Use a TP size at which every per-rank width is whole groups, or a checkpoint padded for that TP.",
    example="python -m sglang.launch_server --model-path tests/data/models/qwen3-next-80b-awq --tp-size 8",
    sources=(
        "0.5.23 `srt/layers/quantization/awq/schemes/awq_linear.py:39-52` `AWQLinearScheme.create_weights` "
        "(the same lines in 0.5.19-0.5.22)",
        "0.5.23 `srt/layers/quantization/awq/awq.py:356-374` `AWQMarlinConfig.get_quant_method` (a layer Marlin cannot "
        "take falls back to AWQ), `:61-62` `is_layer_skipped_awq`",
        "0.5.23 `srt/layers/quantization/marlin_utils.py:161-193` `verify_marlin_supports_shape` (Marlin's own group check)",
        "https://huggingface.co/Qwen/Qwen2-72B-Instruct-AWQ/discussions/3 (the padding Qwen applied for TP 8)",
    ),
    inferred="""
        The routed experts of an AWQ MoE checkpoint go through FusedMoE (AWQ-Marlin MoE, else
        MoE WNA16), whose shape checks kdacheck does not model; attention and linear-attention
        projections are not checked (their widths are whole heads).
    """,
)
def build003(cfg: Resolved) -> Iterator[Hit]:
    if cfg.model is None:
        return
    tp, _, _ = layout(cfg)
    found = geometry.awq_refusals(cfg.model, cfg.version, tp)
    if found:
        first = found[0]
        ok = [t for t in (1, 2, 4, 8, 16) if t < tp and not geometry.layout_refusals(cfg.model, cfg.version, t, t, 1)]
        fix = f"use `--tp-size {max(ok)}`" if ok else "use fewer TP ranks"
        yield Hit(f"{first.message} ({first.what}; {first.place})", fix, values=("tp_size",))


@rule(
    "BUILD004", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="prefill-graph-context-within-model",
    summary="--cuda-graph-prefill-max-context is positive and, page-aligned, within the model's context length",
    what="""
        The prefill CUDA graphs are captured up to `--cuda-graph-prefill-max-context` tokens of
        context. SGLang rounds it up to a whole number of pages (the resolved `--page-size`) and
        refuses a value of 0 or less, or one whose aligned size passes the model's context
        length (`--context-length` where given, else the length it derives from the config,
        as BUILD002 reads it). A model whose config gives no context length is not judged on
        the second check, nor is a launch that sets the size through `--cuda-graph-config`.
    """,
    why="SGLang raises a ValueError while it resolves the CUDA-graph configuration.",
    sglang_message=f"{messages.PREFILL_GRAPH_CONTEXT_POSITIVE}\n"
                   + messages.PREFILL_GRAPH_CONTEXT_TOO_LONG.replace("{aligned}", "{}").replace("{context}", "{}"),
    fix="Use a size from 1 to the model's context length (page-aligned), or leave the flag out.",
    example="python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --cuda-graph-prefill-max-context 65536",
    sources=("0.5.23 `srt/arg_groups/cuda_graph_hook.py` L423-440 `_resolve_max_context_size`, L450-470 "
             "`finalize_cuda_graph_prefill_max_context` (0.5.21 L566-610; the flag is new in 0.5.21)",),
    since=versions.PREFILL_GRAPH_MAX_CONTEXT,
)
def build004(cfg: Resolved) -> Iterator[Hit]:
    asked = cfg.user("cuda_graph_prefill_max_context")
    if not isinstance(asked, int) or cfg.user("cuda_graph_config") is not None:
        return  # the JSON --cuda-graph-config takes precedence over the flag (cuda_graph_hook.py L88-93)
    if asked <= 0:
        yield Hit(messages.PREFILL_GRAPH_CONTEXT_POSITIVE + f" (got {asked})", "give a positive size, or leave the flag out",
                  values=("cuda_graph_prefill_max_context",))
        return
    g = cfg.model.geometry if cfg.model is not None else None
    given = cfg.user("context_length")
    derived, derived_why = geometry.context_with(g, cfg.user("json_model_override_args")) if g is not None else (0, "")
    context = given if isinstance(given, int) and given > 0 else derived
    page = int(cfg.v("page_size") or 1)
    aligned = -(-asked // page) * page
    if context and aligned > context:
        yield Hit(messages.PREFILL_GRAPH_CONTEXT_TOO_LONG.format(aligned=aligned, context=context)
                  + f" (page size {page}; the context length {'given' if context == given else 'derived from ' + derived_why})",
                  f"use `--cuda-graph-prefill-max-context {context // page * page}` or less",
                  values=("cuda_graph_prefill_max_context", "page_size"))


_MARLIN_GROUPS = (-1, 32, 64, 128)  # layers/quantization/marlin_utils.py MARLIN_SUPPORTED_GROUP_SIZES


def _not_marlin(q: geometry.Quant) -> str | None:
    """Why GPTQ-Marlin cannot take a GPTQ checkpoint (``GPTQMarlinConfig.is_gptq_marlin_compatible``),
    else None: ``bits``, ``group_size``, ``sym`` and ``desc_act`` given, (bits, sym) 4- or 8-bit
    symmetric, the group size one Marlin supports. A GPU below SM80 is not among kdacheck's."""
    if q.bits == 0 or q.group == 0 or q.sym is None or q.desc_act is None:
        missing = [k for k, v in (("bits", q.bits), ("group_size", q.group), ("sym", q.sym), ("desc_act", q.desc_act)) if v in (0, None)]
        return f"its quantization_config does not give {', '.join(missing)}"
    if q.bits not in (4, 8) or not q.sym:
        return f"Marlin takes 4- or 8-bit symmetric GPTQ, not bits {q.bits} with sym {str(q.sym).lower()}"
    if q.group not in _MARLIN_GROUPS:
        return f"Marlin takes group sizes {list(_MARLIN_GROUPS)}, not {q.group}"
    if q.marlin_format:
        return "a checkpoint already in Marlin format (checkpoint_format marlin) is not converted"
    return None


@rule(
    "BUILD005", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="gptq-needs-marlin",
    needs="model",
    summary="a GPTQ checkpoint on CUDA only as GPTQ-Marlin: 4/8-bit symmetric, a Marlin group size, not --quantization gptq",
    what="""
        SGLang 0.5.20 dropped the plain `gptq` method from what it registers on CUDA (CPU, XPU
        and Ascend keep theirs). A GPTQ checkpoint (`quantization_config.quant_method` `gptq`)
        is served on CUDA only when SGLang converts it to `gptq_marlin`: `bits`, `group_size`,
        `sym` and `desc_act` all given, 4- or 8-bit and symmetric, a group size of -1, 32, 64
        or 128, and not already in Marlin format (`checkpoint_format` marlin). Otherwise, or
        when `--quantization gptq` asks for the plain method, the quantization stays `gptq`
        and SGLang refuses it as unknown. ROCm registers no `gptq` either, and refuses
        `gptq_marlin` (it is not among ROCm's quantizations): there every GPTQ checkpoint is
        refused.
    """,
    why="SGLang refuses to start with a ValueError when it builds the model config, during its argument resolution.",
    sglang_message=f"{messages.GPTQ_UNKNOWN}\n{messages.GPTQ_MARLIN_ROCM}",
    fix="Drop `--quantization gptq` (SGLang converts a compatible checkpoint to gptq_marlin), or serve a 4- or 8-bit symmetric GPTQ checkpoint with a Marlin group size.",
    example="python -m sglang.launch_server --model-path tests/data/gptq-handmade/llama-3-8b-gptq-asym --tp-size 1",
    sources=(
        "0.5.23 `srt/configs/model_config.py:2090-2104` `_verify_quantization` (the checkpoint's method, then each method's "
        "override), `:2150-2155` (ValueError: Unknown quantization method)",
        "0.5.23 `srt/layers/quantization/__init__.py:99-157` (no `gptq` on CUDA; 0.5.19 L94 registered GPTQConfig)",
        "0.5.23 `srt/layers/quantization/gptq/gptq.py:298-301` `TYPE_MAP`, `:414-438` `override_quantization_method`, "
        "`:459-482` `is_gptq_marlin_compatible` (no CUDA guard, unlike AWQ's); `marlin_utils.py:44` (group sizes), `:68-101` (4/8-bit GPTQ types from SM80)",
    ),
    since=versions.GPTQ_MARLIN_ONLY,
    inferred="On ROCm read in the source (`_verify_quantization`'s ROCm list, 0.5.23 L2002-2016, L2156-2160): the CPU oracle simulates no ROCm GPU.",
)
def build005(cfg: Resolved) -> Iterator[Hit]:
    m = cfg.model
    q = m.geometry.quant if m is not None and m.geometry is not None else None
    given = cfg.user("quantization")
    if given == "gptq" and m is not None and q is None:
        # no checkpoint method to match (a method only in hf_quant_config.json is not read): gptq is asked for by name
        yield Hit(messages.GPTQ_UNKNOWN + " (--quantization gptq: SGLang registers no plain gptq method on CUDA or ROCm)",
                  "drop `--quantization gptq`", values=("quantization",))
        return
    if q is None or q.method != "gptq":
        return
    if cfg.gpu is not None and cfg.gpu.hip and given is None and _not_marlin(q) is None:
        yield Hit(messages.GPTQ_MARLIN_ROCM + f" (--gpu {cfg.gpu.name}: the checkpoint converts to gptq_marlin)",
                  "serve this checkpoint on CUDA, or an AWQ/FP8 form of the model on ROCm", values=("model_path",))
    elif given == "gptq":
        yield Hit(messages.GPTQ_UNKNOWN + " (--quantization gptq keeps the plain method)",
                  "drop `--quantization gptq`" + ("" if _not_marlin(q) else ": SGLang runs this checkpoint as gptq_marlin"),
                  values=("quantization",))
    elif given is None and (why := _not_marlin(q)) is not None:
        yield Hit(messages.GPTQ_UNKNOWN + f" (the checkpoint's GPTQ is not converted to gptq_marlin: {why})",
                  "serve a 4- or 8-bit symmetric GPTQ checkpoint with a Marlin group size (-1, 32, 64, 128)", values=("model_path",))


# checkpoint methods a method's override_quantization_method may turn into another (GPTQ and AWQ to
# their Marlin forms or moe_wna16, ModelOpt to its variants or petit_nvfp4 on ROCm): the outcome then
# depends on more than the two names and is not judged here (GPTQ's: BUILD005). Of the other
# overrides only humming answers a request over another checkpoint method (any but mxfp4,
# humming.py L503-508); MLX's answers a config with no quant_method, which kdacheck does not judge.
_OVERRIDDEN = ("gptq", "awq", "modelopt", "modelopt_mixed")


@functools.cache
def quantization_table(version: str) -> dict[str, Any]:
    """``kdacheck/data/quantization-<version>.json`` (``benchmarks/sglang_diff/quantization_table.py``)."""
    from kdacheck.flags import _data

    try:
        return dict(json.loads(_data(f"quantization-{version}.json")))
    except (OSError, FileNotFoundError):
        return dict(json.loads(_data(f"quantization-{versions.NEWEST}.json")))


def _quantization_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """_verify_quantization's refusals in its order, for the target model (0.5.23 L2000-2165)."""
    given = cfg.user("quantization")
    given = given.lower() if isinstance(given, str) else None
    m = cfg.model
    q = m.geometry.quant if m is not None and m.geometry is not None else None
    checkpoint = q.method if q is not None else None
    t = quantization_table(cfg.version)
    if checkpoint is not None and given is not None and given not in t["requantization"]:
        if checkpoint in _OVERRIDDEN:
            return
        humming = given == "humming" and checkpoint != "mxfp4"
        if given != checkpoint and not humming and checkpoint not in t["compatible"].get(given, ()):
            yield (messages.QUANT_MISMATCH.format(checkpoint=checkpoint, given=given),
                   f"drop `--quantization` (the checkpoint declares {checkpoint})", ("quantization",))
            return
    method = given if given is not None else checkpoint
    if method is None or method == "gptq" or (given is None and checkpoint in _OVERRIDDEN):
        return  # gptq asked for or a GPTQ checkpoint: BUILD005
    gpu = cfg.gpu
    hip = gpu is not None and gpu.hip
    registry = (t["rocm_gfx95"] if gpu is not None and gpu.arch == "gfx950" else t["rocm"]) if hip else t["cuda"]
    at = ("quantization",) if given is not None else ("model_path",)
    # without --gpu: CUDA's registry, and only a method ROCm lacks as well (the same refusal on either)
    if method not in registry and (gpu is not None or method not in t["rocm"]):
        yield messages.QUANT_UNKNOWN.format(method=method), "use a method SGLang registers for this GPU, or none", at
    elif hip and method not in t["rocm_listed"]:
        yield messages.QUANT_ROCM.format(method=method), "use a quantization ROCm supports (fp8, awq, mxfp4, quark, ...)", at


@rule(
    "BUILD006", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="quantization-method",
    summary="--quantization agrees with the checkpoint's method and names one the GPU's platform registers",
    what="""
        SGLang settles the quantization when it builds the model config: the checkpoint's
        `quantization_config.quant_method`, or `--quantization`. It refuses a `--quantization`
        that differs from the checkpoint's method unless its table pairs them (modelopt_fp4
        over an fp8 checkpoint, w8a8 over compressed-tensors, ...) or it requantizes
        (quark_mxfp4); then a method the platform does not register (on CUDA: mlx_q4, mlx_q8,
        and from 0.5.20 gptq); then on ROCm a method outside its supported list. The methods
        are read from each wheel (`kdacheck/data/quantization-<version>.json`). Where an
        override may change the checkpoint's method (GPTQ, AWQ and ModelOpt checkpoints) the
        outcome is not judged here (GPTQ's is BUILD005); `--quantization humming` takes any
        checkpoint but an mxfp4 one. A method declared only in `hf_quant_config.json` is not read.
    """,
    why="SGLang refuses to start with a ValueError when it builds the model config, during its argument resolution.",
    sglang_message=f"{messages.QUANT_MISMATCH}\n{messages.QUANT_UNKNOWN}\n{messages.QUANT_ROCM}",
    fix="Drop `--quantization` (SGLang takes the checkpoint's method), or name one SGLang pairs with it and registers for the GPU.",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --quantization moe_wna16",
    sources=(
        "0.5.23 `srt/configs/model_config.py:2000-2165` `_verify_quantization` (the compatible table L2041-2053, "
        "REQUANTIZATION_METHODS L545)",
        "0.5.23 `srt/layers/quantization/__init__.py:62-157` (the registry per platform)",
        "benchmarks/sglang_diff/quantization_table.py (the tables, read from each wheel)",
    ),
    inferred="Without --gpu a method is judged unknown only where CUDA and ROCm both lack it.",
)
def build006(cfg: Resolved) -> Iterator[Hit]:
    yield from first_refusal(_quantization_refusals(cfg))
