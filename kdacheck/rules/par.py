"""PAR: the parallel layout SGLang accepts (TP, DP replicas, attention DP)."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import architectures, messages, versions
from kdacheck.findings import Severity
from kdacheck.resolve import Event, Resolved
from kdacheck.rules.base import Consequence, Hit, divisors, first_refusal, rule, unchecked

_HOOK = "0.5.23 `srt/arg_groups/parallel_hook.py`"


@rule(
    "PAR001", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="tp-divisible-by-attention-dp",
    summary="attention DP size divides the TP size",
    what="""
        Under DP attention each attention-DP worker takes `tp_size / attn_dp_size` ranks.
        SGLang asserts the division is exact before it adjusts the chunked-prefill size.
    """,
    why="SGLang refuses to start with a bare `AssertionError` and no message.",
    sglang_message="AssertionError  (no message: assert cfg.tp_size % cfg.attn_dp_size == 0)",
    fix="Choose an attention DP size that divides `--tp-size` (or a TP size that is a multiple of it).",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 2 --attn-dp-size 4",
    sources=(f"{_HOOK} L326 `handle_data_parallelism`", "0.5.21 `srt/arg_groups/parallel_hook.py` L261 (tp_size % dp_size)"),
)
def par001(cfg: Resolved) -> Iterator[Hit]:
    if Event.TP_NOT_DIVISIBLE_BY_ATTN_DP not in cfg.events:
        return
    tp, adp = cfg.v("tp_size"), cfg.v("attn_dp_size")
    yield Hit(
        f"tp {tp} is not a multiple of attention DP {adp}: SGLang stops at start with a bare AssertionError",
        f"use an attention DP size that divides {tp} ({', '.join(str(d) for d in divisors(int(tp))[:16] if d > 1) or 'none above 1'})",
        values=("tp_size", "attn_dp_size"),
    )


@rule(
    "PAR002", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="no-dp-replicas-with-attention-dp",
    summary="DP replicas (--dp-size > 1) and attention DP (> 1) are not combined",
    what="""
        From 0.5.23 `--dp-size` counts replicas of the whole model and `--attn-dp-size` the
        attention-DP groups inside one. SGLang first rewrites the deprecated
        `--dp-size N --enable-dp-attention` into `--attn-dp-size N` with one replica, then
        refuses replicas combined with attention DP.
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message=(
        "--dp-size {dp_size} with --attn-dp-size {attn_dp_size}: data-parallel replicas combined "
        "with attention data parallelism are not supported."
    ),
    fix="Drop `--dp-size` (attention DP alone), or drop `--attn-dp-size` (replicas alone).",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4 --dp-size 2 --attn-dp-size 2",
    sources=(f"{_HOOK} L287 `handle_data_parallelism`", f"{_HOOK} L39 `handle_deprecated_dp_attention`"),
    since=versions.DP_ATTENTION_REWRITE,
)
def par002(cfg: Resolved) -> Iterator[Hit]:
    if Event.DP_REPLICAS_WITH_ATTN_DP not in cfg.events:
        return
    dp, adp = cfg.v("dp_size"), cfg.v("attn_dp_size")
    yield Hit(
        f"--dp-size {dp} with --attn-dp-size {adp}: data-parallel replicas combined with attention data parallelism are not supported.",
        "drop `--dp-size` to run attention DP alone, or drop `--attn-dp-size`",
        values=("dp_size", "attn_dp_size"),
    )


PP_SPEC_MESSAGE = "Pipeline parallelism currently only supports EAGLE (non-multi-layer) speculative decoding"
# DSPARK under PP off a PD prefill server: SGLang's speculative hook raises this first (0.5.23 speculative_hook.py
# L713-718 _handle_dspark; 0.5.21 L630-634); validation_hook.py's own "Pipeline parallel DSPARK requires
# disaggregation-mode=prefill" is never reached for such a launch
PP_DSPARK_HOOK_MESSAGE = ("DSpark pipeline parallelism requires PD prefill; decode and non-disaggregated serving require "
                          "pp_size == 1.")
PP_MTP_PREFILL_MESSAGE = "PP + speculative decoding (MTP) is only supported on prefill nodes (disaggregation-mode=prefill)"


@rule(
    "PAR003", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="pipeline-parallel-speculation",
    summary="pipeline parallelism speculates with EAGLE (NEXTN) only, or DSPARK on a PD prefill server",
    what="""
        With `--pp-size` > 1 the only speculative algorithm SGLang accepts is EAGLE (NEXTN is
        its alias) without multi-layer EAGLE; EAGLE3, STANDALONE, NGRAM and DFLASH are refused,
        and DSPARK needs `--disaggregation-mode prefill`. EAGLE itself runs only on a PD
        prefill server unless the server's environment sets `SGLANG_ENABLE_PP_SPEC=1` (read
        where the launch sets it: a `VAR=1` prefix, an `export`, a Dockerfile `ENV`); with it,
        EAGLE runs off PD, without `--speculative-adaptive` and without attention DP, and
        DSPARK is refused.
    """,
    why="SGLang refuses to start with an AssertionError.",
    sglang_message="\n".join((PP_SPEC_MESSAGE, PP_DSPARK_HOOK_MESSAGE, PP_MTP_PREFILL_MESSAGE, messages.PP_SPEC_ENV_DSPARK,
                              messages.PP_SPEC_ENV_PD, messages.PP_SPEC_ENV_ADAPTIVE, messages.PP_SPEC_ENV_ATTN_DP)),
    fix="Use `--speculative-algorithm EAGLE` (or NEXTN) with pipeline parallelism, or `--pp-size 1`.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4 --pp-size 2 --speculative-algorithm EAGLE3 --speculative-draft-model-path d",
    sources=("0.5.23 `srt/arg_groups/validation_hook.py` L119-164 `check_pipeline_parallel_compat` (called for pp_size > 1, L196; "
             "EAGLE off a PD prefill server: L160-164, `SGLANG_ENABLE_PP_SPEC` off by default)",
             "0.5.20 `srt/arg_groups/validation_hook.py` L62-83 `check_server_args` (0.5.19 L51-54): no speculative decoding with PP off NPU"),
    changes=(f"0.5.19-0.5.20: PP refuses every speculative algorithm: '{messages.PP_SPEC_OLD}'.",),
)
def par003(cfg: Resolved) -> Iterator[Hit]:
    pp, algo = cfg.v("pp_size") or 1, cfg.v("speculative_algorithm")
    if pp <= 1 or not cfg.v("spec_on"):
        return
    mode, pp_spec = cfg.v("disaggregation_mode"), env_on(cfg, "SGLANG_ENABLE_PP_SPEC")
    if not cfg.at_least(versions.PP_SPEC_COMPAT):
        yield Hit(f"{messages.PP_SPEC_OLD} (pp {pp}, algorithm {algo})", "drop speculative decoding, or use `--pp-size 1`",
                  values=("pp_size", "speculative_algorithm"))
    elif algo == "DSPARK":
        if mode != "prefill":
            yield Hit(PP_DSPARK_HOOK_MESSAGE, "run DSPARK with `--pp-size 1`, or on a PD prefill server", values=("pp_size", "speculative_algorithm"))
        elif pp_spec:
            yield Hit(messages.PP_SPEC_ENV_DSPARK, "unset SGLANG_ENABLE_PP_SPEC for a DSPARK prefill server", values=("pp_size", "speculative_algorithm"))
    elif algo != "EAGLE" or cfg.user("enable_multi_layer_eagle"):
        yield Hit(f"{PP_SPEC_MESSAGE} (pp {pp}, algorithm {algo})", "use `--speculative-algorithm EAGLE` (or NEXTN), or `--pp-size 1`",
                  values=("pp_size", "speculative_algorithm"))
    elif pp_spec:
        yield from _pp_spec_env(cfg, mode)
    elif mode != "prefill":
        yield Hit(f"{PP_MTP_PREFILL_MESSAGE} (pp {pp}; SGLang accepts it off a prefill node only with SGLANG_ENABLE_PP_SPEC=1 in "
                  "the server's environment, which the launch does not set here)",
                  "run EAGLE with `--pp-size 1`, on a PD prefill server, or set SGLANG_ENABLE_PP_SPEC=1",
                  values=("pp_size", "speculative_algorithm", "disaggregation_mode"))


def _pp_spec_env(cfg: Resolved, mode: object) -> Iterator[Hit]:
    """check_pipeline_parallel_compat's EAGLE checks under SGLANG_ENABLE_PP_SPEC (0.5.23 L142-158), the first only."""
    unset = "unset SGLANG_ENABLE_PP_SPEC"
    if mode not in (None, "null"):
        yield Hit(messages.PP_SPEC_ENV_PD, f"{unset} on a PD server", values=("pp_size", "disaggregation_mode"))
    elif cfg.user("speculative_adaptive"):
        yield Hit(messages.PP_SPEC_ENV_ADAPTIVE, f"{unset}, or drop `--speculative-adaptive`", values=("pp_size", "speculative_adaptive"))
    elif cfg.v("dp_attention"):
        new = cfg.at_least(versions.DP_LM_HEAD_ATTN_DP)
        yield Hit(messages.PP_SPEC_ENV_ATTN_DP if new else messages.PP_SPEC_ENV_ATTN_DP_OLD, f"{unset}, or drop attention DP",
                  values=("pp_size", "attn_dp_size"))


_TRUE, _FALSE = ("true", "1", "yes", "y"), ("false", "0", "no", "n")


def env_on(cfg: Resolved, name: str) -> bool:
    """Whether the launch sets one of SGLang's EnvBool switches on (``known_bugs.RULE_ENV``; read as
    0.5.23 srt/environ.py L143-150 ``EnvBool.parse`` reads it). Unset in the launch: off, SGLang's default."""
    got = cfg.cmd.env.get(name)
    return got is not None and got.lower() in _TRUE


CHUNK_PAGE = "chunked_prefill_size must be divisible by page_size"
DEFAULT_CHUNKS = (2048, 4096, 8192, 16384)  # SGLang's defaults by GPU memory (kdacheck.resolve.cuda_graph.default_capacity)


@rule(
    "PAR004", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="chunked-prefill-divisible-by-page-size",
    summary="the chunked-prefill size per attention-DP worker is a multiple of the page size",
    what="""
        SGLang divides `--chunked-prefill-size` (default by GPU, 8192 on an H200) by the
        attention-DP size, then, outside a PD decode server, asserts that the result is a
        multiple of the page size. Attention DP 3 or 6 with a 64-token page (DSA models, the
        trtllm backends) leaves 2,730 or 1,365.
    """,
    why="SGLang refuses to start with a bare AssertionError in its final argument check.",
    sglang_message=CHUNK_PAGE,
    fix="Give `--chunked-prefill-size` as a multiple of attention DP × page size, or an attention-DP size that divides it.",
    example="kdacheck lint --gpu h200 --cmd 'python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 6 --dp-size 3 --enable-dp-attention'",
    sources=(
        "0.5.23 `srt/arg_groups/validation_hook.py:243-246` `check_server_args` (0.5.21 L160-163; the same in 0.5.19-0.5.23)",
        "0.5.23 `srt/arg_groups/memory_hook.py` `handle_gpu_memory_settings` (the chunk // attention DP)",
    ),
)
def par004(cfg: Resolved) -> Iterator[Hit]:
    chunk, page = cfg.v("chunked_prefill_size"), cfg.v("page_size")
    if chunk is None and cfg.gpu is None and isinstance(page, int) and page > 1 and cfg.v("disaggregation_mode") != "decode":
        adp = max(1, int(cfg.v("attn_dp_size") or 1))
        bad = [c for c in DEFAULT_CHUNKS if (c // adp) % page]
        if bad:  # the default depends on the GPU's memory, and some defaults fail
            yield unchecked(f"needs --gpu: SGLang's default --chunked-prefill-size depends on the GPU's memory, and "
                            f"{bad[0]} // attention DP {adp} is not a multiple of the page size {page}",
                            "attn_dp_size", "page_size")
        return
    if not isinstance(chunk, int) or not isinstance(page, int) or chunk <= 0 or page <= 1:
        return
    if cfg.v("disaggregation_mode") == "decode" or chunk % page == 0:
        return
    adp = max(1, int(cfg.v("attn_dp_size") or 1))
    per = " per attention-DP worker" if adp > 1 else ""
    yield Hit(f"{CHUNK_PAGE} (chunked prefill {chunk}{per}, page size {page})",
              f"set `--chunked-prefill-size {max(1, chunk // page) * page * adp}`",
              values=("chunked_prefill_size", "page_size", "attn_dp_size"))


@rule(
    "PAR006", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="dp-lm-head-needs-attention-dp",
    summary="--enable-dp-lm-head with DP replicas needs attention DP",
    what="""
        `--enable-dp-lm-head` shards the LM head over the attention-DP workers. With one DP rank
        SGLang turns the flag off itself; with `--dp-size` above 1 and no attention DP
        (0.5.22+: an attention-DP size of 1; before, no `--enable-dp-attention`) it asserts.
    """,
    why="SGLang refuses to start with an AssertionError while it resolves the parallel layout.",
    sglang_message=f"{messages.DP_LM_HEAD}\n0.5.19–0.5.21: {messages.DP_LM_HEAD_OLD}",
    fix="Use attention DP (`--attn-dp-size N`; 0.5.19–0.5.21: `--enable-dp-attention`), or drop `--enable-dp-lm-head`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 2 --dp-size 2 --enable-dp-lm-head",
    sources=(
        f"{_HOOK}:294 and :367-368 `handle_data_parallelism` (the defaults, then the validation)",
        "0.5.23 `srt/arg_groups/overrides.py:1366-1370` `_data_parallelism_defaults` (one DP rank: the flag off), "
        ":1421-1426 `_dp_lm_head_validation`; 0.5.22 L1329-1333, L1387-1390; 0.5.19 L1403-1406, L1437-1440",
        "0.5.23 `srt/runtime_context.py:191-207` `attn_dp_enabled_of`, `num_dp_ranks_of`",
    ),
    changes=("0.5.19–0.5.21 assert `--enable-dp-attention` itself, with the message 'Please enable dp attention when setting enable_dp_lm_head. '.",),
)
def par006(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.parsed.value("enable_dp_lm_head") or cfg.parsed.value("ep_join_mode") == "scale":
        return  # a scale joiner runs the attention-DP paths at any width (model_override_base.ep_scale_joiner_of)
    dp = int(cfg.v("dp_size") or 1)
    new = cfg.at_least(versions.DP_LM_HEAD_ATTN_DP)
    attn_dp = int(cfg.v("attn_dp_size") or 1) > 1 if new else bool(cfg.user("enable_dp_attention"))
    if dp > 1 and not attn_dp:
        yield Hit(
            f"{messages.DP_LM_HEAD if new else messages.DP_LM_HEAD_OLD.strip()} (--dp-size {dp}, no attention DP)",
            f"use attention DP (`--attn-dp-size {dp}` in place of `--dp-size {dp}`), or drop `--enable-dp-lm-head`" if new
            else "add `--enable-dp-attention`, or drop `--enable-dp-lm-head`",
            values=("enable_dp_lm_head", "dp_size", "attn_dp_size"),
        )


@rule(
    "PAR007", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="decode-context-parallel-flags",
    summary="--dcp-size ≥ 1; --dcp-comm-backend a2a/fi_a2a and --dcp-replicate-q-proj only with --dcp-size > 1",
    what="""
        Decode context parallelism splits the KV cache over `--dcp-size` ranks. SGLang checks its
        flags in this order: the size is at least 1; (0.5.22+) DCP above 1 does not combine
        with `--enable-prefill-cp`; an all-to-all `--dcp-comm-backend` (`a2a`, `fi_a2a`) needs
        DCP above 1; `fi_a2a` needs a CUDA GPU (refused on ROCm); and `--dcp-replicate-q-proj`
        needs DCP above 1 and an all-to-all backend. An unset backend resolves first (0.5.20+:
        `ag_rs` at DCP 1, an all-to-all one above; 0.5.19: `ag_rs`).
    """,
    why="SGLang refuses to start with a ValueError while it resolves the parallel layout.",
    sglang_message="\n".join((messages.DCP_SIZE_MIN, messages.DCP_PREFILL_CP, messages.DCP_COMM_NEEDS_DCP, messages.DCP_FI_A2A,
                              messages.DCP_REPLICATE_NEEDS_DCP, messages.DCP_REPLICATE_BACKEND)),
    fix="Give `--dcp-size` above 1 with the DCP options, or drop them (`--dcp-comm-backend`, `--dcp-replicate-q-proj`).",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --dcp-comm-backend a2a",
    sources=(
        f"{_HOOK} L240-273 `handle_decode_context_parallelism` (0.5.22 L234-267; 0.5.20 L124-157)",
        "0.5.23 `srt/arg_groups/overrides.py` L1374-1396 `_dcp_comm_backend_default` (run first, from 0.5.20)",
        "0.5.19 `srt/arg_groups/parallel_hook.py` L128-159 `handle_dcp_validation`",
    ),
    changes=("0.5.19: an unset `--dcp-comm-backend` is `ag_rs`; the fi_a2a refusal names SM90+ and MNNVL fabric memory.",
             "0.5.22: `--dcp-size > 1` refuses `--enable-prefill-cp`."),
)
def par007(cfg: Resolved) -> Iterator[Hit]:
    yield from first_refusal(_dcp_refusals(cfg))


def _dcp_backend(cfg: Resolved, dcp: int) -> str | None:
    given = cfg.user("dcp_comm_backend")
    if given is not None or not cfg.at_least(versions.DCP_COMM_DEFAULT):
        return str(given or "ag_rs")
    return "ag_rs" if dcp <= 1 else None  # above 1: a2a or fi_a2a on a CUDA or ROCm GPU, never refused below


def _dcp_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """handle_decode_context_parallelism's refusals in SGLang's order: message, fix, values."""
    dcp = cfg.user("dcp_size")
    dcp = dcp if isinstance(dcp, int) else 1
    backend = _dcp_backend(cfg, dcp)
    if dcp < 1:
        yield messages.DCP_SIZE_MIN.format(dcp=dcp), "give `--dcp-size` 1 or more", ("dcp_size",)
    if dcp > 1 and cfg.user("enable_prefill_cp") and cfg.at_least(versions.DCP_PREFILL_CP):
        yield messages.DCP_PREFILL_CP, "drop `--enable-prefill-cp`, or use `--dcp-size 1`", ("dcp_size", "enable_prefill_cp")
    if backend in ("a2a", "fi_a2a") and dcp <= 1:
        yield (messages.DCP_COMM_NEEDS_DCP.format(backend=backend, dcp=dcp),
               "drop `--dcp-comm-backend`, or give `--dcp-size` above 1", ("dcp_comm_backend", "dcp_size"))
    if backend == "fi_a2a" and cfg.gpu is not None and cfg.gpu.hip:
        new = cfg.at_least(versions.DCP_COMM_DEFAULT)
        yield (messages.DCP_FI_A2A if new else messages.DCP_FI_A2A_OLD,
               "use `--dcp-comm-backend a2a` (or ag_rs) on ROCm", ("dcp_comm_backend",))
    if cfg.user("dcp_replicate_q_proj"):
        if dcp <= 1:
            yield messages.DCP_REPLICATE_NEEDS_DCP, "drop `--dcp-replicate-q-proj`, or give `--dcp-size` above 1", (
                "dcp_replicate_q_proj", "dcp_size")
        if backend is not None and backend not in ("a2a", "fi_a2a"):
            yield (messages.DCP_REPLICATE_BACKEND.format(backend=backend),
                   "use `--dcp-comm-backend a2a` with `--dcp-replicate-q-proj`, or drop it",
                   ("dcp_replicate_q_proj", "dcp_comm_backend"))


@rule(
    "PAR008", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="model-attention-context-parallel",
    summary="Nemotron-H runs without attention CP; LongCat-Flash without prefill CP over attention CP",
    what="""
        When it resolves context parallelism SGLang looks at the model: Nemotron-H (and its
        Puzzle variant) does not run with `--attn-cp-size` above 1, and LongCat-Flash does not
        combine `--enable-prefill-cp` with `--attn-cp-size` above 1 (0.5.21+).
    """,
    why="SGLang refuses to start with a ValueError while it resolves context parallelism.",
    sglang_message=f"{messages.NEMOTRON_H_ATTN_CP}\n{messages.LONGCAT_PREFILL_CP}",
    fix="Use `--attn-cp-size 1` for these models (LongCat-Flash: or drop `--enable-prefill-cp`).",
    example="kdacheck lint examples/errors/PAR008-nemotron-h-attention-cp.sh",
    sources=(f"{_HOOK} L64-80 `_boundary_parallelism_overrides`, called by `handle_context_parallelism` L104-113 "
             "(0.5.21 L32-40, L62-71)",),
    since=versions.BOUNDARY_CP,
)
def par008(cfg: Resolved) -> Iterator[Hit]:
    cp = cfg.user("attn_cp_size")
    if not isinstance(cp, int) or cp <= 1:
        return
    if cfg.model is None:
        yield unchecked("needs the model: SGLang refuses attention CP for Nemotron-H (and prefill CP with it for LongCat-Flash)",
                        "attn_cp_size")
        return
    kind = architectures.lookup(cfg.model.architecture).context_parallel
    if kind == "no_attn_cp":
        yield Hit(f"{messages.NEMOTRON_H_ATTN_CP} (--attn-cp-size {cp})", "use `--attn-cp-size 1`", values=("attn_cp_size",))
    elif kind == "no_prefill_cp_with_attn_cp" and cfg.user("enable_prefill_cp"):
        yield Hit(f"{messages.LONGCAT_PREFILL_CP} (--attn-cp-size {cp})", "drop `--enable-prefill-cp`, or use `--attn-cp-size 1`",
                  values=("attn_cp_size", "enable_prefill_cp"))


_CHECK = "0.5.23 `srt/arg_groups/validation_hook.py`"


@rule(
    "PAR009", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="final-parallel-check",
    summary="SGLang's final argument check: nodes divide TP×PP, PP micro-batches ≥ 1 and no --min-free-slots-delay, no multi-node DP replicas, a valid MoE dense TP",
    what="""
        After resolving every flag SGLang asserts, in this order: TP × PP is a multiple of
        `--nnodes` (not for an EP scale joiner); `--pp-max-micro-batch-size` is at least 1;
        with PP, no `--min-free-slots-delay` (after PAR003's speculative checks); no DP replicas
        (`--dp-size` > 1) over several nodes (0.5.19-0.5.21: unless `--enable-dp-attention`);
        and `--moe-dense-tp-size` is 1 or the TP size (DWDP and DeepSeek-V4's prefill CP set it
        to 1 themselves).
    """,
    why="SGLang refuses to start with an AssertionError in its final argument check.",
    sglang_message="\n".join((messages.NNODES_TP, messages.PP_MICRO_BATCH, messages.PP_MIN_FREE_SLOTS, messages.MULTI_NODE_DP,
                              messages.MOE_DENSE_TP)),
    fix="Change the value SGLang names (the finding's fix says how).",
    example="kdacheck lint examples/errors/PAR009-multi-node-dp-replicas.sh",
    sources=(
        f"{_CHECK} L170-236 `check_server_args` (0.5.22 L169-235; 0.5.19 L27-95), L119-168 `check_pipeline_parallel_compat` (from 0.5.21)",
        "0.5.23 `srt/arg_groups/parallel_hook.py` L482-484 `_handle_dwdp`, `deepseek_v4_hook.py` L213-216: moe_dense_tp_size 1",
    ),
    changes=(f"0.5.19-0.5.21: '{messages.MULTI_NODE_DP_OLD}' (DP over nodes without --enable-dp-attention).",),
    inferred="""
        The same check's mixed-chunk assert (`enable_mixed_chunk is not supported with speculative_algorithm=...`)
        cannot fire from a launch: the speculative hook turns `--enable-mixed-chunk` off first for every
        algorithm that does not support it (0.5.23 `srt/arg_groups/speculative_hook.py` L1108-1112 for the
        EAGLE family and STANDALONE, L1304-1308 NGRAM, L596-600 UNO, L1002-1006 Frozen-KV MTP); SGLang's own
        run of `--speculative-algorithm NGRAM --enable-mixed-chunk` starts.
    """,
)
def par009(cfg: Resolved) -> Iterator[Hit]:
    yield from first_refusal(_final_refusals(cfg))


_LAYOUT = ("tp_size", "pp_size", "dp_size", "attn_cp_size")  # resolved by the parallel step; the rest as written


def _int(cfg: Resolved, name: str, default: int = 1) -> int:
    got = cfg.v(name) if name in _LAYOUT else cfg.user(name)
    return got if isinstance(got, int) else default


def _final_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """check_server_args's refusals kdacheck checks here, in its order: message, fix, values."""
    tp, pp, nnodes = _int(cfg, "tp_size"), _int(cfg, "pp_size"), _int(cfg, "nnodes")
    if cfg.user("ep_join_mode") != "scale" and nnodes > 0 and (tp * pp) % nnodes:
        yield (f"{messages.NNODES_TP} (tp {tp} × pp {pp} over {nnodes} nodes)",
               f"use a node count that divides {tp * pp}", ("nnodes", "tp_size", "pp_size"))
    micro = cfg.user("pp_max_micro_batch_size")
    if isinstance(micro, int) and micro < 1:
        yield messages.PP_MICRO_BATCH.format(got=micro), "drop `--pp-max-micro-batch-size` (auto) or give 1 or more", (
            "pp_max_micro_batch_size",)
    if pp > 1:
        if next(iter(par003(cfg)), None) is not None:
            return  # check_pipeline_parallel_compat stops at its speculative checks first (PAR003)
        if cfg.user("min_free_slots_delay") is not None:
            yield messages.PP_MIN_FREE_SLOTS, "drop `--min-free-slots-delay`, or use `--pp-size 1`", ("min_free_slots_delay", "pp_size")
    dp = _int(cfg, "dp_size")
    replicas = cfg.at_least(versions.MULTI_NODE_DP_REPLICAS)
    if dp > 1 and nnodes != 1 and (replicas or not cfg.user("enable_dp_attention")) and not _layout_reset(cfg):
        yield (messages.MULTI_NODE_DP if replicas else messages.MULTI_NODE_DP_OLD,
               f"use attention DP (`--attn-dp-size {dp}` in place of `--dp-size {dp}`) across nodes" if replicas
               else "add `--enable-dp-attention`, or run one node per replica", ("dp_size", "nnodes"))
    yield from _moe_dense(cfg, tp)


def _layout_reset(cfg: Resolved) -> bool:
    """Whether a hook sets dp_size and moe_dense_tp_size to 1 before the final check: DWDP (0.5.23
    parallel_hook.py L433-484 ``handle_dwdp``) or DeepSeek-V4's prefill CP (deepseek_v4_hook.py L161-216)."""
    v4 = cfg.model is not None and architectures.lookup(cfg.model.architecture).launch_hook == "deepseek_v4"
    return _int(cfg, "dwdp_size") > 1 or (v4 and bool(cfg.user("enable_prefill_cp")))


def _moe_dense(cfg: Resolved, tp: int) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    dense = cfg.user("moe_dense_tp_size")
    if isinstance(dense, int) and dense not in (1, tp) and not _layout_reset(cfg):
        yield f"{messages.MOE_DENSE_TP} (--moe-dense-tp-size {dense}, tp {tp})", "give `--moe-dense-tp-size 1` (or drop it)", (
            "moe_dense_tp_size", "tp_size")


@rule(
    "PAR010", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="tp-lm-head-all-to-all",
    summary="--enable-tp-lm-head-all-to-all: attention DP over the whole TP group, no DP LM head, no attention CP",
    what="""
        The TP LM-head all-to-all shards the LM head over the TP ranks and exchanges the
        attention-DP groups' tokens. Given on the command line (SGLang turns it on by itself
        only where it holds), it needs attention DP (0.5.19-0.5.21: `--enable-dp-attention`),
        no `--enable-dp-lm-head`, a TP size equal to the attention-DP size (0.5.19-0.5.21:
        `--dp-size`), and `--attn-cp-size 1`. SGLang asserts these in this order, right after
        PAR006's check of the DP LM head.
    """,
    why="SGLang refuses to start with an AssertionError while it resolves the parallel layout.",
    sglang_message="\n".join((messages.TP_LM_HEAD_ATTN_DP, messages.TP_LM_HEAD_DP_LM_HEAD, messages.TP_LM_HEAD_TP, messages.TP_LM_HEAD_CP)),
    fix="Drop `--enable-tp-lm-head-all-to-all` (SGLang turns it on for a pure attention-DP decode server itself), or run attention DP over the whole TP group.",
    example="kdacheck lint examples/errors/PAR010-tp-lm-head-partial-dp.sh",
    sources=(
        "0.5.23 `srt/arg_groups/overrides.py` L1399-1417 `_tp_lm_head_all_to_all_default` (unset: on only where valid), "
        "L1420-1444 `_dp_lm_head_validation` (0.5.22 L1384-1407; 0.5.19 L1410-1458)",
        f"{_HOOK} `handle_data_parallelism`: the two passes, after the data-parallelism defaults",
    ),
    changes=(f"0.5.19-0.5.21: '{messages.TP_LM_HEAD_ATTN_DP_OLD}', and TP compared with --dp-size: "
             f"'{messages.TP_LM_HEAD_TP_OLD}'",),
)
def par010(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.user("enable_tp_lm_head_all_to_all") or next(iter(par006(cfg)), None) is not None:
        return  # unset: SGLang's default is on only where every check holds; PAR006's assert comes first
    new = cfg.at_least(versions.DP_LM_HEAD_ATTN_DP)
    tp, cp = int(cfg.v("tp_size") or 1), int(cfg.v("attn_cp_size") or 1)
    width = int((cfg.v("attn_dp_size") if new else cfg.v("dp_size")) or 1)
    drop = "drop `--enable-tp-lm-head-all-to-all`"
    if not cfg.v("dp_attention"):
        yield Hit(messages.TP_LM_HEAD_ATTN_DP if new else messages.TP_LM_HEAD_ATTN_DP_OLD,
                  f"{drop}, or use attention DP (`--attn-dp-size {tp}`)" if new else f"{drop}, or add `--enable-dp-attention`",
                  values=("enable_tp_lm_head_all_to_all", "attn_dp_size"))
    elif cfg.user("enable_dp_lm_head"):
        yield Hit(messages.TP_LM_HEAD_DP_LM_HEAD, f"{drop} or `--enable-dp-lm-head`", values=("enable_tp_lm_head_all_to_all", "enable_dp_lm_head"))
    elif tp != width:
        yield Hit((messages.TP_LM_HEAD_TP if new else messages.TP_LM_HEAD_TP_OLD).format(tp=tp, dp=width),
                  f"{drop}, or use attention DP {tp} (the TP size)", values=("enable_tp_lm_head_all_to_all", "tp_size", "attn_dp_size"))
    elif cp != 1:
        yield Hit(messages.TP_LM_HEAD_CP.format(cp=cp), f"{drop}, or `--attn-cp-size 1`", values=("enable_tp_lm_head_all_to_all", "attn_cp_size"))


@rule(
    "PAR011", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="attention-dp-size-positive",
    summary="--attn-dp-size is 1 or more",
    what="""
        `--attn-dp-size` counts the attention-DP groups (1: no attention DP). SGLang refuses 0
        or a negative size first thing in `handle_data_parallelism`, before PAR002's check of
        replicas (0.5.22+, where the flag exists).
    """,
    why="SGLang refuses to start with a ValueError while it resolves the parallel layout.",
    sglang_message=messages.ATTN_DP_SIZE_MIN,
    fix="Give `--attn-dp-size` 1 or more (or drop it: 1).",
    example="kdacheck lint examples/errors/PAR011-attention-dp-zero.sh",
    sources=(f"{_HOOK} L285-286 `handle_data_parallelism` (0.5.22 L279-280)",),
    since=versions.DP_ATTENTION_REWRITE,
)
def par011(cfg: Resolved) -> Iterator[Hit]:
    adp = cfg.user("attn_dp_size")
    if isinstance(adp, int) and adp < 1:
        yield Hit(messages.ATTN_DP_SIZE_MIN.format(adp=adp), "give `--attn-dp-size` 1 or more, or drop it", values=("attn_dp_size",))
