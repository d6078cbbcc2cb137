"""SPEC: the speculative parameters (S, K, D) and how SGLang resolves them."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import flags as flagmod
from kdacheck import messages, versions
from kdacheck.findings import Location, Severity
from kdacheck.resolve import Event, Resolved
from kdacheck.resolve.speculative import BUILTIN_ALGORITHMS
from kdacheck.rules.base import Consequence, Hit, rule, unchecked

_HOOK = "0.5.23 `srt/arg_groups/speculative_hook.py` `_handle_eagle_family`"


@rule(
    "SPEC001", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="steps-given-with-topk-or-draft-tokens",
    summary="--speculative-num-steps unset ⇒ topk and draft tokens unset too",
    what="""
        For the EAGLE family (EAGLE, EAGLE3, NEXTN, STANDALONE) without
        `--speculative-adaptive`, SGLang auto-chooses (steps, topk, draft tokens) only when
        all three are unset. Giving `--speculative-eagle-topk` or
        `--speculative-num-draft-tokens` without `--speculative-num-steps` trips an assertion.
    """,
    why="SGLang refuses to start with a bare `AssertionError` and no message.",
    sglang_message="AssertionError  (no message)",
    fix="Give `--speculative-num-steps` as well (for topk 1: draft tokens − 1), or drop the other two and let SGLang choose 3/1/4.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --speculative-algorithm EAGLE --speculative-eagle-topk 1 --speculative-num-draft-tokens 8",
    sources=(f"{_HOOK}, `_auto_choose_speculative_params`",),
)
def spec001(cfg: Resolved) -> Iterator[Hit]:
    if Event.TOPK_OR_DRAFT_WITHOUT_STEPS not in cfg.events:
        return
    given = [d for d in ("speculative_eagle_topk", "speculative_num_draft_tokens") if cfg.given(d)]
    names = " and ".join(f"`{g.flag.name}`" for d in given if (g := cfg.written(d)) is not None)
    topk, draft = cfg.parsed.value("speculative_eagle_topk"), cfg.parsed.value("speculative_num_draft_tokens")
    sets: tuple[tuple[str, str, bool], ...] = ()
    if isinstance(draft, int) and topk in (None, 1):
        fix = f"add `--speculative-num-steps {max(1, draft - 1)}`"
        # the one step count a topk-1 chain of D tokens can have (SPEC002): what the launch means
        sets = (("--speculative-num-steps", str(max(1, draft - 1)), True),)
    else:
        fix = "add `--speculative-num-steps 3`"
    yield Hit(
        f"{names} given without `--speculative-num-steps`: SGLang stops at start with a bare AssertionError",
        fix,
        values=("topk", "draft_tokens", "steps"),
        at=_loc_of(cfg, given[0]),
        sets=sets,
    )


@rule(
    "SPEC002", Severity.WARNING,
    consequence=Consequence.REFUSES,
    name="chain-draft-tokens-are-steps-plus-one",
    summary="topk 1 ⇒ draft tokens = steps + 1 (else SGLang overrides it)",
    what="""
        With `--speculative-eagle-topk 1` the draft is a chain of S tokens, so SGLang sets
        the verify width D to S + 1 whatever `--speculative-num-draft-tokens` says, and logs
        a warning.
    """,
    why="The value in the launch file is not the one that runs; buffers and CUDA graphs are sized for S + 1.",
    sglang_message="speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1",
    fix="Set `--speculative-num-draft-tokens` to steps + 1, or drop it.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 8",
    sources=(_HOOK,),
)
def spec002(cfg: Resolved) -> Iterator[Hit]:
    if Event.DRAFT_TOKENS_OVERRIDDEN not in cfg.events:
        return
    given = cfg.parsed.value("speculative_num_draft_tokens")
    d = cfg.v("draft_tokens")
    yield Hit(
        f"`--speculative-num-draft-tokens {given}` with topk 1 and {cfg.v('steps')} steps: SGLang uses {d} instead",
        f"set `--speculative-num-draft-tokens {d}`",
        values=("draft_tokens", "steps", "topk"),
        sets=(("--speculative-num-draft-tokens", str(d), True),),  # the value SGLang uses anyway: safe
        at=_loc_of(cfg, "speculative_num_draft_tokens"),
    )


@rule(
    "SPEC011", Severity.INFO,
    consequence=Consequence.RUNS_OTHER,
    name="default-running-requests-under-speculation",
    summary="--max-running-requests unset under speculation: 48 applies",
    what="""
        With speculative decoding on and no `--max-running-requests`, SGLang caps running
        requests at 48 (per server; divided among attention-DP workers). The scratch buffers
        are sized from it. A model hook that sets its own default first wins (DeepSeek-V4: 256,
        `apply_deepseek_v4_defaults`, which runs before the speculative hook), and the finding
        says that value.
    """,
    why="A silent default that sizes the verify buffers and the batch.",
    fix="Set `--max-running-requests` explicitly if 48 is not what you want.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --speculative-algorithm EAGLE",
    sources=("0.5.23 `srt/arg_groups/speculative_hook.py` (max_running_requests default 48)",
             "0.5.23 `srt/arg_groups/deepseek_v4_hook.py:139-147` (DeepSeek-V4: 256, in the model hook, `pipeline.py:225` before `:306`)"),
)
def spec011(cfg: Resolved) -> Iterator[Hit]:
    if cfg.v("spec_on") and not cfg.given("max_running_requests"):
        mrr = cfg.vals.get("max_running_requests")
        if mrr is not None and mrr.origin == "model":  # a model hook's default came first (DeepSeek-V4: 256)
            yield Hit(f"max running requests = {mrr.value} ({mrr.why}; the speculative default of 48 does not apply); "
                      f"R = {cfg.v('R')} per attention-DP worker", None, values=("max_running_requests", "R"))
            return
        yield Hit(
            f"max running requests = 48 (SGLang's default under speculative decoding); R = {cfg.v('R')} per attention-DP worker",
            None,
            values=("max_running_requests", "R"),
        )


_EAGLE = ("EAGLE", "EAGLE3", "STANDALONE")
_PAGE_TREE_SPEC_BACKENDS = ("flashinfer", "fa3", "triton")


def _eagle(cfg: Resolved) -> bool:
    return bool(cfg.v("spec_on")) and cfg.v("speculative_algorithm") in _EAGLE


def _loc_of(cfg: Resolved, dest: str) -> Location | None:
    g = cfg.written(dest)
    return g.loc if g is not None else None


@rule(
    "SPEC003", Severity.ERROR,
    consequence=Consequence.CRASHES_AT_DRAFT_TREE,
    name="tree-holds-draft-tokens",
    summary="tree capacity: D − 1 ≤ K + (S − 1)·K² draft candidates",
    what="""
        With topk K > 1 the draft builds a tree: the first step offers K candidates and each
        later step K² scores, so `organize_draft_results` chooses the D − 1 best of
        K + (S − 1)·K² with `torch.topk`. Asking for more draft tokens than the tree offers
        fails. (topk 1 takes a separate chain path and D = S + 1 anyway.)
    """,
    why="`torch.topk(score_list, num_draft_token - 1)` raises when k exceeds the score width: the server dies at the first draft step.",
    sglang_message="RuntimeError: selected index k out of range  (torch.topk in organize_draft_results)",
    fix="Lower `--speculative-num-draft-tokens` to at most K + (S − 1)·K² + 1, or raise steps/topk.",
    example="python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B --speculative-num-steps 1 --speculative-eagle-topk 2 --speculative-num-draft-tokens 8",
    sources=(
        "0.5.19 `srt/speculative/eagle_utils.py:107` `organize_draft_results`; 0.5.23 line 100",
        "0.5.23 `srt/speculative/spec_utils.py:417-487` `_select_top_k_tokens_first/_later` (score widths K and K²)",
        "0.5.23 `srt/speculative/eagle_worker_v2.py:808-817` (one score block per step)",
    ),
    inferred="""
        The bound is derived from the score shapes; SGLang does not check it at start-up, so
        the crash at the first draft step is inferred. SGLang's own UNO tree mode (0.5.20+
        `_handle_uno`) rejects Q − 1 > K·(F − 2) + 1, a stricter parent-list bound; EAGLE has no
        such check.
    """,
)
def spec003(cfg: Resolved) -> Iterator[Hit]:
    if not _eagle(cfg):
        return
    S, K, D = cfg.v("steps"), cfg.v("topk"), cfg.v("draft_tokens")
    if not all(isinstance(x, int) for x in (S, K, D)) or K <= 1 or S < 1:
        return
    cap = K + (S - 1) * K * K
    if cap < D - 1:
        yield Hit(
            f"{D} draft tokens need {D - 1} tree candidates, but steps {S} × topk {K} offer only {cap} (K + (S − 1)·K²): torch.topk fails at the first draft step",
            f"use `--speculative-num-draft-tokens {cap + 1}`",
            values=("draft_tokens", "steps", "topk"),
        )


@rule(
    "SPEC004", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="paged-tree-needs-capable-backend",
    summary="topk > 1 with page size > 1 needs the flashinfer, fa3 or triton attention backend",
    what="""
        EAGLE-family tree drafting (topk > 1) on a paged KV cache (page size > 1) is only
        supported by the flashinfer, fa3 and triton attention backends. SGLang checks the
        `--attention-backend` value.
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message="speculative_eagle_topk > 1 with page_size > 1 is only supported on {_PAGE_TREE_SPEC_BACKENDS}; got attention_backend={view.attention_backend!r}. Use page_size == 1 or one of those backends.",
    fix="Use `--attention-backend fa3` (Hopper) or flashinfer/triton, or `--page-size 1`, or `--speculative-eagle-topk 1`.",
    example="python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 8 --page-size 16 --attention-backend trtllm_mha",
    sources=(
        "0.5.19 `srt/arg_groups/speculative_hook.py:807-818` `_handle_eagle_family`",
        "0.5.23 `srt/arg_groups/speculative_hook.py:1271-1282` `_handle_eagle_family`",
    ),
    inferred="When `--attention-backend` is not given SGLang picks one per GPU and model before this check; kdacheck does not model that choice and says so (info).",
)
def spec004(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck.rules.hsp import dsa_dcp_refusals

    if not _eagle(cfg) or dsa_dcp_refusals(cfg):
        return  # under DSA DCP SGLang stops at the model override first (HSP008)
    K, page = cfg.v("topk"), cfg.v("page_size")
    if not isinstance(K, int) or K <= 1 or not isinstance(page, int) or page <= 1:
        return
    backend = cfg.v("attention_backend")
    if backend is None:
        yield unchecked(f"topk {K} with page size {page} needs attention backend flashinfer, fa3 or triton; give `--attention-backend` to check it")
    elif backend not in _PAGE_TREE_SPEC_BACKENDS:
        yield Hit(
            f"topk {K} with page size {page} is only supported on {_PAGE_TREE_SPEC_BACKENDS}; got attention_backend={backend!r}",
            "use `--page-size 1`, or `--attention-backend flashinfer` (or fa3/triton)",
            values=("attention_backend", "topk", "page_size"),
        )


@rule(
    "SPEC005", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="trtllm-mha-is-chain-only",
    summary="trtllm_mha attention (prefill or decode) ⇒ topk 1",
    what="""
        When trtllm_mha is the attention backend, or the prefill or decode attention backend,
        EAGLE-family speculation must be a chain (topk 1).
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message="trtllm_mha backend only supports topk = 1 for speculative decoding.",
    fix="Set `--speculative-eagle-topk 1` (and draft tokens = steps + 1), or choose another attention backend.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6 --attention-backend trtllm_mha",
    sources=(
        "0.5.19 `srt/arg_groups/speculative_hook.py:742` `_handle_eagle_family`",
        "0.5.23 `srt/arg_groups/speculative_hook.py:1176-1182` `_handle_eagle_family` (`attention_backends_of`)",
    ),
)
def spec005(cfg: Resolved) -> Iterator[Hit]:
    if not _eagle(cfg):
        return
    K = cfg.v("topk")
    names = [n for n in ("attention_backend", "prefill_attention_backend", "decode_attention_backend") if cfg.v(n) == "trtllm_mha"]
    if names and isinstance(K, int) and K > 1:
        yield Hit(
            f"trtllm_mha (`{names[0]}`) only supports topk 1 for speculative decoding; topk is {K}",
            f"set `--speculative-eagle-topk 1 --speculative-num-draft-tokens {(cfg.v('steps') or 3) + 1}`, or another attention backend",
            values=(names[0], "topk"),
        )


@rule(
    "SPEC006", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="ngram-paged-tree-backend",
    summary="NGRAM: page size > 1 with breadth > 1 needs flashinfer; no DP attention (nor for STANDALONE)",
    what="""
        NGRAM sets topk to `--speculative-ngram-max-bfs-breadth` (default 10; a given
        `--speculative-eagle-topk` is overwritten), draft tokens to 12 by default and steps to
        draft tokens // breadth. With topk > 1 and page size > 1 only the flashinfer
        attention backend is supported, and NGRAM does not support DP attention. STANDALONE
        does not support DP attention either.
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message="""
        speculative_eagle_topk({K}) > 1 with page_size({P}) > 1 is unstable and produces incorrect results for paged attention backends. This combination is only supported for the 'flashinfer' backend.
        Currently ngram speculative decoding does not support dp attention.
        Currently standalone speculative decoding does not support dp attention.
    """,
    fix="Use `--attention-backend flashinfer` or `--page-size 1` (or breadth 1); drop `--enable-dp-attention` for NGRAM/STANDALONE.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NGRAM --page-size 64 --attention-backend fa3",
    sources=(
        "0.5.19 `srt/arg_groups/speculative_hook.py:821` `_handle_ngram` (page rule 897-902, DP attention 905)",
        "0.5.23 `srt/arg_groups/speculative_hook.py:1285` `_handle_ngram` (page rule 1361-1366, DP attention 1369)",
        "0.5.23 `srt/arg_groups/speculative_hook.py:1078` `_handle_eagle_family` (STANDALONE + DP attention)",
    ),
)
def spec006(cfg: Resolved) -> Iterator[Hit]:
    algo = cfg.v("speculative_algorithm")
    if not cfg.v("spec_on"):
        return
    if algo == "STANDALONE" and cfg.v("dp_attention"):
        yield Hit("Currently standalone speculative decoding does not support dp attention.", "drop `--enable-dp-attention`, or use EAGLE with a draft head", values=("dp_attention", "speculative_algorithm"))
    if algo != "NGRAM":
        return
    K, page = cfg.v("topk"), cfg.v("page_size")
    if isinstance(K, int) and K > 1 and isinstance(page, int) and page > 1 and cfg.v("attention_backend") != "flashinfer":
        yield Hit(
            f"NGRAM: speculative_eagle_topk({K}) > 1 with page_size({page}) > 1 is only supported on the 'flashinfer' attention backend (got {cfg.v('attention_backend')!r})",
            "use `--attention-backend flashinfer`, or `--page-size 1`",
            values=("topk", "ngram_breadth", "page_size", "attention_backend"),
        )
    if cfg.v("dp_attention"):
        yield Hit("Currently ngram speculative decoding does not support dp attention.", "drop `--enable-dp-attention`", values=("dp_attention", "speculative_algorithm"))


@rule(
    "SPEC007", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="adaptive-steps-among-candidates",
    summary="adaptive: steps among the candidate steps; warn when adaptive is switched off silently",
    what="""
        `--speculative-adaptive` switches the number of steps among candidate steps (default
        union {0,1,3,7} in 0.5.19, {0,1,3,5,7} from 0.5.20). A given
        `--speculative-num-steps` must be one of them. Adaptive needs EAGLE/EAGLE3, topk 1
        (or unset), no DP attention, no multi-layer EAGLE, no two-batch overlap and no PD
        multiplexing; otherwise SGLang logs a warning and runs static parameters.
    """,
    why="A step count outside the candidates is a start-up ValueError; a silently disabled adaptive changes what runs (static S, K, D).",
    sglang_message="""
        --speculative-num-steps={S} is not in the adaptive config candidate_steps {candidate_steps}. Pass one of those values.
        speculative_adaptive disabled: {reason}. Falling back to static speculative params.
    """,
    fix="Pass one of the candidate steps (or drop `--speculative-num-steps`); for the warning, remove what disables adaptive or drop `--speculative-adaptive`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NEXTN --speculative-adaptive --speculative-num-steps 4",
    sources=(
        "0.5.19 `srt/speculative/adaptive_spec_params.py:26` DEFAULT_ADAPTIVE_CONFIG, `:54` adaptive_unsupported_reason",
        "0.5.23 `srt/speculative/adaptive_spec_params.py:28`, `:56` adaptive_unsupported_reason",
        "0.5.19 `srt/arg_groups/speculative_hook.py:952-957`; 0.5.23 `:1416-1421` (`_init_adaptive_speculative_params` ValueError)",
    ),
    changes=(
        "0.5.20: default candidate steps for batch size 1 become [1, 3, 5, 7] (union {0,1,3,5,7})",
        "0.5.23: the DP-attention reason reads 'attention DP is not supported'",
    ),
)
def spec007(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("spec_on"):
        return
    if Event.STEPS_NOT_IN_CANDIDATES in cfg.events:
        cands = cfg.v("adaptive_candidates")
        S = cfg.v("steps")
        best = min(cands, key=lambda c: (abs(c - S), -c))
        yield Hit(
            f"--speculative-num-steps={S} is not in the adaptive config candidate_steps {cands}. Pass one of those values.",
            f"use `--speculative-num-steps {best}`",
            values=("steps", "adaptive_candidates"),
        )
    if Event.ADAPTIVE_OFF in cfg.events:
        yield Hit(
            f"--speculative-adaptive is {cfg['adaptive'].why}; static parameters run (steps {cfg.v('steps')}, topk {cfg.v('topk')}, draft tokens {cfg.v('draft_tokens')})",
            "drop `--speculative-adaptive`, or remove what disables it",
            values=("adaptive",),
            severity=Severity.WARNING,
        )


@rule(
    "SPEC008", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="algorithm-max-draft-tokens",
    summary="the algorithm's declared max draft tokens ≥ D",
    what="""
        Each speculative algorithm declares the widest draft it may use
        (`resolve_max_speculative_num_draft_tokens`). SGLang refuses a configuration whose
        draft tokens exceed it. For the built-in algorithms the declared value is D (or
        max(candidate steps) + 1 under adaptive), so only plugin algorithms can trip it.
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message="The speculative algorithm declared max_speculative_num_draft_tokens={result}, below the configured speculative_num_draft_tokens={cfg.speculative_num_draft_tokens}.",
    fix="Lower `--speculative-num-draft-tokens` to the plugin algorithm's maximum.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-algorithm MY_PLUGIN --speculative-num-draft-tokens 16",
    sources=(
        "0.5.19 `srt/arg_groups/overrides.py:1894` `max_speculative_num_draft_tokens`; 0.5.23 line 1953",
        "0.5.23 `srt/speculative/spec_info.py:268-289` `resolve_max_speculative_num_draft_tokens`",
    ),
    inferred="Built-in algorithms cannot trip it (read); a plugin's declared maximum is not visible statically, so kdacheck reports it as unchecked.",
)
def spec008(cfg: Resolved) -> Iterator[Hit]:
    algo = cfg.v("speculative_algorithm")
    if cfg.v("spec_on") and algo not in (*BUILTIN_ALGORITHMS, "UNO", "FROZEN_KV_MTP"):
        yield unchecked(f"algorithm {algo!r} is not built in: its declared max draft tokens (≥ {cfg.v('draft_tokens')} needed) is not visible statically")


@rule(
    "SPEC009", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="block-draft-width",
    summary="DSPARK: D = gamma + 1 ≥ 2; DFLASH: D = the block size, and the draft window holds a block",
    what="""
        DSPARK verifies gamma + 1 tokens (gamma = `--speculative-dspark-block-size`, else the
        draft config, else 7): a given `--speculative-num-draft-tokens` must equal gamma + 1,
        and be at least 2. DFLASH verifies one block: the block size must be positive, when
        both `--speculative-num-draft-tokens` and `--speculative-dflash-block-size` are given
        they must match, and a `--speculative-draft-window-size` must be at least the block
        (the block size, else the draft config's, else 16). These checks come after the
        algorithm's prerequisites (SPEC014): SGLang stops at the first.
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message="""
        DSpark speculative_num_draft_tokens must equal gamma + 1 (= {verify_window} for gamma={gamma}), but got speculative_num_draft_tokens={D}.
        DSpark speculative_num_draft_tokens must be >= 2 (= gamma + 1), got {D}.
        DFLASH requires --speculative-dflash-block-size to be positive, got {B}.
        Both --speculative-num-draft-tokens and --speculative-dflash-block-size are set but they differ. For DFLASH they must match. speculative_num_draft_tokens={D}, speculative_dflash_block_size={B}.
        --speculative-draft-window-size must be >= --speculative-num-draft-tokens (block_size). window_size={W}, block_size={B}.
    """,
    fix="Drop `--speculative-num-draft-tokens` (SGLang derives it), or set it to gamma + 1 (DSPARK) / the block size (DFLASH).",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --speculative-algorithm DSPARK --speculative-draft-model-path DRAFT --speculative-dspark-block-size 7 --speculative-num-draft-tokens 4",
    sources=(
        "0.5.19 `srt/arg_groups/speculative_hook.py:338` `_handle_dspark` (486, 503); 0.5.23 `:666` (831, 848)",
        "0.5.19 `srt/arg_groups/speculative_hook.py:187` `_handle_dflash` (block 249-262, window 307-314); 0.5.23 `:287` (block 368-381, window 426-433)",
    ),
)
def spec009(cfg: Resolved) -> Iterator[Hit]:
    algo = cfg.v("speculative_algorithm")
    if not cfg.v("spec_on"):
        return
    D = cfg.parsed.value("speculative_num_draft_tokens")
    if algo == "DSPARK":
        if any(h.severity is None for h in _dspark_refusals(cfg)):
            return  # SGLang stops at SPEC014's refusal first
        gamma = cfg.v("dspark_gamma")
        if isinstance(gamma, int) and gamma <= 0:
            yield Hit(f"DSpark requires --speculative-dspark-block-size to be positive, got {gamma}.", "drop `--speculative-dspark-block-size` or make it positive", values=("dspark_gamma",))
            return
        if isinstance(gamma, int) and D is not None and gamma + 1 != D:
            yield Hit(
                f"DSpark speculative_num_draft_tokens must equal gamma + 1 (= {gamma + 1} for gamma={gamma}), but got speculative_num_draft_tokens={D}.",
                f"use `--speculative-num-draft-tokens {gamma + 1}` or drop it",
                values=("draft_tokens", "dspark_gamma"), at=_loc_of(cfg, "speculative_num_draft_tokens"),
            )
        elif gamma is None and D is not None and D < 2:
            yield Hit(f"DSpark speculative_num_draft_tokens must be >= 2 (= gamma + 1), got {D}.", "use `--speculative-num-draft-tokens 8` (gamma 7) or drop it", values=("draft_tokens",))
    elif algo == "DFLASH" and next(dflash_prerequisites(cfg), None) is None:  # else SGLang stops at SPEC014's first
        yield from _dflash_block(cfg, D)


def _dflash_block(cfg: Resolved, D: object) -> Iterator[Hit]:
    """_handle_dflash's block size, then the draft window against it (0.5.23 L368-433)."""
    bs = cfg.v("dflash_block_size")
    if isinstance(bs, int) and bs <= 0:
        yield Hit(messages.DFLASH_BLOCK_POSITIVE.format(n=bs), "drop `--speculative-dflash-block-size` or make it positive", values=("dflash_block_size",))
        return
    if isinstance(bs, int) and D is not None and bs != D:
        yield Hit(
            f"Both --speculative-num-draft-tokens and --speculative-dflash-block-size are set but they differ. For DFLASH they must match. speculative_num_draft_tokens={D}, speculative_dflash_block_size={bs}.",
            f"use `--speculative-num-draft-tokens {bs}` or drop it",
            values=("draft_tokens", "dflash_block_size"), at=_loc_of(cfg, "speculative_num_draft_tokens"),
        )
        return
    window, block = cfg.user("speculative_draft_window_size"), cfg.v("draft_tokens")
    if not isinstance(window, int) or window <= 0 or not isinstance(block, int) or window >= block:
        return  # a window of 0 or less is SPEC018's (handle_speculative_decoding refuses it first)
    if cfg["draft_tokens"].origin == "assumed":
        yield unchecked(f"--speculative-draft-window-size {window} must be ≥ the DFLASH block size, which the draft's config.json "
                        f"gives (16 when it has none); give `--speculative-dflash-block-size` to check it", "draft_tokens")
        return
    yield Hit(messages.DFLASH_WINDOW_BLOCK.format(window=window, block=block),
              f"use `--speculative-draft-window-size {block}` or more", values=("draft_tokens",), at=_loc_of(cfg, "speculative_draft_window_size"))


@rule(
    "SPEC010", Severity.WARNING,
    consequence=Consequence.CRASHES_AT_CAPTURE,
    name="speculative-counts-positive",
    summary="every speculative count positive (S ≥ 1, K ≥ 1, D ≥ 2; NGRAM breadth ≥ 1)",
    what="""
        Steps, topk and draft tokens are counts: an EAGLE-family draft needs at least one
        step, one candidate per step and two verified tokens (one draft + the bonus token).
        NGRAM divides the draft tokens by the breadth. A draft-token count below 2 with
        `--speculative-eagle-topk 1` is left to SPEC002: SGLang replaces it by steps + 1.
    """,
    why="""
        SGLang has no generic check for EAGLE: zero or negative values pass argument
        resolution (SGLang starts its argument pipeline with them) and are expected to fail
        later (empty draft loops, zero-sized buffers, CUDA-graph capture); that failure is
        inferred, not a line of SGLang's, so it is a warning. An NGRAM breadth of 0 without
        `--speculative-num-steps` divides by zero in SGLang's resolution: an error.
    """,
    fix="Use positive values: e.g. `--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-algorithm NEXTN --speculative-num-steps 0 --speculative-eagle-topk 1 --speculative-num-draft-tokens 1",
    sources=(
        "0.5.23 `srt/arg_groups/speculative_hook.py:1072` `_handle_eagle_family` (no positivity check)",
        "0.5.23 `srt/arg_groups/speculative_hook.py:1324-1330` `_handle_ngram` (steps unset: `num_draft_tokens // topk`, topk = the breadth)",
        "0.5.23 `srt/arg_groups/speculative_hook.py:1255-1266` (topk 1: draft tokens := steps + 1, whatever was given)",
    ),
    inferred="The failure mode for non-positive EAGLE counts is inferred (SGLang does not check them).",
)
def spec010(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("spec_on"):
        return
    algo = cfg.v("speculative_algorithm")
    if algo in _EAGLE and not cfg.v("adaptive"):
        for dest, name, low in (("speculative_num_steps", "steps", 1), ("speculative_eagle_topk", "topk", 1), ("speculative_num_draft_tokens", "draft_tokens", 2)):
            val = cfg.parsed.value(dest)
            if name == "draft_tokens" and cfg.parsed.value("speculative_eagle_topk") == 1:
                continue  # topk 1: SGLang rewrites D to steps + 1 and starts (SPEC002 says so)
            if isinstance(val, int) and val < low:
                option = flagmod.spell(dest, cfg.version)
                yield Hit(f"`{option} {val}` must be ≥ {low}", f"set `{option} {max(low, {'steps': 3, 'topk': 1, 'draft_tokens': 4}[name])}`",
                          values=(name,), at=_loc_of(cfg, dest))
    elif algo == "NGRAM":
        b = cfg.v("ngram_breadth")
        if isinstance(b, int) and b < 1:
            if cfg.parsed.value("speculative_num_steps") is None:  # speculative_hook.py L1324-1330: ZeroDivisionError
                yield Hit(f"NGRAM breadth {b}: SGLang computes steps as draft tokens // breadth and stops with a ZeroDivisionError",
                          "set `--speculative-ngram-max-bfs-breadth 1` or more", values=("ngram_breadth",), severity=Severity.ERROR)
            else:
                yield Hit(f"NGRAM breadth {b}: no candidate per step (SGLang's resolution accepts it; the draft fails later)",
                          "set `--speculative-ngram-max-bfs-breadth 1` or more", values=("ngram_breadth",))


@rule(
    "SPEC012", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="steps-need-topk",
    summary="--speculative-num-steps given ⇒ --speculative-eagle-topk given (EAGLE family)",
    what="""
        SGLang only fills topk when it auto-chooses all three parameters (steps unset). With
        steps given and topk unset, topk stays None and the page-size/topk comparison fails.
    """,
    why="SGLang refuses to start with a TypeError.",
    sglang_message="TypeError: '>' not supported between instances of 'NoneType' and 'int'",
    fix="Give `--speculative-eagle-topk` (1 for a chain: draft tokens = steps + 1).",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NEXTN --speculative-num-steps 3",
    sources=(
        "0.5.19 `srt/arg_groups/speculative_hook.py:810` `_handle_eagle_family` (`speculative_eagle_topk > 1`)",
        "0.5.23 `srt/arg_groups/speculative_hook.py:1274` (and 1177 when trtllm_mha is a backend)",
    ),
    changes=("Same TypeError in 0.5.19–0.5.23 (0.5.20 line 988, 0.5.21 1162, 0.5.22 1184).",),
)
def spec012(cfg: Resolved) -> Iterator[Hit]:
    if Event.STEPS_WITHOUT_TOPK in cfg.events and _eagle(cfg):
        S = cfg.v("steps")
        yield Hit(
            f"`--speculative-num-steps {S}` without `--speculative-eagle-topk`: topk stays None and SGLang stops with TypeError: '>' not supported between instances of 'NoneType' and 'int'",
            f"add `--speculative-eagle-topk 1 --speculative-num-draft-tokens {S + 1}`",
            values=("steps", "topk"),
            at=_loc_of(cfg, "speculative_num_steps"),
        )


@rule(
    "SPEC013", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="tree-needs-draft-tokens",
    summary="topk > 1 ⇒ --speculative-num-draft-tokens given (EAGLE family)",
    what="""
        With topk > 1 SGLang does not derive the draft-token count (only topk 1 sets
        D = S + 1), so D stays unset and nothing sizes the verify width.
    """,
    why="""
        Hybrid (Mamba/linear-attention) models stop at start-up with a bare AssertionError in
        the state-cache sizing; other models fail when the draft worker is built.
    """,
    sglang_message="AssertionError  (no message; `assert get_spec().speculative_num_draft_tokens is not None`)",
    fix="Give `--speculative-num-draft-tokens` (≤ K + (S − 1)·K² + 1).",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 2",
    sources=(
        "0.5.19 `srt/mem_cache/kv_cache_configurator.py:2265` `_handle_max_mamba_cache`; 0.5.23 line 3300",
        "0.5.23 `srt/arg_groups/speculative_hook.py:1255` (D = S + 1 only when topk == 1)",
    ),
    inferred="For non-hybrid models the failure point (draft worker construction) is inferred.",
)
def spec013(cfg: Resolved) -> Iterator[Hit]:
    if Event.TREE_WITHOUT_DRAFT_TOKENS in cfg.events and _eagle(cfg):
        S, K = cfg.v("steps"), cfg.v("topk")
        where = "the hybrid state-cache sizing asserts (bare AssertionError)" if cfg.model is not None and cfg.model.hybrid else "the draft worker fails to build"
        d = min(K + (S - 1) * K * K + 1, 2 * S * K) if isinstance(S, int) and S >= 1 else 8
        yield Hit(
            f"topk {K} without `--speculative-num-draft-tokens`: D stays unset and {where}",
            f"add `--speculative-num-draft-tokens {d}`",
            values=("topk", "draft_tokens"),
            at=_loc_of(cfg, "speculative_eagle_topk"),
        )


_DFLASH_NO_DRAFT = "DFLASH speculative decoding requires setting --speculative-draft-model-path."
_DFLASH_PP = "Currently DFLASH speculative decoding only supports pp_size == 1."
_DFLASH_DP = "DFLASH with dp attention requires --enable-dp-lm-head."
_DFLASH_DP_OLD = "Currently DFLASH speculative decoding does not support dp attention."  # 0.5.19
_DFLASH_DP_OLD_NPU = "Currently DFLASH speculative decoding does not support dp attention on non-NPU devices."  # 0.5.20-0.5.22
_DSPARK_DP = "DSpark with dp attention requires --enable-dp-lm-head."
_DSPARK_NO_DRAFT = "DSpark dense speculative decoding requires setting --speculative-draft-model-path."
_UNO_DRAFT = "UNO reuses the target model and does not accept --speculative-draft-model-path."
_UNO_LORA = "UNO requires --uno-lora-path."


@rule(
    "SPEC014", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="algorithm-prerequisites",
    summary="each speculative algorithm's own start-up requirements (DFLASH, DSPARK, UNO), first refusal first",
    what="""
        DFLASH needs, under attention DP, `--enable-dp-lm-head` and no context parallel (before
        0.5.23 no attention DP at all), then pp_size 1 and a draft model path. DSPARK under
        attention DP needs `--enable-dp-lm-head`, a MoE all-to-all backend of none/megamoe
        (mori from 0.5.21), the static ragged verify mode when it uses one
        (`SGLANG_RAGGED_VERIFY_MODE`, read from the launch's environment), no context parallel
        and no other `--speculative-moe-a2a-backend`; before 0.5.21 pp_size 1; and a draft
        model path unless the target checkpoint bundles a DSpark draft (a warning: kdacheck
        cannot see the checkpoint's weights). UNO (0.5.20+) reuses the target model (no draft
        path), needs `--uno-lora-path`, refuses deterministic inference and strict thinking,
        needs `--speculative-num-draft-tokens` Q ≥ 1 and topk ≥ 1; with topk K > 1 (tree mode)
        `--speculative-num-steps` S ≥ 1, F = S + 1 ≤ Q ≤ 128, Q·K ≤ 2048, Q within the tree's
        capacity and Q − 1 ≤ K·(F − 2) + 1, no PDMux, no two-batch overlap and accept
        thresholds 1.0; then TP = PP = 1, no attention DP or context parallel, no Multi-LoRA,
        no rejection sampling and FA3 for prefill and decode attention. SGLang checks them in
        this order and stops at the first; so does this rule.
    """,
    why="SGLang refuses to start with a ValueError.",
    sglang_message="\n".join((_DFLASH_NO_DRAFT, _DFLASH_PP, _DFLASH_DP, messages.DFLASH_DP_CP, _DSPARK_DP, messages.DSPARK_DP_A2A,
                              messages.DSPARK_DP_RAGGED, messages.DSPARK_DP_CP, messages.DSPARK_DP_SPEC_A2A, messages.DSPARK_PP_OLD,
                              _DSPARK_NO_DRAFT, _UNO_DRAFT, _UNO_LORA, messages.UNO_DETERMINISTIC, messages.UNO_STRICT_THINKING,
                              messages.UNO_VERIFY_WIDTH, messages.UNO_TOPK, messages.UNO_TREE_STEPS, messages.UNO_TREE_STEPS_POSITIVE,
                              messages.UNO_TREE_Q_F, messages.UNO_TREE_Q_MAX, messages.UNO_TREE_QK, messages.UNO_TREE_CAPACITY,
                              messages.UNO_TREE_PARENTS, messages.UNO_TREE_PDMUX, messages.UNO_TREE_TBO, messages.UNO_TREE_THRESHOLDS,
                              messages.UNO_TP_PP, messages.UNO_DP_CP, messages.UNO_LORA, messages.UNO_REJECTION, messages.UNO_FA3)),
    fix="Add the flag SGLang names, or drop the one it refuses.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --speculative-algorithm DFLASH",
    sources=(
        "0.5.23 `srt/arg_groups/speculative_hook.py` L287-327 `_handle_dflash`",
        "0.5.23 `srt/arg_groups/speculative_hook.py` L666-760 `_handle_dspark`; 0.5.19 L338-408 (0.5.20 L523-590)",
        "0.5.23 `srt/arg_groups/speculative_hook.py` L449-612 `_handle_uno`; 0.5.20 L348-505",
        "0.5.23 `srt/arg_groups/model_override_base.py` L138-152 `attention_backends_of` (UNO's FA3 check)",
        "0.5.23 `srt/speculative/ragged_verify.py` L13-27, `srt/environ.py` L1572 (SGLANG_RAGGED_VERIFY_MODE, default static)",
    ),
    changes=(
        "0.5.20: the UNO algorithm and its checks",
        "0.5.21: DSPARK accepts the mori all-to-all backend under attention DP, and PP on a PD prefill server (PAR003)",
        "0.5.22: DSPARK's ragged-verify refusal gets its new words",
        "0.5.23: DFLASH accepts attention DP with --enable-dp-lm-head (before: refused)",
    ),
)
def spec014(cfg: Resolved) -> Iterator[Hit]:
    algo = cfg.v("speculative_algorithm")
    chain = {"DFLASH": dflash_prerequisites, "DSPARK": _dspark_refusals, "UNO": _uno_refusals}.get(str(algo))
    if chain is None or not cfg.v("spec_on") or (algo == "UNO" and not cfg.at_least(versions.UNO_ALGORITHM)):
        return
    for hit in chain(cfg):
        yield hit  # SGLang stops at its first refusal
        return


def dflash_prerequisites(cfg: Resolved) -> Iterator[Hit]:
    """_handle_dflash's refusals before the block size, in SGLang's order (0.5.23 L302-327)."""
    if cfg.v("dp_attention"):
        if not cfg.at_least(versions.DFLASH_DP_ATTENTION):
            yield Hit(_DFLASH_DP_OLD_NPU if cfg.at_least(versions.DFLASH_DP_NPU_WORDING) else _DFLASH_DP_OLD,
                      "drop `--enable-dp-attention` (DFLASH takes it from SGLang 0.5.23)", values=("dp_attention",))
        elif not cfg.user("enable_dp_lm_head"):
            yield Hit(_DFLASH_DP, "add `--enable-dp-lm-head`", values=("dp_attention",))
        elif (cfg.v("attn_cp_size") or 1) != 1:
            yield Hit(messages.DFLASH_DP_CP, "drop `--attn-cp-size` or `--enable-dp-attention`", values=("attn_cp_size",))
    if (cfg.v("pp_size") or 1) != 1:
        yield Hit(_DFLASH_PP, "use `--pp-size 1`", values=("pp_size",))
    if cfg.user("speculative_draft_model_path") is None:
        yield Hit(_DFLASH_NO_DRAFT, "add `--speculative-draft-model-path` (a DFLASH draft)", values=("speculative_algorithm",))


def _dspark_refusals(cfg: Resolved) -> Iterator[Hit]:
    """_handle_dspark's refusals before gamma, in SGLang's order (0.5.23 L675-755; 0.5.19 L347-408)."""
    if int(cfg.v("attn_dp_size") or 1) > 1 and cfg.v("dp_attention"):
        yield from _dspark_dp_refusals(cfg)
    if (cfg.v("pp_size") or 1) != 1 and not cfg.at_least(versions.DSPARK_MORI_PP_PREFILL):
        yield Hit(messages.DSPARK_PP_OLD, "use `--pp-size 1` (SGLang 0.5.21 accepts PP on a PD prefill server)", values=("pp_size",))
    draft = cfg.user("speculative_draft_model_path")
    if draft is None and (cfg.model is None or cfg.model.dspark_draft is None):
        yield Hit(f"{_DSPARK_NO_DRAFT} (unless the target checkpoint bundles a DSpark draft, which kdacheck cannot see)",
                  "add `--speculative-draft-model-path`", values=("speculative_algorithm",), severity=Severity.WARNING)
    elif draft is None and cfg.model is not None and cfg.model.dspark_draft is False:  # config.json read: no dspark_* key, no dspark/ folder
        yield Hit(_DSPARK_NO_DRAFT, "add `--speculative-draft-model-path`", values=("speculative_algorithm",))


def _dspark_dp_refusals(cfg: Resolved) -> Iterator[Hit]:
    """Under attention DP (0.5.23 L675-711): the LM head, the MoE all-to-all backend, the ragged
    verify mode (SGLANG_RAGGED_VERIFY_MODE, default static), context parallel, the draft's backend."""
    if not cfg.user("enable_dp_lm_head"):
        yield Hit(_DSPARK_DP, "add `--enable-dp-lm-head`", values=("dp_attention",))
    a2a = cfg.user("moe_a2a_backend") or "none"
    mori = cfg.at_least(versions.DSPARK_MORI_PP_PREFILL)
    if a2a not in (("none", "megamoe", "mori") if mori else ("none", "megamoe")):
        yield Hit((messages.DSPARK_DP_A2A if mori else messages.DSPARK_DP_A2A_OLD).format(a2a=a2a),
                  "use `--moe-a2a-backend none` (or megamoe" + (", mori)" if mori else ")"), values=("moe_a2a_backend",))
    from kdacheck.rules.specalgo import dp_spec_coordination

    mode = cfg.cmd.env.get("SGLANG_RAGGED_VERIFY_MODE")
    coordination = cfg.at_least(versions.DP_SPEC_COORDINATION) and dp_spec_coordination(cfg)
    if (a2a != "none" or coordination) and mode in ("cap-accept", "compact"):
        yield Hit(messages.DSPARK_DP_RAGGED if cfg.at_least(versions.DSPARK_RAGGED_NEW_WORDS)
                  else messages.DSPARK_DP_RAGGED_OLD.format(a2a=a2a), "drop `SGLANG_RAGGED_VERIFY_MODE` (static is the default)",
                  values=("moe_a2a_backend",))
    cp = cfg.v("attn_cp_size") or 1
    if cp > 1:
        yield Hit(messages.DSPARK_DP_CP.format(cp=cp), "drop `--attn-cp-size` or `--enable-dp-attention`", values=("attn_cp_size",))
    spec_a2a = cfg.user("speculative_moe_a2a_backend")
    if spec_a2a is not None and spec_a2a != a2a:
        yield Hit(messages.DSPARK_DP_SPEC_A2A.format(a2a=a2a, spec=spec_a2a), "drop `--speculative-moe-a2a-backend`",
                  values=("speculative_moe_a2a_backend",))


def _uno_refusals(cfg: Resolved) -> Iterator[Hit]:
    """_handle_uno's refusals in SGLang's order (0.5.23 L449-612; 0.5.20 L348-505)."""
    if cfg.user("speculative_draft_model_path") is not None:
        yield Hit(_UNO_DRAFT, "drop `--speculative-draft-model-path`", values=("speculative_draft_model_path",))
    if cfg.user("uno_lora_path") is None:
        yield Hit(_UNO_LORA, "add `--uno-lora-path`", values=("speculative_algorithm",))
    for dest, message in (("enable_deterministic_inference", messages.UNO_DETERMINISTIC), ("enable_strict_thinking", messages.UNO_STRICT_THINKING)):
        if cfg.user(dest):
            yield Hit(message, f"drop `{flagmod.spell(dest, cfg.version)}`", values=(dest,))
    Q = cfg.user("speculative_num_draft_tokens")
    if not cfg.given("speculative_num_draft_tokens") or (isinstance(Q, int) and Q < 1):
        yield Hit(messages.UNO_VERIFY_WIDTH, "add `--speculative-num-draft-tokens` (the verify width Q, e.g. 4)", values=("speculative_algorithm",))
    K = cfg.user("speculative_eagle_topk")
    K = 1 if K is None and not cfg.given("speculative_eagle_topk") else K
    if not isinstance(Q, int) or not isinstance(K, int):
        return  # a value not known statically: SGLang's later checks are not judged
    if K < 1:
        yield Hit(messages.UNO_TOPK.format(k=K), "use `--speculative-eagle-topk 1` (linear) or more (tree)", values=("speculative_eagle_topk",))
    if K > 1:
        tree = list(_uno_tree_refusals(cfg, Q, K))
        yield from tree
        if tree or not isinstance(cfg.user("speculative_num_steps"), int):
            return
    yield from _uno_setup_refusals(cfg)


def _uno_tree_refusals(cfg: Resolved, Q: int, K: int) -> Iterator[Hit]:
    """UNO tree mode (topk > 1): its width checks, then PDMux, TBO and the thresholds (0.5.23 L493-564)."""
    S = cfg.user("speculative_num_steps")
    if S is None:
        if not cfg.given("speculative_num_steps"):
            yield Hit(messages.UNO_TREE_STEPS, "add `--speculative-num-steps` (the draft width F − 1)", values=("speculative_eagle_topk",))
        return
    if S < 1:
        yield Hit(messages.UNO_TREE_STEPS_POSITIVE.format(s=S), "use `--speculative-num-steps 1` or more", values=("speculative_num_steps",))
    F = S + 1
    cap, nodes = 1, 1
    for _ in range(min(max(S, 0), 64)):  # SGLang stops once the capacity reaches Q (Q ≤ 128 by then)
        nodes *= K
        cap += nodes
        if cap >= Q:
            break
    parents = K * max(S - 1, 0) + 1
    checks = (
        (Q < F, messages.UNO_TREE_Q_F.format(q=Q, f=F), f"use `--speculative-num-draft-tokens {F}` or more"),
        (Q > 128, messages.UNO_TREE_Q_MAX.format(q=Q), "use `--speculative-num-draft-tokens 128` or fewer"),
        (Q * K > 2048, messages.UNO_TREE_QK.format(q=Q, k=K, qk=Q * K), f"keep Q·K ≤ 2048 (Q ≤ {2048 // K})"),
        (cap < Q, messages.UNO_TREE_CAPACITY.format(q=Q, cap=cap, f=F, k=K), f"use `--speculative-num-draft-tokens {cap}` or fewer"),
        (parents < Q - 1, messages.UNO_TREE_PARENTS.format(q1=Q - 1, width=parents, f=F, k=K),
         f"use `--speculative-num-draft-tokens {parents + 1}` or fewer, or more steps"),
        (bool(cfg.user("enable_pdmux")), messages.UNO_TREE_PDMUX, "drop `--enable-pdmux`, or use `--speculative-eagle-topk 1`"),
        (bool(cfg.user("enable_two_batch_overlap")), messages.UNO_TREE_TBO, "drop `--enable-two-batch-overlap`, or use `--speculative-eagle-topk 1`"),
        ((cfg.user("speculative_accept_threshold_single") or 1.0) != 1.0 or (cfg.user("speculative_accept_threshold_acc") or 1.0) != 1.0,
         messages.UNO_TREE_THRESHOLDS, "drop `--speculative-accept-threshold-single` / `--speculative-accept-threshold-acc`"),
    )
    for failed, message, fix in checks:
        if failed:
            yield Hit(message, fix, values=("draft_tokens",))


def _uno_setup_refusals(cfg: Resolved) -> Iterator[Hit]:
    """UNO after its widths: TP/PP, attention DP/CP, LoRA, rejection sampling, FA3 (0.5.23 L578-612)."""
    if (cfg.v("tp_size") or 1, cfg.v("pp_size") or 1) != (1, 1):
        yield Hit(messages.UNO_TP_PP, "use `--tp-size 1 --pp-size 1`", values=("tp_size", "pp_size"))
    # 0.5.20-0.5.21 read --enable-dp-attention itself; 0.5.22+ attn_dp_enabled_of: attention DP size > 1
    dp = int(cfg.v("attn_dp_size") or 1) > 1 if cfg.at_least(versions.UNO_ATTN_DP_SIZE) else bool(cfg.user("enable_dp_attention"))
    if dp or (cfg.v("attn_cp_size") or 1) != 1:
        yield Hit(messages.UNO_DP_CP, "drop `--enable-dp-attention` / `--attn-cp-size`", values=("dp_attention",))
    if cfg.user("enable_lora") or cfg.user("lora_paths"):
        yield Hit(messages.UNO_LORA, "drop `--enable-lora` / `--lora-paths` (UNO brings its own `--uno-lora-path`)", values=("speculative_algorithm",))
    if cfg.user("speculative_use_rejection_sampling"):
        yield Hit(messages.UNO_REJECTION, "drop `--speculative-use-rejection-sampling`", values=("speculative_algorithm",))
    base = cfg.v("attention_backend")
    prefill = cfg.v("prefill_attention_backend") or base
    decode = cfg.v("decode_attention_backend") or base
    if prefill is None or decode is None:
        yield unchecked("UNO needs FA3 for prefill and decode attention; the attention backend is not known (give `--attention-backend` or `--gpu`)")
    elif (prefill, decode) != ("fa3", "fa3"):
        yield Hit(messages.UNO_FA3.format(prefill=prefill, decode=decode), "use `--attention-backend fa3` (Hopper)", values=("attention_backend",))


# the hook each algorithm's target needs (attention_backend_setup.py configure_aux_hidden_state_capture)
_CAPTURE = {"EAGLE3": ("eagle3",), "DFLASH": ("dflash",), "DSPARK": ("dspark", "dflash")}


@rule(
    "SPEC015", Severity.ERROR,
    consequence=Consequence.REFUSES_MODEL,
    name="target-has-capture-hook",
    speculative=True, since=versions.CAPTURE_HOOKS_READ,
    summary="EAGLE3 / DFLASH / DSPARK ⇒ the target model class has the layer-capture hook",
    what="""
        EAGLE3 and the DFLASH family draft from the target's hidden states at chosen layers:
        at model-runner init SGLang asks the loaded target model for
        `set_eagle3_layers_to_capture` (EAGLE3), `set_dflash_layers_to_capture` (DFLASH) or
        either that or `set_dspark_layers_to_capture` (DSPARK). Which of SGLang's model
        classes have them is read from the wheel's `srt/models/` (their own methods and their
        base classes', one table per SGLang version from its wheel): Nemotron-H has the DFLASH
        hook but not EAGLE3's, Kimi-Linear only DSPARK's; Llama, Qwen3-Next and Qwen3.5 have both.
        Before 0.5.23 SGLang calls EAGLE3's hook unguarded (an AttributeError) and gives DFLASH
        and DSPARK one message. A class whose bases the table could
        not follow is not judged. An EAGLE3 draft whose config sets
        `eagle_config.use_aux_hidden_state: false` needs no hook; kdacheck does not read the
        draft's config for it.
    """,
    why="""
        SGLang refuses to start after its argument resolution passed and the target's weights
        are loaded: a ValueError at model-runner init, when the model is built.
    """,
    sglang_message="""
        Model {class} does not implement set_eagle3_layers_to_capture, which EAGLE3 aux hidden-state capture requires.
        Model {class} implements neither set_dspark_layers_to_capture nor set_dflash_layers_to_capture, one of which is required for DFLASH/DSPARK.
        '{class}' object has no attribute 'set_eagle3_layers_to_capture'
    """,
    fix="Use a speculative algorithm the model class supports (EAGLE/NEXTN-style MTP, or DFLASH where it has that hook), or a target that has the hook.",
    example="python -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --tp-size 2 --speculative-algorithm EAGLE3 --speculative-draft-model-path my-org/nemotron-eagle3 --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
    sources=(
        "0.5.23 `srt/model_executor/model_runner_components/attention_backend_setup.py:40-71` `configure_aux_hidden_state_capture`, "
        "called from `srt/model_executor/model_runner.py:1109` `init_attention_backends`",
        "0.5.23 `srt/model_executor/model_runner_components/spec_aux_hidden_state.py:180-195` (EAGLE3 turns the capture on), `:240-320` (DFLASH/DSPARK)",
        "0.5.19-0.5.22 `attention_backend_setup.py:54-66`: EAGLE3's hook called unguarded (an AttributeError), DFLASH and DSPARK one message",
        "`srt/models/*.py` per version (the hooks per class: `kdacheck/data/speculative_hooks-<version>.json`, from `benchmarks/sglang_diff/speculative_hooks.py` on each wheel)",
    ),
)
def spec015(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck import architectures

    algo = cfg.v("speculative_algorithm")
    if not cfg.v("spec_on") or algo not in _CAPTURE:
        return
    if cfg.model is None:  # only these algorithms need the architecture: said here, not by MODEL001
        yield unchecked(f"{algo} needs the target model class's capture hook; the model's architecture is not known")
        return
    hooks = architectures.capture_hooks(cfg.model.architecture, cfg.version)
    if hooks is None or not hooks.get("complete") or any(hooks.get(h) for h in _CAPTURE[algo]):
        return  # not a class SGLang registers, not fully read, or it has the hook
    cls = cfg.model.architecture
    checked = cfg.at_least(versions.CAPTURE_HOOK_CHECKED)
    neither = (f"Model {cls} implements neither set_dspark_layers_to_capture nor set_dflash_layers_to_capture, "
               "one of which is required for DFLASH/DSPARK.")
    if algo == "EAGLE3":
        msg = f"Model {cls} does not implement set_eagle3_layers_to_capture, which EAGLE3 aux hidden-state capture requires." \
            if checked else f"'{cls}' object has no attribute 'set_eagle3_layers_to_capture' (AttributeError)."
    else:
        msg = f"Model {cls} does not implement set_dflash_layers_to_capture, which DFLASH requires." \
            if checked and algo == "DFLASH" else neither
    has = [a for a, h in (("EAGLE3", "eagle3"), ("DFLASH", "dflash"), ("DSPARK", "dspark")) if hooks.get(h)]
    eagle = " / EAGLE / NEXTN" if hooks.get("embed_share") else ""  # SPEC016: EAGLE needs the embedding share
    yield Hit(
        f"{msg} SGLang raises it at model-runner init, after loading the weights ({hooks.get('class')})",
        f"use {' or '.join(has)}{eagle} (what {cls} supports)" if has or eagle
        else "use NGRAM, or a target model with the hook",
        values=("speculative_algorithm",),
        at=_loc_of(cfg, "speculative_algorithm"),
    )


_EAGLE_WORKERS = ("EAGLE", "EAGLE3")  # resolved algorithms (NEXTN is EAGLE) whose draft worker shares the target's embedding


@rule(
    "SPEC016", Severity.ERROR,
    consequence=Consequence.REFUSES_DRAFT,
    name="target-shares-embedding",
    speculative=True, since=versions.CAPTURE_HOOKS_READ,
    summary="EAGLE / EAGLE3 / NEXTN ⇒ the target model class hands its embedding and LM head to the draft",
    what="""
        The EAGLE draft workers (EAGLE, EAGLE3, and NEXTN, which SGLang resolves to EAGLE; also
        with `--enable-multi-layer-eagle`) bind the target's input embedding and LM head into the
        draft when its memory pools are allocated: they call the target model's
        `get_embed_and_head` (or `get_embed_and_head_for_draft`). Which of SGLang's model classes
        have it is read from the wheel's `srt/models/`: Kimi-Linear, Granite-4.0-H, LFM2,
        Jet-Nemotron, MiniCPM-SALA and the pure Mamba models do not; Qwen3-Next, Qwen3.5,
        Nemotron-H, Falcon-H1, DeepSeek and GLM do. STANDALONE drafts keep their own embedding and
        are not affected. A class whose bases the table could not follow is not judged.
    """,
    why="""
        SGLang refuses to start after its argument resolution passed and the weights are loaded:
        an AttributeError when the draft worker allocates its memory pools.
    """,
    sglang_message="'{class}' object has no attribute 'get_embed_and_head'",
    fix="Use a speculative algorithm that does not share the target's embedding (NGRAM; DSPARK or DFLASH where the model has their hook, SPEC015), or STANDALONE with its own draft model.",
    example="kdacheck lint examples/errors/SPEC016-kimi-linear-eagle.sh",
    sources=(
        "0.5.23 `srt/speculative/eagle_worker_v2.py:243-258` `alloc_memory_pool` → `:336-382` `init_lm_head`; "
        "`srt/speculative/multi_layer_eagle_worker_v2.py:368-379`",
        "0.5.23 `srt/speculative/pp_draft_embedding.py:79-99` `resolve_target_embed_and_head` (the AttributeError propagates "
        "unless this pipeline stage has no embedding)",
        "0.5.23 `srt/speculative/spec_info.py:311-372` `create_worker` (EAGLE / EAGLE3 → EAGLEWorkerV2 or MultiLayerEagleWorkerV2)",
        "0.5.19 `srt/speculative/eagle_worker_v2.py:287`, 0.5.20 `:321` (the target's `get_embed_and_head()` called directly)",
        "`srt/models/*.py` per version (`embed_share` per class: `kdacheck/data/speculative_hooks-<version>.json`)",
    ),
)
def spec016(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck import architectures

    algo = cfg.v("speculative_algorithm")
    if not cfg.v("spec_on") or algo not in _EAGLE_WORKERS:
        return
    if cfg.model is None:
        return  # MODEL001 says the model is unknown; SPEC015 says what EAGLE3 needs
    hooks = architectures.capture_hooks(cfg.model.architecture, cfg.version)
    if hooks is None or not hooks.get("complete") or hooks.get("embed_share", True):
        return  # not a class SGLang registers, not fully read, or it shares its embedding
    cls = cfg.model.architecture
    supported = [a for a, h in (("DSPARK", "dspark"), ("DFLASH", "dflash")) if hooks.get(h)]
    yield Hit(
        f"'{cls}' object has no attribute 'get_embed_and_head': the {algo} draft worker binds the target's embedding "
        f"and LM head into the draft, and SGLang raises it when the draft's memory pools are allocated, after loading "
        f"the weights ({hooks.get('class')})",
        f"use {' or '.join(supported)} (what {cls} supports), NGRAM, or STANDALONE with a draft model of its own"
        if supported else "use NGRAM, or STANDALONE with a draft model of its own",
        values=("speculative_algorithm",),
        at=_loc_of(cfg, "speculative_algorithm"),
    )


def deployed_version(cfg: Resolved) -> tuple[str, str]:
    """The SGLang version the launch runs and where it is read: an image tag's, any version
    (``Resolved.deployed``: 0.5.14 too, which kdacheck has no flag table for), unless
    ``--sglang-version`` chose the target; else the target version."""
    return cfg.deployed if cfg.deployed is not None else (cfg.version, "the target version")


@rule(
    "SPEC017", Severity.WARNING,
    consequence=Consequence.KNOWN_BUG,
    name="known-runtime-bug",
    speculative=True,
    summary="the launch meets a public SGLang bug report for its version (kdacheck/data/known_bugs.json)",
    what="""
        Some launches pass all of SGLang's argument checks and then crash or misbehave at run
        time because of a bug SGLang's maintainers know. `kdacheck/data/known_bugs.json` lists
        them as data: a version range (first affected, fixed in), a condition over the resolved
        launch (flag values, the environment variables a shell script sets, the model's family)
        and the public issue or pull request. The version is the image tag's where the launch
        names an image (any version, 0.5.14 as well), else the target version.
    """,
    why="""
        SGLang starts and then fails (a crash at warm-up, at CUDA-graph capture or at the first
        verify batch) as the linked report describes; a warning, since the report, not SGLang's
        source, is the evidence.
    """,
    fix="Upgrade to the version that fixes it (the finding names it), or apply the entry's workaround.",
    example="kdacheck lint examples/errors/SPEC017-ngram-torch-native.sh",
    sources=(
        "https://github.com/sgl-project/sglang/issues/34786 (fixed: 0.5.19 `srt/managers/schedule_batch.py` L2009 guard)",
        "https://github.com/sgl-project/sglang/issues/36481 (0.5.20 `srt/environ.py` L1310 SGLANG_RAGGED_VERIFY_MODE)",
        "https://github.com/sgl-project/sglang/issues/36352",
        "`kdacheck/data/known_bugs.json` (each entry its URL)",
    ),
)
def spec017(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck import known_bugs

    version, where = deployed_version(cfg)
    for bug in known_bugs.matching(cfg, version):
        fix = (f"upgrade SGLang to {bug.fixed} or later ({bug.url}); or {bug.workaround}" if bug.fixed
               else f"no released fix yet ({bug.url} is open): {bug.workaround}")
        names = tuple(p["value"] for p in bug.when if "value" in p)
        yield Hit(
            f"SGLang {version} ({where}) has a known bug for this launch: {bug.summary} ({bug.url}"
            + (f"; fixed in {bug.fixed})" if bug.fixed else "; open)"),
            fix, values=names,
        )
