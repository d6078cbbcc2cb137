"""RADIX and RSSM: prefix caching and ReplaySSM for hybrid (Mamba / linear-attention) models."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import architectures, messages, versions
from kdacheck.findings import Severity
from kdacheck.models import Family
from kdacheck.resolve import Event, Resolved
from kdacheck.rules.base import HYBRID, Consequence, Hit, first_refusal, rule, unchecked


def _radix(cfg: Resolved) -> bool:
    return cfg.model is not None and cfg.model.keeps_state and not cfg.v("disable_radix_cache")


def _validated_page(cfg: Resolved) -> object:
    """The page size SGLang's mamba radix-cache validators see. They run at model_hook.py L737,
    after the model overrides wrote the page size (Qwen3-Next/3.5 on SM100: 1 or 64, whatever
    --page-size says); the earlier call at L225 runs only for the architectures registered with
    a LinearAttnModelSpec (configs/linear_attn_model_registry.py: GigaChat)."""
    return cfg.v("page_after_overrides") if "page_after_overrides" in cfg else cfg.parsed.value("page_size")


EXTRA_BUFFER_LAZY_PD = "extra_buffer_lazy unsupported under PD disaggregation; use --mamba-radix-cache-strategy extra_buffer."


@rule(
    "RADIX001", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="extra-buffer-track-interval",
    needs="state", families=HYBRID,
    summary="extra_buffer prefix cache: --mamba-track-interval ≥ D and a multiple of the page size",
    what="""
        With the `extra_buffer` hybrid prefix-cache strategy (given, or chosen by `auto` when
        the overlap schedule is on or the page size > 1 and the linear-attention backend is
        triton), SGLang snapshots the state every `--mamba-track-interval` tokens (default
        256). The interval must be at least the draft tokens given on the command line and a
        multiple of the page size; `extra_buffer` needs `--linear-attn-backend triton`;
        `extra_buffer_lazy` is refused under PD disaggregation; and the page size and the
        model's chunk size (its config's `mamba_chunk_size`, as SGLang's config class sets it:
        Nemotron-H 128 or 256, Falcon-H1 and Granite 256, FLA's 64 for GDN and KDA) must divide
        one another.
    """,
    why="SGLang refuses to start with a bare AssertionError (or 'extra_buffer is not supported for ...; use no_buffer.').",
    sglang_message="""
        AssertionError  (no message: `assert view.mamba_track_interval >= view.speculative_num_draft_tokens` / `assert view.mamba_track_interval % view.page_size == 0`)
        extra_buffer is not supported for {architecture}; use no_buffer.
        extra_buffer_lazy unsupported under PD disaggregation; use --mamba-radix-cache-strategy extra_buffer.
        For SSM models, either chunk_size or page_size must be divisible by the other, got chunk_size={chunk_size}, page_size={page_size}
    """,
    fix="Raise `--mamba-track-interval` to a multiple of the page size ≥ the draft tokens (e.g. drop it: 256), or use `--mamba-radix-cache-strategy no_buffer`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --mamba-radix-cache-strategy extra_buffer --mamba-track-interval 2",
    sources=(
        "0.5.19 `srt/arg_groups/mamba_hook.py:98-122` `validate_mamba_extra_buffer`; 0.5.23 lines 115-135 (extra_buffer_lazy and PD: "
        "0.5.20 L113, 0.5.23 L125-128)",
        "0.5.19 `srt/arg_groups/overrides.py:545-588` `supports_mamba_cache_extra_buffer`, `_mamba_radix_cache_resolution`; 0.5.23 lines 437-490",
        "0.5.23 `srt/arg_groups/model_hook.py` L737 `handle_mamba_radix_cache`: validated after the model overrides (their page size)",
        "0.5.23 `srt/arg_groups/mamba_hook.py:136-140` with `srt/arg_groups/overrides.py:1897-1922` `mamba_cache_chunk_size` "
        "(the chunk/page divisibility assert; 0.5.19-0.5.22 the same)",
    ),
    inferred="""
        Read in the source: the check runs in the model-specific hook, before the speculative
        hook, so it compares with the draft tokens as given (`--speculative-num-draft-tokens`),
        not the resolved D: an unset value skips it.
    """,
)
def radix001(cfg: Resolved) -> Iterator[Hit]:
    if not _radix(cfg) or cfg.v("mamba_radix_cache_strategy") not in ("extra_buffer", "extra_buffer_lazy"):
        return
    assert cfg.model is not None
    # validate_mamba_extra_buffer checks a strategy given or declared by a model override (Nemotron-H's
    # extra_buffer on SM100, model_overrides/nemotron_h.py L132-133) alike; auto picks it only where it is supported
    declared = cfg.given("mamba_radix_cache_strategy") or cfg["mamba_radix_cache_strategy"].origin == "model"
    if declared and not architectures.lookup(cfg.model.architecture).extra_buffer:
        # 0.5.23 mamba_hook.py L117-119: supports_mamba_cache_extra_buffer (overrides.py L403's list)
        yield Hit(
            f"extra_buffer is not supported for {cfg.model.architecture}; use no_buffer.",
            "use `--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule`",
            values=("mamba_radix_cache_strategy",),
        )
        return
    if declared and cfg.v("linear_attn_backend") != "triton":
        yield Hit(
            f"extra_buffer is not supported for {cfg.model.architecture}; use no_buffer. (linear-attention backend {cfg.v('linear_attn_backend')}, extra_buffer needs triton)",
            "use `--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule`",
            values=("mamba_radix_cache_strategy", "linear_attn_backend"),
        )
        return
    mode = cfg.v("disaggregation_mode")
    if cfg.v("mamba_radix_cache_strategy") == "extra_buffer_lazy" and mode not in (None, "null"):
        # 0.5.23 mamba_hook.py validate_mamba_extra_buffer L125 (0.5.21 L115), during resolution
        yield Hit(f"{EXTRA_BUFFER_LAZY_PD} (--disaggregation-mode {mode})", "use `--mamba-radix-cache-strategy extra_buffer`",
                  values=("mamba_radix_cache_strategy", "disaggregation_mode"))
        return
    interval = cfg.v("mamba_track_interval")
    D = cfg.parsed.value("speculative_num_draft_tokens")
    page = cfg.parsed.value("page_size")
    if not isinstance(interval, int):
        return
    need = max(D if isinstance(D, int) else 1, 1)
    step = page if isinstance(page, int) and page > 0 else 1
    good = -(-need // step) * step
    if isinstance(D, int) and interval < D:
        yield Hit(
            f"--mamba-track-interval {interval} < --speculative-num-draft-tokens {D} under the {cfg.v('mamba_radix_cache_strategy')} prefix cache: SGLang stops with a bare AssertionError",
            f"set `--mamba-track-interval {good}`",
            values=("mamba_track_interval", "draft_tokens", "mamba_radix_cache_strategy"),
        )
        return
    size = _validated_page(cfg)
    said = "the page size" if size == page else "the page size the model override sets"
    if isinstance(size, int) and size > 1 and interval % size:
        yield Hit(
            f"--mamba-track-interval {interval} is not a multiple of {said} ({size}) under the {cfg.v('mamba_radix_cache_strategy')} prefix cache: SGLang stops with a bare AssertionError",
            f"set `--mamba-track-interval {-(-interval // size) * size}`",
            values=("mamba_track_interval", "page_size", "mamba_radix_cache_strategy"),
        )
        return
    chunk = cfg.model.mamba_chunk_size if cfg.model is not None else None
    if isinstance(size, int) and size > 0 and chunk and max(chunk, size) % min(chunk, size):
        yield Hit(
            messages.MAMBA_CHUNK_PAGE.format(chunk=chunk, page=size)
            + f" (the model's mamba_chunk_size; {said})",
            "use a page size that divides the chunk size or is a multiple of it (a power of two)",
            values=("page_size", "mamba_radix_cache_strategy"),
        )


@rule(
    "RADIX002", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="no-buffer-constraints",
    needs="state", families=HYBRID,
    summary="no_buffer prefix cache: page size 1, overlap schedule off, attention backend not trtllm_mha",
    what="""
        The `no_buffer` hybrid prefix-cache strategy (given, or chosen by `auto` when extra_buffer
        is not possible; auto then turns the overlap schedule off itself) supports page size 1
        only, no overlap schedule and not the trtllm_mha attention backend.
    """,
    why="SGLang refuses to start with an AssertionError.",
    sglang_message="""
        no_buffer only supports page_size=1.
        no_buffer do not support overlap schedule. Try to set disable_overlap_schedule=True.
        no_buffer do not support trtllm_mha attention backend.
    """,
    fix="Add `--disable-overlap-schedule`, use `--page-size 1` and another attention backend, or the extra_buffer strategy with the triton linear-attention backend.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --mamba-radix-cache-strategy no_buffer",
    sources=(
        "0.5.19 `srt/arg_groups/mamba_hook.py:143` `validate_mamba_no_buffer`; 0.5.23 lines 156-165",
        "0.5.23 `srt/arg_groups/overrides.py:477-490` `_mamba_radix_cache_resolution` (auto)",
        "0.5.23 `srt/arg_groups/pipeline.py:225` (model adjustments, where the check runs) before L242 "
        "(`_attention_backend_default`, attention_hook.py:120): a default trtllm_mha is not checked",
    ),
)
def radix002(cfg: Resolved) -> Iterator[Hit]:
    if not _radix(cfg) or cfg.v("mamba_radix_cache_strategy") != "no_buffer":
        return
    page = _validated_page(cfg)
    if isinstance(page, int) and page > 1:
        yield Hit(f"no_buffer only supports page_size=1 (page size {page})", "use `--page-size 1`, or `--linear-attn-backend triton` so auto picks extra_buffer", values=("page_size", "mamba_radix_cache_strategy"))
    if not cfg.v("disable_overlap_schedule"):
        yield Hit("no_buffer do not support overlap schedule. Try to set disable_overlap_schedule=True.", "add `--disable-overlap-schedule`", values=("mamba_radix_cache_strategy", "disable_overlap_schedule"))
    # SGLang checks the backend given or set by a model override only: its default fill and page
    # constraints come after validate_mamba_no_buffer (0.5.23 pipeline.py L225 before L242)
    backend = cfg.vals.get("attention_backend")
    if backend is not None and backend.value == "trtllm_mha" and backend.origin in ("user", "model"):
        yield Hit("no_buffer do not support trtllm_mha attention backend.", "use another `--attention-backend`", values=("attention_backend", "mamba_radix_cache_strategy"))


@rule(
    "RSSM001", Severity.ERROR,
    consequence=Consequence.SILENTLY_OTHER,
    name="replayssm-spec-ring-and-chain",
    needs="model", families=HYBRID, speculative=True,
    summary="--enable-linear-replayssm-spec: a KDA ring a power of two ≥ 2·D_max; a draft that stays a chain after resolution (NGRAM's breadth on GDN)",
    what="""
        ReplaySSM-spec replaces the scratch with a ring of `--linear-replayssm-cache-len` steps
        (default 16). For KDA the ring must be a power of two and at least 2·D_max, checked
        when the KDA state pool is allocated. It needs a linear draft chain: SGLang checks the
        given `--speculative-eagle-topk` (RSSM002) before the speculative hook resolves topk, so
        a topk resolved later (NGRAM: its BFS breadth, default 10) passes the check and, on a
        GDN model, is verified as a chain by a kernel that takes no tree.
    """,
    why="ValueError when the KDA state pool is allocated (ring), or a draft tree verified as a chain (silently wrong).",
    sglang_message="""
        spec-verify ring length must be a power of two, got {L}
        spec-verify ring too small: {ring} < 2 * {speculative_num_draft_tokens} (early-flush margin)
    """,
    fix="Set `--linear-replayssm-cache-len` to a power of two ≥ 2·D_max; with NGRAM, `--speculative-ngram-max-bfs-breadth 1`.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --speculative-algorithm DSPARK --speculative-draft-model-path DRAFT --speculative-dspark-block-size 8 --speculative-num-draft-tokens 9 --enable-linear-replayssm-spec",
    sources=(
        "0.5.19 `srt/mem_cache/memory_pool.py:686-697` MambaPool (ring checks, KDA); 0.5.23 lines 822-833",
        "0.5.23 `srt/arg_groups/pipeline.py:253` (handle_linear_attn_backend) before `:305` (handle_speculative_decoding); "
        "`speculative_hook.py:1309-1313` `_handle_ngram` (topk := BFS breadth)",
        "0.5.23 `srt/layers/attention/linear/gdn_backend.py:1122-1135` (`_replayssm_target_verify`, no `retrieve_parent_token`; "
        "the KDA fold path at 1108 takes it)",
    ),
    changes=("0.5.19 also spells the flag `--enable-gdn-replayssm-spec` (alias).",),
)
def rssm001(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("enable_linear_replayssm_spec"):
        return
    K = cfg.parsed.value("speculative_eagle_topk")
    if K in (None, 1) and isinstance(cfg.v("topk"), int) and cfg.v("topk") > 1 and cfg.model is not None \
            and cfg.model.family is Family.GDN:
        # SGLang checks the given topk (handle_linear_attn_backend, pipeline.py L253) before the
        # speculative hook resolves it (L305: NGRAM's topk is its BFS breadth): the launch starts,
        # and GDN's ReplaySSM verify takes no tree (gdn_backend.py _replayssm_target_verify has no
        # retrieve_parent_token), so a tree draft is verified as a chain
        yield Hit(
            f"--enable-linear-replayssm-spec needs a linear draft chain, but {cfg.v('speculative_algorithm')} resolves topk "
            f"{cfg.v('topk')} after SGLang's check ran: GDN's ReplaySSM verify takes no tree input and verifies the draft tree as a chain",
            "add `--speculative-ngram-max-bfs-breadth 1` (a chain), or drop `--enable-linear-replayssm-spec`",
            values=("enable_linear_replayssm_spec", "topk"),
        )
    if cfg.model is None or cfg.model.family is not Family.KDA or not cfg.v("spec_on"):
        return
    ring = cfg.v("linear_replayssm_cache_len")
    dmax = cfg.v("d_max") or cfg.v("draft_tokens")
    if not isinstance(ring, int) or not isinstance(dmax, int):
        return
    good = 1
    while good < max(2, 2 * dmax):
        good *= 2
    if ring < 1 or ring & (ring - 1):
        yield Hit(f"spec-verify ring length must be a power of two, got {ring}", f"set `--linear-replayssm-cache-len {max(good, 16)}`", values=("linear_replayssm_cache_len",))
    elif ring < 2 * dmax:
        yield Hit(f"spec-verify ring too small: {ring} < 2 * {dmax} (early-flush margin)", f"set `--linear-replayssm-cache-len {good}`", values=("linear_replayssm_cache_len", "d_max"))


@rule(
    "RSSM002", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="replayssm-spec-flags",
    summary="--enable-linear-replayssm-spec: topk as given ≤ 1, a triton/flashinfer decode backend, no PD prefill, not with --enable-linear-replayssm",
    what="""
        SGLang checks the ReplaySSM-spec flags while it resolves the linear-attention backends:
        a `--speculative-eagle-topk` given above 1 (a draft tree: its chunked verify kernel masks
        a chain), a decode backend other than triton or flashinfer, a PD prefill server (which
        never runs speculative verify) and `--enable-linear-replayssm` beside it are refused,
        for every model (`handle_linear_attn_backend` does not look at the architecture).
    """,
    why="SGLang refuses to start with a ValueError at start-up, before it loads a single weight.",
    sglang_message="""
        --enable-linear-replayssm-spec requires a linear draft chain (--speculative-eagle-topk in {None, 1}); the chunked verify kernel uses a strictly-lower causal mask and is invalid for EAGLE tree verify. Got --speculative-eagle-topk={K!r}.
        --enable-linear-replayssm-spec requires the triton or flashinfer linear-attn decode backend, got --linear-attn-decode-backend={decode!r}.
        --enable-linear-replayssm-spec is not supported on a PD prefill server: the ring is spec-verify-only scratch and the prefill server never runs spec verify.
        --enable-linear-replayssm-spec and --enable-linear-replayssm are mutually exclusive: ...
    """,
    fix="Use topk 1 (or leave it unset) and a triton/flashinfer decode backend; drop the flag on a PD prefill server.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8 --enable-linear-replayssm-spec",
    sources=("0.5.19 `srt/arg_groups/attention_hook.py:383/386/428/435` `handle_linear_attn_backend`; 0.5.23 lines 450/453/495/502",),
    changes=("0.5.19 also spells the flag `--enable-gdn-replayssm-spec` (alias).",),
)
def rssm002(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("enable_linear_replayssm_spec"):
        return
    K = cfg.parsed.value("speculative_eagle_topk")
    if K not in (None, 1):
        yield Hit(
            f"--enable-linear-replayssm-spec requires a linear draft chain (--speculative-eagle-topk in {{None, 1}}); got --speculative-eagle-topk={K!r}",
            "use `--speculative-eagle-topk 1`", values=("enable_linear_replayssm_spec", "topk"),
        )
    dec = cfg.v("decode_backend")
    if dec not in ("triton", "flashinfer"):
        yield Hit(
            f"--enable-linear-replayssm-spec requires the triton or flashinfer linear-attn decode backend, got --linear-attn-decode-backend={dec!r}.",
            "use `--linear-attn-decode-backend triton`", values=("enable_linear_replayssm_spec", "decode_backend"),
        )
    if cfg.v("pd_prefill"):
        yield Hit("--enable-linear-replayssm-spec is not supported on a PD prefill server", "drop `--enable-linear-replayssm-spec` on the prefill server", values=("enable_linear_replayssm_spec", "pd_prefill"))
    if cfg.v("enable_linear_replayssm"):
        yield Hit("--enable-linear-replayssm-spec and --enable-linear-replayssm are mutually exclusive", "drop one of them", values=("enable_linear_replayssm_spec", "enable_linear_replayssm"))


@rule(
    "RSSM003", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="replayssm-decode-prerequisites",
    summary="--enable-linear-replayssm: a triton/helion decode backend, the no_buffer prefix cache, no PD, a ring of ≥ 1 step",
    what="""
        `--enable-linear-replayssm` (ReplaySSM buffered decode, without speculation) needs the
        triton decode backend (or helion), the `no_buffer` hybrid prefix-cache strategy (with
        the radix cache on, `extra_buffer` is refused, and `auto` picks it with the overlap
        schedule on, its default, or a page size above 1), no PD disaggregation (prefill or
        decode) and `--linear-replayssm-cache-len` ≥ 1. SGLang checks these whatever the model.
    """,
    why="SGLang refuses to start with a ValueError at start-up, before it loads a single weight.",
    sglang_message="\n".join((messages.REPLAYSSM_DECODE, messages.REPLAYSSM_NO_BUFFER, messages.REPLAYSSM_PD,
                               messages.REPLAYSSM_CACHE_LEN)),
    fix="Use the triton decode backend, `--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule` "
        "(or `--disable-radix-cache`), no `--disaggregation-mode`, a cache length ≥ 1; or drop `--enable-linear-replayssm`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --enable-linear-replayssm",
    sources=(
        "0.5.23 `srt/arg_groups/attention_hook.py:409-439` `handle_linear_attn_backend` (0.5.19 L342-371, the same checks)",
        "0.5.23 `srt/arg_groups/model_override_base.py:260-265` `mamba_extra_buffer_of` (the radix cache on, an extra_buffer strategy)",
        "0.5.23 `srt/arg_groups/pipeline.py:225` (the strategy resolved in the model adjustments) before `:253` (this check)",
    ),
)
def rssm003(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("enable_linear_replayssm"):
        return
    dec = cfg.v("decode_backend")
    if dec not in ("triton", "helion"):
        yield Hit(messages.REPLAYSSM_DECODE.format(decode=dec), "use `--linear-attn-decode-backend triton`",
                  values=("enable_linear_replayssm", "decode_backend"))
    strategy = cfg.v("mamba_radix_cache_strategy")
    if strategy in ("extra_buffer", "extra_buffer_lazy") and not cfg.v("disable_radix_cache"):
        how = "" if cfg.given("mamba_radix_cache_strategy") else " (auto: the overlap schedule or a page size above 1)" \
            if cfg["mamba_radix_cache_strategy"].origin != "model" else " (set by the model override)"
        yield Hit(messages.REPLAYSSM_NO_BUFFER.format(strategy=strategy) + how,
                  "add `--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule`, or `--disable-radix-cache`",
                  values=("enable_linear_replayssm", "mamba_radix_cache_strategy"))
    elif strategy in (None, "auto") and cfg.model is None and cfg.family is not None and cfg.family.hybrid \
            and not cfg.v("disable_radix_cache"):
        yield unchecked("needs the model: `auto` may resolve to extra_buffer, which --enable-linear-replayssm refuses")
    mode = cfg.v("disaggregation_mode")
    if mode not in (None, "null"):
        yield Hit(messages.REPLAYSSM_PD.format(mode=mode), "drop `--enable-linear-replayssm` on PD servers",
                  values=("enable_linear_replayssm", "disaggregation_mode"))
    n = cfg.v("linear_replayssm_cache_len")
    if isinstance(n, int) and n < 1:
        yield Hit(messages.REPLAYSSM_CACHE_LEN.format(n=n), "set `--linear-replayssm-cache-len 16` (its default)",
                  values=("linear_replayssm_cache_len",))


@rule(
    "RADIX003", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="extra-buffer-needs-mamba-state",
    summary="an extra_buffer prefix-cache strategy needs a model with mamba state",
    what="""
        `--mamba-radix-cache-strategy extra_buffer` (or `extra_buffer_lazy`) arms the hybrid
        cache's tracking buffers. `auto` is gated by the architecture; an explicit strategy on
        a dense or DSA model would crash at prefill, so SGLang refuses it at start.
    """,
    why="SGLang refuses to start with a ValueError (0.5.21+; 0.5.19–0.5.20 ignore the flag).",
    sglang_message="--mamba-radix-cache-strategy {strategy} needs mamba state, got {arch}.",
    fix="Drop `--mamba-radix-cache-strategy` for this model.",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --mamba-radix-cache-strategy extra_buffer",
    sources=("0.5.23 `srt/arg_groups/model_hook.py` L1062-1066 `handle_mamba_radix_cache`",),
    since=versions.EXTRA_BUFFER_NEEDS_MAMBA,
)
def radix003(cfg: Resolved) -> Iterator[Hit]:
    if Event.EXTRA_BUFFER_WITHOUT_MAMBA in cfg.events:
        arch = cfg.model.architecture if cfg.model else f"{cfg.user('model_path')} ({cfg.family.label if cfg.family else '?'}, by its name)"
        yield Hit(
            f"--mamba-radix-cache-strategy {cfg.v('mamba_radix_cache_strategy')} needs mamba state, got {arch}.",
            "drop `--mamba-radix-cache-strategy` for this model",
            values=("mamba_radix_cache_strategy",),
        )


@rule(
    "RADIX004", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="lmcache-hicache-compatibility",
    summary="the decode host pool, decode KV offload, SWA ratios, LMCache and HiCache only where SGLang's cache check accepts them",
    what="""
        SGLang's `handle_cache_compatibility` checks the prefix-cache extensions together, in this
        order, and stops at the first refusal (so does this rule): the decode retraction backup
        `host_pool` only on a PD decode server, without `--dcp-size` > 1 and, under priority
        scheduling, with `--disable-priority-preemption`; HiCache with `--disable-radix-cache`;
        `--disaggregation-decode-enable-offload-kvcache` only on a decode server, with a
        `--hicache-storage-backend` and without the host-pool backup; `--swa-full-tokens-ratio`
        in (0, 1] (Step-3.5 under HiCache resets it to 1.0 first) and, from 0.5.21, a
        non-negative `--swa-prefix-tails`; then, from 0.5.21, LMCache with HiCache, with the
        unified-cache external linker, without the radix cache, with speculative decoding,
        attention DP, `--dcp-size` > 1, streaming sessions, `--hicache-host-memory-mode
        buffer_only` or PD disaggregation. (0.5.19 and 0.5.20 accept LMCache with all of these
        and build the LMCache tree: `mem_cache/registry.py` L119.)
    """,
    why="SGLang refuses to start with a ValueError or NotImplementedError while it resolves the arguments.",
    sglang_message="\n".join((messages.RETRACTION_HOST_POOL_NOT_DECODE, messages.RETRACTION_HOST_POOL_DCP,
                              messages.RETRACTION_HOST_POOL_PRIORITY, messages.HICACHE_NO_RADIX_MESSAGE,
                              messages.OFFLOAD_KVCACHE_NOT_DECODE, messages.OFFLOAD_KVCACHE_NO_STORAGE,
                              messages.OFFLOAD_KVCACHE_HOST_POOL, messages.SWA_FULL_TOKENS_RATIO_RANGE,
                              messages.SWA_PREFIX_TAILS_NEGATIVE, messages.LMCACHE_HICACHE_MESSAGE,
                              messages.LMCACHE_LINKER_MESSAGE, messages.LMCACHE_NO_RADIX_MESSAGE,
                              messages.LMCACHE_SPEC_MESSAGE, messages.LMCACHE_DP_MESSAGE,
                              messages.LMCACHE_DCP_MESSAGE, messages.LMCACHE_STREAMING_MESSAGE,
                              messages.LMCACHE_BUFFER_ONLY_MESSAGE, messages.LMCACHE_PD_MESSAGE)),
    fix="""Keep the decode host pool and KV offload on PD decode servers (one of them, offload with a
        storage backend), ratios in range, one of LMCache and HiCache, and the radix cache on; under
        speculative decoding, attention DP, DCP, streaming sessions or PD keep `--enable-hierarchical-cache`.""",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-8B --enable-lmcache --enable-hierarchical-cache   # SGLang 0.5.23",
    sources=(
        "0.5.23 `srt/arg_groups/kv_cache_hook.py` L351-474 `handle_cache_compatibility` "
        "(0.5.21, 0.5.22: the same lines; 0.5.19 L142-193, 0.5.20 L141-194: up to the SWA ratio, no LMCache checks)",
        "0.5.23 `srt/arg_groups/overrides.py` L351-355: Step3p5ForCausalLM under HiCache resets the SWA ratio to 1.0 "
        "(0.5.19 L470-474), before the range check reads the effective value",
        "0.5.20 `srt/mem_cache/registry.py` L119 `_create_default_tree_cache`: no LMCache check, LMCRadixCache",
    ),
    changes=("0.5.19–0.5.20: LMCache is accepted with everything and `--swa-prefix-tails` does not exist.",),
)
def radix004(cfg: Resolved) -> Iterator[Hit]:
    yield from first_refusal(_cache_compatibility_refusals(cfg))


def _cache_compatibility_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """handle_cache_compatibility's refusals in SGLang's order (0.5.23 kv_cache_hook.py L351-474)."""
    no_radix = bool(cfg.v("disable_radix_cache"))
    decode = cfg.v("disaggregation_mode") == "decode"
    backup = _retraction_backup(cfg)
    dcp = cfg.user("dcp_size") if isinstance(cfg.user("dcp_size"), int) else 1
    pool, why, drop = ("disaggregation_decode_retraction_backup",), "", "`--disaggregation-decode-retraction-backup host_pool`"
    if backup == "host_pool" and cfg.user("disaggregation_decode_retraction_backup") != "host_pool":
        # declared by decode host receive (pd_disaggregation_hook.py), not written
        pool, drop = ("disaggregation_decode_host_receive_threshold",), "`--disaggregation-decode-host-receive-threshold`"
        why = f" (host_pool: declared by --disaggregation-decode-host-receive-threshold {cfg.user('disaggregation_decode_host_receive_threshold')})"
    if backup == "host_pool":
        if not decode:
            yield messages.RETRACTION_HOST_POOL_NOT_DECODE + why, f"drop {drop} (decode servers only)", pool
        if dcp > 1:
            yield (messages.RETRACTION_HOST_POOL_DCP + f" (--dcp-size {dcp})" + why,
                   f"drop {drop}" if why else "use `--disaggregation-decode-retraction-backup cpu_tensor`", (*pool, "dcp_size"))
        if cfg.user("enable_priority_scheduling") and not cfg.user("disable_priority_preemption"):
            yield messages.RETRACTION_HOST_POOL_PRIORITY + why, "add `--disable-priority-preemption`", (*pool, "enable_priority_scheduling")
    # (the T-LRU eviction parameters come here: out of kdacheck's scope)
    if cfg.user("enable_hierarchical_cache") and no_radix:
        yield (messages.HICACHE_NO_RADIX_MESSAGE, "drop `--disable-radix-cache` (HiCache extends the radix cache) "
               "or `--enable-hierarchical-cache`", ("enable_hierarchical_cache", "disable_radix_cache"))
    yield from _offload_refusals(cfg, decode, backup)
    yield from _swa_refusals(cfg)
    if cfg.user("enable_lmcache") and cfg.at_least(versions.LMCACHE_CHECKS):
        for message, fix, values in _lmcache_refusals(cfg, no_radix):
            yield message, fix, ("enable_lmcache", *values)


def _offload_refusals(cfg: Resolved, decode: bool, backup: object) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """--disaggregation-decode-enable-offload-kvcache (0.5.23 kv_cache_hook.py L399-413)."""
    if not cfg.user("disaggregation_decode_enable_offload_kvcache"):
        return
    off = ("disaggregation_decode_enable_offload_kvcache",)
    if not decode:
        yield messages.OFFLOAD_KVCACHE_NOT_DECODE, "drop `--disaggregation-decode-enable-offload-kvcache` (decode servers only)", off
    if cfg.user("hicache_storage_backend") is None:
        yield messages.OFFLOAD_KVCACHE_NO_STORAGE, "add `--hicache-storage-backend` (file, mooncake, ...)", off
    if backup == "host_pool":
        yield (messages.OFFLOAD_KVCACHE_HOST_POOL, "drop one of `--disaggregation-decode-enable-offload-kvcache` and "
               "`--disaggregation-decode-retraction-backup host_pool`", (*off, "disaggregation_decode_retraction_backup"))


def _swa_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """The SWA ratio and prefix tails (0.5.23 kv_cache_hook.py L427-431). The ratio checked is the effective one:
    Step3p5ForCausalLM under HiCache resets it to 1.0 first (overrides.py L351-355), so with HiCache on a model
    kdacheck's architecture registry does not know (Step-3.5 among them), it cannot tell and stays silent."""
    ratio = cfg.user("swa_full_tokens_ratio")
    hicache = bool(cfg.user("enable_hierarchical_cache"))
    # Step-3.5 is no architecture kdacheck registers: under HiCache, silent for every model the registry does not know
    unregistered = cfg.model is None or architectures.lookup(cfg.model.architecture).mirrors == architectures.lookup(None).mirrors
    reset = hicache and unregistered
    if isinstance(ratio, (int, float)) and not 0 < ratio <= 1.0 and not reset:
        yield (messages.SWA_FULL_TOKENS_RATIO_RANGE + f" (got {ratio})", "set `--swa-full-tokens-ratio` in (0, 1], or drop it",
               ("swa_full_tokens_ratio",))
    tails = cfg.user("swa_prefix_tails")
    if isinstance(tails, int) and tails < 0 and cfg.at_least(versions.SWA_PREFIX_TAILS):
        yield messages.SWA_PREFIX_TAILS_NEGATIVE + f" (got {tails})", "set `--swa-prefix-tails` to 0 or more, or drop it", ("swa_prefix_tails",)


def _lmcache_refusals(cfg: Resolved, no_radix: bool) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """SGLang's LMCache checks in its order (kv_cache_hook.py L432-474): message, fix, values."""
    algo = cfg.v("speculative_algorithm")
    spec = algo not in (None, "NONE")
    attn_dp = int(cfg.v("attn_dp_size") or 1) > 1
    dcp = cfg.user("dcp_size") if isinstance(cfg.user("dcp_size"), int) else 1
    pd = cfg.v("disaggregation_mode") not in (None, "null")
    streaming = bool(cfg.user("enable_streaming_session"))
    keep_hicache = spec or attn_dp or dcp > 1 or streaming or pd
    drop = "remove `--enable-lmcache`"
    if cfg.user("enable_hierarchical_cache"):
        yield (messages.LMCACHE_HICACHE_MESSAGE,
               f"{drop} (SGLang refuses LMCache with speculative decoding, DP attention, --dcp-size > 1, streaming sessions "
               "or PD too)" if keep_hicache else f"{drop} or `--enable-hierarchical-cache`", ("enable_hierarchical_cache",))
    if cfg.user("enable_unified_cache_external_linker"):
        yield messages.LMCACHE_LINKER_MESSAGE, f"{drop} or `--enable-unified-cache-external-linker`", ()
    if no_radix:
        yield messages.LMCACHE_NO_RADIX_MESSAGE, f"{drop}, or keep the radix cache on", ("disable_radix_cache",)
    if spec:
        yield messages.LMCACHE_SPEC_MESSAGE + f" (--speculative-algorithm {algo})", f"{drop}, or use `--enable-hierarchical-cache`", ("speculative_algorithm",)
    if attn_dp:
        yield messages.LMCACHE_DP_MESSAGE, f"{drop}, or use `--enable-hierarchical-cache`", ("attn_dp_size",)
    if dcp > 1:
        yield messages.LMCACHE_DCP_MESSAGE + f" (--dcp-size {dcp})", f"{drop}, or use `--enable-hierarchical-cache`", ("dcp_size",)
    if streaming:
        yield messages.LMCACHE_STREAMING_MESSAGE, f"{drop} or `--enable-streaming-session`", ("enable_streaming_session",)
    if cfg.user("hicache_host_memory_mode") == "buffer_only":
        yield messages.LMCACHE_BUFFER_ONLY_MESSAGE, f"{drop} or `--hicache-host-memory-mode buffer_only`", ("hicache_host_memory_mode",)
    if pd:
        yield messages.LMCACHE_PD_MESSAGE, f"{drop}, or use `--enable-hierarchical-cache`", ("disaggregation_mode",)


@rule(
    "RADIX005", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="hicache-buffer-only-needs-storage",
    summary="--hicache-host-memory-mode buffer_only comes with a --hicache-storage-backend",
    what="""
        In `buffer_only` mode the host memory of the hierarchical cache is only a staging buffer
        and every cached page lives in the storage backend, so SGLang refuses the mode without
        `--hicache-storage-backend` wherever it sets up a host pool: with
        `--enable-hierarchical-cache`, `--disaggregation-decode-enable-offload-kvcache`, or on a
        PD decode server whose retraction backup is the host pool (the default).
    """,
    why="SGLang refuses to start with a ValueError while it resolves the hierarchical cache.",
    sglang_message=messages.HICACHE_BUFFER_ONLY_STORAGE_MESSAGE,
    fix="Give `--hicache-storage-backend` (file, mooncake, ...), or use `--hicache-host-memory-mode cache` (the default).",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --enable-hierarchical-cache --hicache-host-memory-mode buffer_only",
    sources=(
        "0.5.23 `srt/arg_groups/hicache_hook.py` L61-73 `handle_hicache` (when it validates) and L247-277 "
        "`validate_hicache_host_memory_mode`; 0.5.19-0.5.22: the same check",
    ),
)
def radix005(cfg: Resolved) -> Iterator[Hit]:
    if cfg.user("hicache_host_memory_mode") != "buffer_only" or cfg.user("hicache_storage_backend") is not None:
        return
    if cfg.user("enable_unified_cache_external_linker"):
        return  # handle_hicache returns before the host-pool checks (the linker has its own)
    decode = cfg.v("disaggregation_mode") == "decode"
    if (cfg.user("enable_hierarchical_cache") or cfg.user("disaggregation_decode_enable_offload_kvcache")
            or (decode and cfg.user("disaggregation_decode_retraction_backup") in (None, "host_pool"))):
        yield Hit(messages.HICACHE_BUFFER_ONLY_STORAGE_MESSAGE,
                  "add `--hicache-storage-backend` or drop `--hicache-host-memory-mode buffer_only`",
                  values=("hicache_host_memory_mode",))


@rule(
    "RADIX006", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="int8-mamba-checkpoint-cache",
    summary="--enable-int8-mamba-checkpoint only with the built-in mamba radix cache: no HiCache, no --radix-cache-backend, no LMCache",
    what="""
        `--enable-int8-mamba-checkpoint` keeps the cached Mamba states of the radix cache in an
        int8 pool. The host offload of the hierarchical cache, a custom `--radix-cache-backend`
        and (from 0.5.21) LMCache would read those int8 slots as bf16 states, so SGLang refuses
        each of them with it, in that order, whatever the model.
    """,
    why="SGLang refuses to start with a ValueError while it resolves the Mamba arguments.",
    sglang_message="\n".join((messages.INT8_MAMBA_HICACHE, messages.INT8_MAMBA_RADIX_BACKEND, messages.INT8_MAMBA_LMCACHE)),
    fix="Drop `--enable-int8-mamba-checkpoint`, or the hierarchical cache, `--radix-cache-backend` or `--enable-lmcache`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --enable-int8-mamba-checkpoint --enable-hierarchical-cache",
    sources=(
        "0.5.23 `srt/arg_groups/mamba_hook.py` L75-99 `handle_int8_mamba_checkpoint` (0.5.19 L76-95, 0.5.20 the same: "
        "HiCache and the radix-cache backend; the LMCache check from 0.5.21 L94)",
        "0.5.23 `srt/arg_groups/pipeline.py` L252 (after `handle_mamba_backend`, before `handle_hicache` L272)",
    ),
    changes=("0.5.19–0.5.20: LMCache is not checked.",),
)
def radix006(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.user("enable_int8_mamba_checkpoint"):
        return
    flag = "enable_int8_mamba_checkpoint"
    backend = cfg.user("radix_cache_backend")
    if cfg.user("enable_hierarchical_cache"):
        yield Hit(messages.INT8_MAMBA_HICACHE, "drop `--enable-int8-mamba-checkpoint` or `--enable-hierarchical-cache`",
                  values=(flag, "enable_hierarchical_cache"))
    elif backend is not None:
        yield Hit(messages.INT8_MAMBA_RADIX_BACKEND.format(backend=backend), "omit `--radix-cache-backend`",
                  values=(flag, "radix_cache_backend"))
    elif cfg.user("enable_lmcache") and cfg.at_least(versions.INT8_MAMBA_LMCACHE):
        yield Hit(messages.INT8_MAMBA_LMCACHE, "drop `--enable-int8-mamba-checkpoint` or `--enable-lmcache`",
                  values=(flag, "enable_lmcache"))


@rule(
    "RADIX007", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="hicache-resolution",
    summary="the hierarchical cache's own checks: host-memory fraction, buffer_only mode, and DCP (MLA only, no L3 buffer_only, DSPARK, no LMCache/HiSparse)",
    what="""
        SGLang resolves the hierarchical cache in two hooks and refuses, in this order: a
        `--hicache-host-memory-fraction` outside (0, 1] (0.5.21 on, for every launch); then,
        wherever it sets up a host pool (`--enable-hierarchical-cache`, decode KV offload, or a
        PD decode server whose retraction backup is the host pool), `buffer_only` host memory
        with `--hicache-write-policy write_back` (0.5.19–0.5.21; later versions switch to
        write_through) or on a decode server; and with HiCache and `--dcp-size` > 1, an L3
        storage backend (0.5.19–0.5.22: any; 0.5.23: with buffer_only host memory), a draft
        other than DSPARK, LMCache, HiSparse, or a model without MLA. `buffer_only` without a
        storage backend is RADIX005's, checked before the others in the same function.
    """,
    why="SGLang refuses to start with a ValueError or NotImplementedError while it resolves the hierarchical cache.",
    sglang_message="\n".join((messages.HICACHE_HOST_FRACTION, messages.HICACHE_BUFFER_ONLY_WRITE_BACK,
                              messages.HICACHE_BUFFER_ONLY_DECODE, messages.HICACHE_LAYER_FIRST_SHARE,
                              messages.HICACHE_DCP_STORAGE,
                              messages.HICACHE_DCP_BUFFER_ONLY, messages.HICACHE_DCP_SPEC, messages.LMCACHE_DCP_MESSAGE,
                              messages.HICACHE_DCP_HISPARSE, messages.HICACHE_DCP_MHA)),
    fix="""A fraction in (0, 1]; buffer_only only on prefill or colocated servers (write_through);
        HiCache with `--dcp-size` > 1 only on MLA models, L1/L2 (or L3 in cache mode, 0.5.23), DSPARK drafts.""",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --disaggregation-mode decode --hicache-host-memory-mode buffer_only --hicache-storage-backend file",
    sources=(
        "0.5.23 `srt/arg_groups/hicache_hook.py` L100-117 `handle_hicache_ratio_default` (`pipeline.py` L77), "
        "L62-97 `handle_hicache` (`pipeline.py` L272), L247-296 `validate_hicache_host_memory_mode`, "
        "L129-162 `resolve_hicache_dcp_compatibility`",
        "0.5.21 `srt/arg_groups/hicache_hook.py` L236-241: buffer_only refuses write_back (0.5.22 L233-243 resolves it)",
        "0.5.22 `srt/arg_groups/hicache_hook.py` L110-121: any L3 storage refused under DCP (0.5.19 L76-82)",
        "0.5.23 `srt/arg_groups/hicache_hook.py` L75-94 and L197-225 (the layer_first share and the storage layout "
        "rewrite; 0.5.21 L57-74: a threshold above 0)",
    ),
    inferred="""
        The MLA test is SGLang's `use_mla_backend` (the model's attention architecture); kdacheck reads it
        from the config's `kv_lora_rank`.
    """,
    changes=("0.5.19–0.5.20: no `--hicache-host-memory-fraction`.",),
)
def radix007(cfg: Resolved) -> Iterator[Hit]:
    for hit in _hicache_refusals(cfg):
        yield hit
        return


def _hicache_refusals(cfg: Resolved) -> Iterator[Hit]:
    """SGLang's hierarchical-cache refusals in its order (0.5.23 hicache_hook.py); the first is SGLang's."""
    frac = cfg.user("hicache_host_memory_fraction")
    if isinstance(frac, (int, float)) and not 0 < frac <= 1 and cfg.at_least(versions.HICACHE_HOST_FRACTION):
        yield Hit(messages.HICACHE_HOST_FRACTION + f" (got {frac})", "set `--hicache-host-memory-fraction` in (0, 1], or drop it",
                  values=("hicache_host_memory_fraction",))
    if cfg.user("enable_unified_cache_external_linker"):
        return  # handle_hicache returns after the linker's own checks
    hicache = bool(cfg.user("enable_hierarchical_cache"))
    decode = cfg.v("disaggregation_mode") == "decode"
    if not (hicache or cfg.user("disaggregation_decode_enable_offload_kvcache")
            or (decode and cfg.user("disaggregation_decode_retraction_backup") in (None, "host_pool"))):
        return
    storage = cfg.user("hicache_storage_backend")
    buffer_only = cfg.user("hicache_host_memory_mode") == "buffer_only"
    if buffer_only and storage is None:
        return  # RADIX005: SGLang's first refusal of validate_hicache_host_memory_mode
    mode = ("hicache_host_memory_mode",)
    if buffer_only and cfg.user("hicache_write_policy") == "write_back" and not cfg.at_least(versions.BUFFER_ONLY_WRITE_BACK_RESOLVED):
        yield Hit(messages.HICACHE_BUFFER_ONLY_WRITE_BACK, "use `--hicache-write-policy write_through`", values=(*mode, "hicache_write_policy"))
    if buffer_only and decode:
        yield Hit(messages.HICACHE_BUFFER_ONLY_DECODE, "drop `--hicache-host-memory-mode buffer_only` on the decode server",
                  values=(*mode, "disaggregation_mode"))
    dcp = cfg.user("dcp_size") if isinstance(cfg.user("dcp_size"), int) else 1
    layout = _shared_layout_rewrite(cfg, storage, dcp)
    if layout is not None:
        yield Hit(messages.HICACHE_LAYER_FIRST_SHARE.format(layout=layout) + f" (--hicache-storage-backend {storage})",
                  "drop `--disaggregation-decode-host-receive-threshold`, or use a storage backend that keeps layer_first",
                  values=("disaggregation_decode_host_receive_threshold", "hicache_storage_backend"))
    if hicache and dcp > 1:
        yield from _hicache_dcp_refusals(cfg, storage, buffer_only, dcp)


def _host_receive(cfg: Resolved) -> bool:
    """Decode host receive (KV transfer into the host pool) is on: a --disaggregation-decode-host-receive-threshold
    below 1 from 0.5.22 (default 1.0), above 0 in 0.5.21 (default 0.0), none before. SGLang then shares a layer_first
    host pool with KV transfer and declares the retraction backup host_pool (pd_disaggregation_hook.py 0.5.23 L68-80,
    0.5.21 L57-69), before the cache hooks read either."""
    if not cfg.at_least(versions.HICACHE_LAYER_FIRST_SHARE):
        return False
    threshold = cfg.user("disaggregation_decode_host_receive_threshold")
    below_one = cfg.at_least(versions.HICACHE_RECEIVE_THRESHOLD_BELOW_ONE)
    if threshold is None:
        threshold = 1.0 if below_one else 0.0  # the flag's default in each version
    return isinstance(threshold, (int, float)) and 0 <= threshold <= 1 and (threshold < 1 if below_one else threshold > 0)


def _retraction_backup(cfg: Resolved) -> object:
    """The decode retraction backup handle_cache_compatibility reads: as written, or host_pool where decode host
    receive declares it (a written cpu_tensor is refused there, in the PD hook, first)."""
    backup = cfg.user("disaggregation_decode_retraction_backup")
    return "host_pool" if backup != "cpu_tensor" and _host_receive(cfg) else backup


def _shared_layout_rewrite(cfg: Resolved, storage: object, dcp: int) -> str | None:
    """The layout the storage backend rewrites a decode host pool shared with KV transfer to (handle_hicache:
    layer_first forced, then resolve_storage_layout_compatibility), or None when it stays layer_first."""
    if not _host_receive(cfg) or storage not in ("mooncake", "npu_memcache"):
        return None
    if storage == "mooncake" and dcp > 1 and cfg.at_least(versions.HICACHE_MOONCAKE_DCP_KEEPS_LAYOUT):
        return None
    return {"direct": "page_first_direct", "kernel": "page_first"}.get(cfg.user("hicache_io_backend") or "kernel")


def _hicache_dcp_refusals(cfg: Resolved, storage: object, buffer_only: bool, dcp: int) -> Iterator[Hit]:
    """resolve_hicache_dcp_compatibility (0.5.23 hicache_hook.py L129-162)."""
    values = ("enable_hierarchical_cache", "dcp_size")
    if cfg.at_least(versions.HICACHE_DCP_L3):
        if storage is not None and buffer_only:
            yield Hit(messages.HICACHE_DCP_BUFFER_ONLY, "use `--hicache-host-memory-mode cache` under DCP", values=(*values, "hicache_host_memory_mode"))
    elif storage is not None:
        yield Hit(messages.HICACHE_DCP_STORAGE + f" (--hicache-storage-backend {storage}, --dcp-size {dcp})",
                  "drop `--hicache-storage-backend` under DCP (L1/L2 only)", values=(*values, "hicache_storage_backend"))
    algo = cfg.v("speculative_algorithm")
    if algo not in (None, "NONE", "DSPARK"):
        yield Hit(messages.HICACHE_DCP_SPEC + f" (--speculative-algorithm {algo})", "use a DSPARK draft, or `--dcp-size 1`",
                  values=(*values, "speculative_algorithm"))
    if cfg.user("enable_lmcache"):
        yield Hit(messages.LMCACHE_DCP_MESSAGE, "drop `--enable-lmcache`", values=(*values, "enable_lmcache"))
    if cfg.user("enable_hisparse"):
        yield Hit(messages.HICACHE_DCP_HISPARSE, "drop `--enable-hisparse` or `--dcp-size`", values=(*values, "enable_hisparse"))
    if cfg.model is None:
        yield unchecked("needs the model: HiCache with --dcp-size > 1 is only supported for MLA models", *values)
    elif not cfg.model.mla:
        yield Hit(messages.HICACHE_DCP_MHA + f" ({cfg.model.architecture})", "drop `--dcp-size` or `--enable-hierarchical-cache`", values=values)


HICACHE_HYBRID_ISSUE = "https://github.com/sgl-project/sglang/issues/39830"
HICACHE_DSV4_ISSUE = "https://github.com/sgl-project/sglang/issues/33656"


@rule(
    "RADIX008", Severity.WARNING,
    consequence=Consequence.KNOWN_BUG,
    name="hicache-hybrid-runtime",
    summary="the hierarchical cache on a hybrid (Mamba / linear-attention) or DeepSeek-V4 model: open reports of wrong output and crashes",
    what="""
        SGLang accepts `--enable-hierarchical-cache` on hybrid models and on DeepSeek-V4: from
        0.5.19 the unified radix cache attaches a host pool per component (full KV, SWA, Mamba
        state). The old start-up refusal "HiRadixCache only supports MHA, MLA, and NSA (DSA)
        models" is gone: 0.5.19–0.5.20 ship `mem_cache/hiradix_cache.py` but never build it
        (only a type-checking import), 0.5.21 on removed it. What remains are open runtime
        reports: on a GDN hybrid a full-length host-tier hit answers with another request's
        state (sglang#39830, reported on 0.5.20's development line); on DeepSeek-V4 the SWA KV
        is written at the wrong position and sampling crashes on NaN (sglang#33656).
    """,
    why="SGLang starts; after the device pool evicts a prefix, a host-tier hit can return wrong output (hybrid) or crash the server (DeepSeek-V4).",
    sglang_message="(no message: SGLang starts; reported at run time)",
    fix="Run without `--enable-hierarchical-cache` on these models until the issues are fixed, or check outputs after host-tier hits.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --enable-hierarchical-cache",
    sources=(
        HICACHE_HYBRID_ISSUE + " (open: wrong output on a host-tier hit, GDN hybrid, main 0.5.20.dev728)",
        HICACHE_DSV4_ISSUE + " (open: DeepSeek-V4 + HiCache SWA KV position corruption, NaN sampling crash)",
        "https://github.com/sgl-project/sglang/issues/26690, https://github.com/sgl-project/sglang/issues/24121 (closed: "
        "the HiRadixCache refusal and a HiMambaRadixCache crash of earlier code)",
        "0.5.20 `srt/mem_cache/registry.py` L149-194 `_create_unified_radix_cache` (HiCache through UnifiedRadixCache.init_hicache); "
        "0.5.20 `srt/mem_cache/hybrid_cache/hybrid_pool_assembler.py` L36 (HiRadixCache imported for type checking only); "
        "0.5.21-0.5.23: no `hiradix_cache.py`",
    ),
    since=versions.HICACHE_HYBRID_REPORTED,
)
def radix008(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.user("enable_hierarchical_cache") or cfg.v("disable_radix_cache") or cfg.model is None:
        return
    values = ("enable_hierarchical_cache",)
    fix = "drop `--enable-hierarchical-cache` on this model until the issue is fixed"
    if architectures.lookup(cfg.model.architecture).hisparse == "v4":  # DeepSeek-V4 (is_deepseek_v4)
        yield Hit(f"HiCache on DeepSeek-V4: SWA KV written at the wrong position, then a NaN sampling crash ({HICACHE_DSV4_ISSUE}, open)",
                  fix, values=values)
    elif cfg.model.keeps_state:
        yield Hit(f"HiCache on a hybrid model ({cfg.model.architecture}): a host-tier prefix hit can "
                  f"answer with another request's state ({HICACHE_HYBRID_ISSUE}, open)", fix, values=values)


@rule(
    "RADIX009", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="lazy-extra-buffer-needs-overlap",
    needs="state", families=HYBRID,
    summary="--mamba-radix-cache-strategy extra_buffer_lazy needs the overlap schedule",
    what="""
        The lazy variant of the extra-buffer prefix cache sizes its tracking slots for the
        overlap schedule. When SGLang sizes the Mamba state pool of a hybrid model with the
        radix cache on, it asserts that the overlap schedule is on for `extra_buffer_lazy`: with
        `--disable-overlap-schedule` (given, or turned off by another setting) it stops.
    """,
    why="SGLang stops with an AssertionError when it sizes the KV and state pools, after resolution (the weights may be loaded).",
    sglang_message=messages.LAZY_EXTRA_BUFFER_OVERLAP,
    fix="Drop `--disable-overlap-schedule`, or use `--mamba-radix-cache-strategy extra_buffer`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --mamba-radix-cache-strategy extra_buffer_lazy --disable-overlap-schedule",
    sources=(
        "0.5.23 `srt/mem_cache/kv_cache_configurator.py` L3062-3079 `_calculate_mamba_ratio` (mambaish models, "
        "L3134-3136), 0.5.19 L2060-2068: the same assert",
        "0.5.23 `srt/arg_groups/overrides.py` L269-274 `mamba_extra_buffer_lazy_of` (the radix cache on)",
    ),
    inferred="Runs only where RADIX001 (resolution, earlier) passes: SGLang reaches the pools only then.",
)
def radix009(cfg: Resolved) -> Iterator[Hit]:
    if not _radix(cfg) or cfg.v("mamba_radix_cache_strategy") != "extra_buffer_lazy" or not cfg.v("disable_overlap_schedule"):
        return
    if any(True for _ in radix001(cfg)):
        return  # validate_mamba_extra_buffer refuses first, during resolution
    how = "" if cfg.given("disable_overlap_schedule") else " (the overlap schedule is off by another setting)"
    yield Hit(messages.LAZY_EXTRA_BUFFER_OVERLAP + how, "drop `--disable-overlap-schedule`, or use `--mamba-radix-cache-strategy extra_buffer`",
              values=("mamba_radix_cache_strategy", "disable_overlap_schedule"))


@rule(
    "RSSM004", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="replayssm-spec-dspark-kda-only",
    needs="state", families=HYBRID, speculative=True,
    summary="--enable-linear-replayssm-spec with DSPARK or DFLASH only on a KDA model",
    what="""
        Under DSPARK and DFLASH, ReplaySSM-spec commits the accepted draft through the KDA
        backend's fold; on any other hybrid model (GDN, Mamba2, ...) the commit would scatter a
        missing intermediate state, so SGLang refuses when it builds the hybrid request pool.
    """,
    why="SGLang refuses to start with a ValueError when it builds the state pools, after resolution.",
    sglang_message=messages.REPLAYSSM_SPEC_KDA_ONLY,
    fix="Drop `--enable-linear-replayssm-spec` on this model, or use another speculative algorithm.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --speculative-algorithm DFLASH --speculative-draft-model-path DRAFT --enable-linear-replayssm-spec",
    sources=("0.5.23 `srt/mem_cache/kv_cache_configurator.py` L1700-1713 `_build_hybrid_req_pool` (0.5.19 L1043-1055, "
             "its message naming kimi_linear)",),
    changes=("0.5.19: the message says \"a KDA (kimi_linear) model\".",),
)
def rssm004(cfg: Resolved) -> Iterator[Hit]:
    algo = str(cfg.v("speculative_algorithm") or "").upper()
    if not cfg.v("enable_linear_replayssm_spec") or algo not in ("DSPARK", "DFLASH"):
        return
    if cfg.family is None or not cfg.family.hybrid or cfg.family is Family.KDA:
        return
    text = messages.REPLAYSSM_SPEC_KDA_ONLY if cfg.at_least(versions.REPLAYSSM_SPEC_KDA_MESSAGE) else messages.REPLAYSSM_SPEC_KDA_ONLY_OLD
    yield Hit(f"{text} ({cfg.family.label}, --speculative-algorithm {algo})", "drop `--enable-linear-replayssm-spec` on this model",
              values=("enable_linear_replayssm_spec", "speculative_algorithm"))
