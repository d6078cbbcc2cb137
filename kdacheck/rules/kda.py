"""KDA: hybrid linear-attention verify (KDA and, where marked, GDN)."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import geometry, messages, versions
from kdacheck.findings import Severity
from kdacheck.messages import KDA001_MESSAGE, KDA002_MESSAGE
from kdacheck.models import Family
from kdacheck.resolve import Event, Resolved
from kdacheck.resolve.cuda_graph import RowMapParams, row_map_geometry, row_map_ok
from kdacheck.rules.base import (
    HYBRID,
    LINEAR_VERIFY,
    MAX_SEARCH,
    Consequence,
    Hit,
    layout,
    rule,
    unchecked,
)


@rule(
    "KDA001", Severity.ERROR,
    consequence=Consequence.CRASHES_AT_VERIFY,
    name="scratch-steps-cover-verify-width",
    needs="model", families=LINEAR_VERIFY, speculative=True,
    summary="verify width ≤ allocated scratch steps (D ≤ D_max)",
    what="""
        The verify kernel writes one state per draft token into `intermediate_ssm`
        `[L, R + 1, D_max, HV, Vd, Kd]`. Every verify batch's width D must fit in the D_max
        steps allocated at start-up. (LFM2's short-conv verify runs no linear-attention kernel:
        the model's own `causal_conv1d` writes the conv windows, so this rule is not about it.)
    """,
    why="""
        The FlashInfer verify path raises at the first verify batch; the Triton path has no
        check and writes past the row into the next request's scratch (silent corruption).
    """,
    sglang_message=KDA001_MESSAGE,
    fix="Size the scratch for the widest verify batch: resize to ≥ D steps, or lower the draft width.",
    example="kdacheck run --steps 4 --topk 1 --buffer-steps 3",
    sources=(
        "0.5.18 `srt/layers/attention/linear/kernels/kda_flashinfer.py:270`; 0.5.23 line 296",
        "0.5.19 `srt/mem_cache/memory_pool.py:714-822` (intermediate_ssm allocation)",
    ),
    inferred="""
        The Triton path's missing bound check is inferred from 0.5.23 `fused_sigmoid_gating_recurrent.py` (`cache_idx * cache_steps + step`, unchecked); `kdacheck run --buffer-steps 3 --verify-backend triton` reproduces it inside a guarded buffer and reports which rows were overwritten and how many elements landed past the end (`--verify-backend flashinfer`, the default without `--args`, shows FlashInfer's error instead).
        No launch configuration of 0.5.19–0.5.23 reaches it statically: every version allocates the scratch with `max_speculative_num_draft_tokens()` = max(D, max(candidate steps) + 1 under adaptive) (0.5.19 `kv_cache_configurator.py:1076-1079`, 0.5.23 `:1730-1733`), which is also the widest verify batch of every built-in algorithm (DSPARK's graph-tier alignment pads the token total, not the per-request width). The rule guards the invariant (`verify_width_max` ≤ `d_max`) and is exercised by `kdacheck run --buffer-steps`.
    """,
)
def kda001(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("spec_on"):
        return
    if cfg.model is None or not cfg.model.hybrid or cfg.model.family not in LINEAR_VERIFY or not cfg.v("scratch_allocated"):
        return
    width = cfg.v("verify_width_max", cfg.v("draft_tokens"))
    dmax = cfg.v("d_max")
    if width is not None and dmax is not None and width > dmax:
        yield Hit(
            KDA001_MESSAGE.format(draft_token_num=width, scratch_steps=dmax),
            f"resize to ≥ {width} scratch steps",
            values=("verify_width_max", "draft_tokens", "d_max"),
        )


_KDA_BACKEND = "`srt/layers/attention/linear/kda_backend.py`"


def _kda(cfg: Resolved) -> bool:
    return cfg.model is not None and cfg.model.family is Family.KDA


def _smallest_mrr(cfg: Resolved, params: RowMapParams) -> int | None:
    """The smallest --max-running-requests ≥ the current one whose row map passes."""
    mrr = int(cfg.v("max_running_requests") or 48)
    adp = max(1, params.attn_dp)
    for cand in range(mrr + 1, mrr + min(64 * adp, MAX_SEARCH) + 1):
        p = params
        # the default decode max bs follows --max-running-requests when it was capped by it
        capped = not cfg.given("cuda_graph_max_bs_decode") and not cfg.given("cuda_graph_bs_decode") and cfg.given("max_running_requests")
        if capped and params.graph_cap == mrr:
            p = params._replace(graph_cap=cand)
        R = max(1, cand // adp) if cfg.at_least(versions.REQUESTS_PER_WORKER_CLAMPED) else cand // adp
        if row_map_ok(R, p):
            return cand
    return None


@rule(
    "KDA002", Severity.ERROR,
    consequence=Consequence.CRASHES_AT_CAPTURE,
    name="identity-verify-row-map",
    needs="model", families=(Family.KDA,), speculative=True,
    summary="FlashInfer KDA verify without fused accept: the verify row map is the identity for every batch",
    what="""
        Without fused accept, FlashInfer KDA verify writes request n's scratch into row n and
        checks that the first B entries of `verify_intermediate_state_indices` are
        `arange(B)`. SGLang builds the map once as `arange(R)` followed by P − R copies of R
        (R = max running requests per attention-DP worker; P =
        ceil_align(ceil_align(R, attn_tp_size), cp_align) when MLP sync is on: DP attention,
        or attention-TP gather under a MoE a2a backend / `--moe-dense-tp-size`; else P = R).
        The largest verify batch is B_max = max(P, ceil_align(R, g)) where g is the CUDA-graph
        alignment (2 under two-batch overlap × attn_tp_size with gathered buffers × attn_cp_size
        when needed), if the decode CUDA-graph batch list reaches that far. The map is the
        identity for every B ≤ B_max iff B_max ≤ P and B_max ≤ R + 1: one padding row is
        harmless (its index R is the identity), two or more are not, nor a batch longer than
        the map. Fused accept (flashinfer verify, speculation, `--disable-radix-cache`, no
        ReplaySSM-spec, no PD disaggregation) skips the check.
    """,
    why="SGLang raises during CUDA-graph capture of the padded batch (or at the first such batch when serving).",
    sglang_message=KDA002_MESSAGE,
    fix="""
        Choose `--max-running-requests` so that R per worker is a multiple of the alignment,
        or one less (kdacheck computes the smallest such value), or use `--disable-radix-cache`
        (fused accept), or the Triton verify backend.
    """,
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 8 --dp 2 --enable-dp-attention --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --linear-attn-verify-backend flashinfer --mamba-ssm-dtype bfloat16 --max-running-requests 90",
    sources=(
        "0.5.19 `srt/layers/attention/linear/kernels/kda_flashinfer.py:335` `FlashInferKDAKernel.target_verify`; 0.5.22 line 331; 0.5.23 line 332",
        "0.5.19 `srt/layers/attention/linear/utils.py:106` `build_verify_intermediate_state_indices`; 0.5.23 line 125",
        "0.5.19 `srt/utils/common.py:3855` `get_eager_max_batch_size`; 0.5.23 line 4188 (two successive alignments); 0.5.23 4067-4181 `require_mlp_tp_gather`, `require_attn_tp_gather`, `require_mlp_sync`, `get_cuda_graph_batch_size_alignment`",
        "0.5.23 `srt/model_executor/runner/base_cuda_graph_runner.py:65` `get_batch_sizes_to_capture`; 0.5.23 `srt/arg_groups/memory_hook.py:83-188` (decode max bs, capped to --max-running-requests)",
        f"0.5.19 {_KDA_BACKEND}:458 `_can_fuse_accept_state`; 0.5.23 line 563",
    ),
    changes=(
        "Same map, check and fused-accept bypass in 0.5.19–0.5.23.",
        "0.5.20+: R = max(1, max_running_requests // attn_dp_size) (0.5.19: no max(1, ·)).",
        "0.5.22+: with env SGLANG_ENABLE_PP_SPEC SGLang falls back to Triton verify for KDA (not visible in launch flags).",
    ),
    inferred="""
        Read in the source: P is two successive alignments (not one
        ceil_align(R, attn_tp · cp)); MLP sync is also on without DP attention under attention-TP
        gather; the graph-padded batch is only captured when the decode bs list (default by GPU
        memory, capped to --max-running-requests) reaches ceil_align(R, g). Zigzag CP
        (cp_align = 2·attn_cp_size) is not modelled.
    """,
)
def kda002(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("spec_on") or cfg.v("verify_backend") != "flashinfer":
        return
    if cfg.model is None:
        yield unchecked("needs the model (pass --model) to know whether FlashInfer KDA verify runs")
        return
    if not _kda(cfg) or cfg.v("fused_accept") or not cfg.v("scratch_allocated", True) or cfg.v("pd_prefill"):
        return
    R, params = cfg.v("R"), cfg.v("row_map_params")
    if R is None or params is None:
        return
    if row_map_ok(R, params):
        return
    P, b_max = row_map_geometry(R, params)
    if b_max > P:
        detail = f"the largest verify batch {b_max} is longer than the row map ({P} rows)"
    else:
        detail = f"a batch of {b_max} reads {b_max - R} padding rows"
    per = f"{R} requests per worker" if params.attn_dp > 1 else f"{R} requests"
    # short: the arithmetic is in the evidence rows and the row-map picture below it
    msg = f"{per}, padded to {P}: {detail}, and FlashInfer verify without fused accept raises: {KDA002_MESSAGE}"
    best = _smallest_mrr(cfg, params)
    fix = f"set `--max-running-requests {best}`" if best is not None else "use `--linear-attn-verify-backend triton`"
    fix += ", or add `--disable-radix-cache` (fused accept skips the check)"
    yield Hit(msg, fix, values=("max_running_requests", "R", "attn_dp_size", "attn_tp_size", "row_map_len", "max_verify_batch", "verify_backend", "fused_accept"),
              pictures=(("row map", _row_map_picture(R, P, b_max)),))


def _row_map_picture(R: int, P: int, b_max: int) -> str:
    """One line: the verify row map SGLang builds for the largest batch, and where it stops
    being the identity FlashInfer requires."""
    head = "0 1 2 … " + str(R - 1) if R > 4 else " ".join(str(i) for i in range(R))
    pads = [R] * max(0, min(P, b_max) - R)
    shown = " ".join(map(str, pads[:4])) + (" …" if len(pads) > 4 else "")
    beyond = f" | rows {P}–{b_max - 1}: past the map" if b_max > P else ""
    return (f"batch rows 0–{b_max - 1} → [{head} | {shown}]{beyond}; "
            f"FlashInfer needs [0 1 2 … {b_max - 1}]: rows {R}–{min(P, b_max) - 1} all read row {R}")


@rule(
    "KDA003", Severity.ERROR,
    consequence=Consequence.REFUSES_BACKEND,
    name="flashinfer-verify-is-chain-only",
    needs="model", families=(Family.KDA,), speculative=True,
    summary="FlashInfer linear-attention verify ⇒ topk 1 (NGRAM's default breadth makes topk 10)",
    what="""
        The FlashInfer KDA verify kernel handles a chain only: no tree
        (`retrieve_parent_token`), and the KDA backend refuses a tree at start. NGRAM sets
        topk to `--speculative-ngram-max-bfs-breadth`, 10 by default. GDN models (Qwen3-Next,
        Qwen3.5) are not affected: their backend sends tree drafts to the Triton verify even
        when the chain verify is FlashInfer.
    """,
    why="SGLang raises a ValueError when the KDA attention backend is built (model-runner start).",
    sglang_message="KDA FlashInfer speculative decoding only supports topk=1 (EAGLE tree verify / retrieve_parent_token is unsupported).",
    fix="Use `--speculative-eagle-topk 1` (NGRAM: `--speculative-ngram-max-bfs-breadth 1`), or `--linear-attn-verify-backend triton`.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --speculative-algorithm NGRAM --linear-attn-verify-backend flashinfer --mamba-ssm-dtype bfloat16",
    sources=(
        f"0.5.19 {_KDA_BACKEND}:408-411 `KDAAttnBackend.__init__`; 0.5.23 lines 507-511",
        "0.5.23 `srt/layers/attention/linear/kernels/kda_flashinfer.py:267` (kernel backstop)",
        "0.5.23 `srt/layers/attention/linear/gdn_backend.py:261` (`tree_verify_kernel = triton_kernel`), 505-512 "
        "(`_get_target_verify_kernel`: tree drafts use Triton); 0.5.19 lines 147, 371",
    ),
)
def kda003(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("spec_on") or cfg.v("verify_backend") != "flashinfer":
        return
    if not _kda(cfg):  # GDN routes tree drafts to its Triton verify (gdn_backend.py L261, L505-512): no failure
        return
    K = cfg.v("topk")
    if isinstance(K, int) and K > 1:
        ngram = cfg.v("speculative_algorithm") == "NGRAM"
        yield Hit(
            f"topk {K}" + (" (NGRAM: topk = breadth)" if ngram else "") + " with FlashInfer linear-attention verify: KDA FlashInfer speculative decoding only supports topk=1",
            "set `--speculative-ngram-max-bfs-breadth 1`" if ngram else "set `--speculative-eagle-topk 1`" + ", or use `--linear-attn-verify-backend triton`",
            values=("topk", "ngram_breadth", "verify_backend") if ngram else ("topk", "verify_backend"),
        )


@rule(
    "KDA004", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="flashinfer-sm100-needs-bf16-state",
    # "state": SGLang checks the backends and the flag in handle_linear_attn_backend, whatever
    # the model's geometry, so a model whose state kdacheck does not model (MiniCPM-SALA) is checked
    needs="state", families=HYBRID,
    summary="FlashInfer linear-attention decode or verify on SM100+ ⇒ --mamba-ssm-dtype bfloat16",
    what="""
        On compute capability 10.x and later, the FlashInfer linear-attention decode and verify
        kernels keep the SSM state in bfloat16; SGLang requires the flag
        `--mamba-ssm-dtype bfloat16` (the model config or the environment does not count).
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message="--linear-attn-decode-backend flashinfer on SM100+ requires --mamba-ssm-dtype bfloat16, got {cfg.mamba_ssm_dtype!r}  (and the same with --linear-attn-verify-backend)",
    fix="Add `--mamba-ssm-dtype bfloat16`, or use the Triton backends.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --speculative-algorithm EAGLE --linear-attn-verify-backend flashinfer  # on B200",
    sources=(
        "0.5.19 `srt/arg_groups/attention_hook.py:292` / `:307` `handle_linear_attn_backend`",
        "0.5.23 `srt/arg_groups/attention_hook.py:342` / `:374` `handle_linear_attn_backend`",
    ),
)
def kda004(cfg: Resolved) -> Iterator[Hit]:
    which = [n for n in ("decode_backend", "verify_backend") if cfg.v(n) == "flashinfer" and (n == "decode_backend" or cfg.v("spec_on") or cfg.given("linear_attn_verify_backend"))]
    if not which:
        return
    if cfg.gpu is None:
        yield unchecked("needs --gpu: FlashInfer linear attention on SM100+ requires --mamba-ssm-dtype bfloat16")
        return
    given = cfg.parsed.value("mamba_ssm_dtype")
    if cfg.gpu.sm >= 100 and given != "bfloat16":
        flag = "--linear-attn-decode-backend" if which[0] == "decode_backend" else "--linear-attn-verify-backend"
        yield Hit(
            f"{flag} flashinfer on SM100+ requires --mamba-ssm-dtype bfloat16, got {given!r} ({cfg.gpu.name}, SM{cfg.gpu.sm})",
            "add `--mamba-ssm-dtype bfloat16`",
            values=(which[0], "ssm_dtype"),
        )


@rule(
    "KDA005", Severity.ERROR,
    consequence=Consequence.REFUSES_BACKEND,
    name="flashinfer-kda-needs-sm100",
    needs="model", families=(Family.KDA,),
    summary="FlashInfer KDA kernels need SM100+ (Blackwell)",
    what="The FlashInfer KDA kernel (`recurrent_kda`) exists only on compute capability 10.x and later.",
    why="SGLang raises a RuntimeError when the KDA attention backend is built.",
    sglang_message="FlashInfer KDA kernel (recurrent_kda) is not available. Requires SM100+ and a FlashInfer build with KDA support.",
    fix="Use `--linear-attn-decode-backend triton` / `--linear-attn-verify-backend triton` on Hopper and older GPUs.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --speculative-algorithm EAGLE --linear-attn-verify-backend flashinfer  # on H200",
    sources=(
        "0.5.19 `srt/layers/attention/linear/kernels/kda_flashinfer.py:97` `FlashInferKDAKernel.__init__`; 0.5.22 line 93; 0.5.23 line 94",
    ),
    changes=("0.5.19–0.5.22 message: '... Requires SM100 (Blackwell) and a FlashInfer build with KDA support.'; 0.5.23: 'Requires SM100+ ...'.",),
)
def kda005(cfg: Resolved) -> Iterator[Hit]:
    if not _kda(cfg):
        return
    which = [n for n in ("decode_backend", "verify_backend") if cfg.v(n) == "flashinfer" and (n == "decode_backend" or cfg.v("spec_on"))]
    if not which:
        return
    if cfg.gpu is None:
        yield unchecked("needs --gpu: the FlashInfer KDA kernel needs SM100+")
        return
    if cfg.gpu.sm < 100:
        need = "SM100+" if cfg.at_least(versions.KDA_SM100_PLUS_WORDING) else "SM100 (Blackwell)"
        yield Hit(
            f"FlashInfer KDA kernel (recurrent_kda) is not available on {cfg.gpu.name} ({cfg.gpu.label}). Requires {need} and a FlashInfer build with KDA support.",
            "use `--linear-attn-verify-backend triton`" if which[0] == "verify_backend" else "use `--linear-attn-decode-backend triton`",
            values=tuple(which),
        )


@rule(
    "KDA006", Severity.ERROR,
    consequence=Consequence.CRASHES_AT_VERIFY,
    name="verify-server-has-scratch",
    needs="model", families=(Family.KDA,), speculative=True,
    summary="a target-verify server has the speculative scratch (or the ReplaySSM ring)",
    what="""
        KDA target verify needs `intermediate_ssm` (or the ReplaySSM-spec ring). SGLang skips
        the scratch only on a PD-disaggregation prefill server, which never runs target
        verify.
    """,
    why="Verify without scratch raises a RuntimeError at the first verify batch.",
    sglang_message="KDA target_verify requires a speculative mamba cache (MambaPool.SpeculativeState); none found.",
    fix="Do not run speculative verify on a server launched as `--disaggregation-mode prefill`.",
    example="kdacheck run (no launch configuration reaches it)",
    sources=(
        f"0.5.19 {_KDA_BACKEND}:863; 0.5.23 line 1250 (target_verify)",
        "0.5.23 `srt/mem_cache/kv_cache_configurator.py:1731-1734` (`_pd_prefill_skips_mamba_spec_state`)",
    ),
    inferred="No launch configuration reaches it: the only scratch-less server (PD prefill) never verifies. The rule reports nothing for launch files and documents the message.",
)
def kda006(cfg: Resolved) -> Iterator[Hit]:
    return iter(())


@rule(
    "KDA007", Severity.ERROR,
    consequence=Consequence.REFUSES_MODEL,
    name="heads-divisible-by-tp",
    needs="model",
    summary="every width SGLang shards per rank is whole: heads, KV heads, KDA/GDN/Mamba heads, experts (Kimi-Linear: tp ∈ {1, 2, 4, 8, 16, 32})",
    what="""
        Each rank builds every layer with its share of the model (`kdacheck/geometry.py`): the
        attention heads at attention TP (MLA's too), the KV heads (split when there are at
        least as many as ranks, else replicated: the TP size must then be a multiple of them),
        Kimi-Linear's KDA heads at TP, GDN's value heads and Mamba2's heads at attention TP
        (Mamba2's groups divided, or one group), the routed experts at EP and their
        intermediate at TP / EP. Which assert each architecture's class makes is read from
        SGLang's wheel per version (`benchmarks/sglang_diff/geometry_asserts.py`); an
        architecture whose class asserts nothing kdacheck recognises gets no head check.
    """,
    why="SGLang raises an AssertionError or a ValueError when the model is built.",
    sglang_message=f"{messages.KDA_HEADS.format(n='{num_heads}', d='{tp_size}')}\n{messages.KIMI_HEADS}\n"
                   f"{messages.MAMBA_HEADS}\n{messages.MAMBA_GROUPS}\n{messages.DIVIDE}\n"
                   "AssertionError (assert self.total_num_heads % self.attn_tp_size == 0, and the KV-head and MoE asserts)",
    fix="Use a tensor-parallel size that divides the head count.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 3",
    sources=(
        "0.5.19 `srt/models/kimi_linear.py:57-59` `_get_kda_local_num_heads`; 0.5.23 lines 60-65",
        "0.5.23 `srt/models/kimi_linear.py:693-696` (`num_attention_heads must be divisible by world_size`)",
        "0.5.23 `srt/models/qwen3_next.py:624-634`, `llama.py:183-193`, `nemotron_h.py:696-706`, `deepseek_v2.py:2057` (MLA): "
        "every version's lines in `kdacheck/data/geometry_asserts-<version>.json`",
        "0.5.23 `srt/layers/attention/mamba/mamba.py:245-252` (MambaMixer2), `srt/layers/linear.py:483` (divide), "
        "`srt/layers/moe/fused_moe_triton/layer.py:414, 427` (FusedMoE)",
    ),
    changes=("0.5.23 adds Kimi-Linear's `num_attention_heads must be divisible by world_size` (0.5.19-0.5.22: the KDA heads only)",),
)
def kda007(cfg: Resolved) -> Iterator[Hit]:
    if cfg.model is None:
        return
    tp, atp, ep = layout(cfg)
    found = geometry.refusals(cfg.model, cfg.version, tp, atp, ep)
    if not found:
        return
    first = found[0]
    near = _nearest_tp(cfg, tp)
    fix = f"use `--tp-size {near}`" if near else "use a TP size that divides the model's heads"
    if first.message == messages.KDA_HEADS.format(n=first.numbers[0], d=first.numbers[1]):
        yield Hit(first.message, fix, values=("tp_size",))
        return
    also = "; also " + "; ".join(r.what for r in found[1:]) if len(found) > 1 else ""
    yield Hit(f"{first.what}: SGLang refuses ({first.message}, {first.place}){also}", fix, values=("tp_size",))


def _nearest_tp(cfg: Resolved, tp: int) -> int | None:
    """The TP size nearest ``tp`` (the smaller on a tie) at which the model builds."""
    assert cfg.model is not None
    _, atp, ep = layout(cfg)
    adp = max(1, tp // max(1, atp))
    ok = [t for t in range(1, min(4 * tp, 256) + 1)
          if t % adp == 0 and t % ep == 0 and not geometry.refusals(cfg.model, cfg.version, t, t // adp, ep)]
    return min(ok, key=lambda d: (abs(d - tp), d)) if ok else None


@rule(
    "KDA008", Severity.WARNING,
    consequence=Consequence.RUNS_OTHER,
    name="dp-attention-head-sharding",
    needs="model", families=(Family.KDA,),
    summary="DP attention: the KDA state pool shards heads by attn_tp_size, the layer by tp_size",
    what="""
        Under DP attention (attn_tp_size < tp_size) the Kimi-Linear state pool is shaped with
        num_heads / attn_tp_size heads per rank, but `KimiDeltaAttention` is built without
        `shard_on_attn_tp=True` and shards its heads by tp_size.
    """,
    why="The layer and its state disagree on the heads per rank: a shape error at the first forward or wrong state indexing.",
    fix="Run Kimi-Linear without DP attention (`--tp-size` only), or verify the deployment with `kdacheck run`.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 8 --dp 2 --enable-dp-attention",
    sources=(
        "0.5.23 `srt/configs/kimi_linear.py:173-181` `mamba2_cache_params` (attn_tp_size)",
        "0.5.23 `srt/models/kimi_linear.py:204, 229-233, 559-566` (KimiDeltaAttention without shard_on_attn_tp)",
    ),
    inferred="The mismatch is read in the source; its consequence (shape error or wrong indexing) is inferred.",
)
def kda008(cfg: Resolved) -> Iterator[Hit]:
    if not _kda(cfg) or cfg.model is None:
        return
    tp, atp = int(cfg.v("tp_size") or 1), int(cfg.v("attn_tp_size") or 1)
    if cfg.v("dp_attention") and atp < tp:
        h = cfg.model.linear_v_heads
        yield Hit(
            f"DP attention: state pool holds {h}/{atp} = {h // atp} heads per rank, the KDA layer {h}/{tp} = {h // tp}",
            "drop `--enable-dp-attention` for Kimi-Linear",
            values=("attn_tp_size", "tp_size", "dp_attention"),
        )


@rule(
    "KDA009", Severity.INFO,
    consequence=Consequence.RUNS_OTHER,
    name="linear-attention-kernels",
    needs="model", families=LINEAR_VERIFY, speculative=True,
    summary="which linear-attention decode/verify kernels run, and whether verify checks bounds",
    what="""
        The resolved decode and verify backends. FlashInfer verify checks the scratch width
        (KDA001) and the row map (KDA002); the Triton kernel (also used for `nv_cutedsl`,
        Kimi-Linear's default verify under speculation) checks neither.
    """,
    why="Which checks protect the scratch depends on the backend that actually runs.",
    fix="Nothing to fix; use `--linear-attn-verify-backend flashinfer` (SM100+) for bounds-checked verify.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --speculative-algorithm EAGLE",
    sources=(
        "0.5.23 `srt/arg_groups/kimi_k3_hook.py:18-78` (verify nv_cutedsl, decode triton on SM100 + bf16)",
        f"0.5.23 {_KDA_BACKEND}:102-194 `KDAKernelDispatcher` (nv_cutedsl → Triton kernel)",
        "0.5.23 `srt/layers/attention/linear/utils.py:81-107` `resolve_linear_attn_backends`",
    ),
)
def kda009(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("spec_on") or cfg.model is None or not cfg.model.hybrid or cfg.model.family not in LINEAR_VERIFY:
        return
    dec, ver = cfg.v("decode_backend"), cfg.v("verify_backend")
    if ver == "flashinfer":
        path = "FlashInfer verify: checks the scratch width (KDA001)" + (" and the row map (KDA002)" if not cfg.v("fused_accept") else "; fused accept skips the row-map check")
    elif ver == "nv_cutedsl":
        path = "nv_cutedsl runs the Triton verify kernel: no bounds checks"
    else:
        path = f"{ver} verify kernel: no bounds checks"
    yield Hit(f"linear-attention decode = {dec}, verify = {ver} ({path})", None, values=("decode_backend", "verify_backend", "fused_accept"))


@rule(
    "KDA010", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="flashkda-is-prefill-only",
    summary="--linear-attn-decode-backend flashkda is refused: FlashKDA is prefill-only",
    what="""
        FlashKDA has prefill kernels only. Inherited from `--linear-attn-backend flashkda`,
        decode quietly falls back to triton; asked for explicitly as the decode backend, SGLang
        refuses it, for every model.
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message=(
        "--linear-attn-decode-backend flashkda is not supported: FlashKDA is prefill-only. "
        "Use --linear-attn-prefill-backend flashkda (decode stays on triton)."
    ),
    fix="Use `--linear-attn-prefill-backend flashkda` and leave decode on triton.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --linear-attn-decode-backend flashkda",
    sources=("0.5.23 `srt/arg_groups/attention_hook.py` L317-323 `handle_linear_attn_backend`", "0.5.21: the same check"),
)
def kda010(cfg: Resolved) -> Iterator[Hit]:
    if Event.FLASHKDA_DECODE in cfg.events:
        yield Hit(
            "--linear-attn-decode-backend flashkda is not supported: FlashKDA is prefill-only. "
            "Use --linear-attn-prefill-backend flashkda (decode stays on triton).",
            "write `--linear-attn-prefill-backend flashkda` instead",
            values=("linear_attn_decode_backend",),
        )
