"""SPEC (continued): SGLang's speculative checks that are not about (S, K, D) themselves: the
common checks of ``handle_speculative_decoding``, EAGLE's rejection sampling and NGRAM's
external SAM corpus. Each rule yields only the first refusal SGLang raises, in SGLang's order."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import messages, versions
from kdacheck.findings import Location, Severity
from kdacheck.resolve import Event, Resolved
from kdacheck.rules.base import Consequence, Hit, rule, unchecked

Refusal = tuple[str, str, tuple[str, ...]]  # SGLang's message, the fix, the values it read


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _loc(cfg: Resolved, dest: str) -> Location | None:
    g = cfg.written(dest)
    return g.loc if g is not None else None


def _algo(cfg: Resolved) -> str | None:
    """The resolved algorithm (NEXTN is EAGLE), None without speculative decoding."""
    return cfg.v("speculative_algorithm") if cfg.v("spec_on") else None


@rule(
    "SPEC018", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="speculative-common-checks",
    summary="the draft window and sink, block verification, skip-dp-mlp-sync, DP spec/prefill coordination and the PD decode radix cache, as SGLang checks them for every launch",
    what="""
        Before it hands over to the algorithm's own handler, SGLang's
        `handle_speculative_decoding` checks, in this order: on a PD decode server
        `--disaggregation-decode-enable-radix-cache` only with EAGLE/NEXTN, EAGLE3 or DSPARK
        (0.5.23); `--speculative-use-block-verification` only with EAGLE/NEXTN, EAGLE3, DFLASH
        or DSPARK (0.5.22+; without any speculative algorithm too); a positive
        `--speculative-draft-window-size`; a non-negative `--speculative-draft-sink-size` that
        comes with a window (0.5.21+); `--speculative-skip-dp-mlp-sync` only with EAGLE/NEXTN
        (an assertion, 0.5.19-0.5.22); with `SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION` set
        (read from the launch's environment; 0.5.21+) only single-layer EAGLE/NEXTN or EAGLE3,
        and DSPARK from 0.5.22. These checks run with or without speculative decoding.
    """,
    why="SGLang refuses to start with a ValueError (an AssertionError for --speculative-skip-dp-mlp-sync) while it resolves its arguments.",
    sglang_message="\n".join((messages.SPEC_PD_DECODE_RADIX, messages.SPEC_BLOCK_VERIFY_ALGO, messages.SPEC_WINDOW_POSITIVE,
                              messages.SPEC_SINK_NON_NEGATIVE, messages.SPEC_SINK_NEEDS_WINDOW, messages.SPEC_SKIP_DP_MLP_SYNC,
                              messages.DP_SPEC_COORDINATION)),
    fix="Drop the flag SGLang names, or use an algorithm it supports; give the window as a positive count and the sink with it.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NEXTN --speculative-draft-sink-size 4",
    sources=(
        "0.5.23 `srt/arg_groups/speculative_hook.py` L121-284 `handle_speculative_decoding` (L165-172 PD radix, L175-179 "
        "block verification, L203-206 window, L222-229 sink, L251-257 DP spec/prefill coordination); `srt/arg_groups/pipeline.py` L304-306 (run for every launch)",
        "0.5.22 `srt/arg_groups/speculative_hook.py` L161-165 block verification, L191 window, L210-214 sink, L239 skip-dp-mlp-sync",
        "0.5.21 `srt/arg_groups/speculative_hook.py` L169 window, L188-192 sink, L217 skip-dp-mlp-sync",
        "0.5.19 `srt/arg_groups/speculative_hook.py` L133-137 window, L166-170 skip-dp-mlp-sync (0.5.20 L137, L168)",
    ),
    changes=(
        "0.5.21: --speculative-draft-sink-size and its two checks; the DP spec/prefill coordination check (EAGLE, EAGLE3)",
        "0.5.22: --speculative-use-block-verification and its algorithm check; DP spec/prefill coordination allows DSPARK",
        "0.5.23: the PD decode radix-cache check; the --speculative-skip-dp-mlp-sync flag is gone",
    ),
)
def spec018(cfg: Resolved) -> Iterator[Hit]:
    for message, fix, values in common_refusals(cfg):
        yield Hit(message, fix, values=values, at=_loc(cfg, values[0]) if values else None)
        return


def common_refusals(cfg: Resolved) -> Iterator[Refusal]:
    """handle_speculative_decoding's refusals in SGLang's order (0.5.23 L165-257)."""
    algo = _algo(cfg)
    if (cfg.at_least(versions.SPEC_PD_DECODE_RADIX) and cfg.v("disaggregation_mode") == "decode"
            and cfg.user("disaggregation_decode_enable_radix_cache") and algo not in (None, "DSPARK", "EAGLE", "EAGLE3")):
        yield (messages.SPEC_PD_DECODE_RADIX.format(algo=algo),
               "drop `--disaggregation-decode-enable-radix-cache`, or use EAGLE/NEXTN, EAGLE3 or DSPARK",
               ("disaggregation_decode_enable_radix_cache",))
    if (cfg.at_least(versions.SPEC_BLOCK_VERIFICATION) and cfg.user("speculative_use_block_verification")
            and algo not in ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")):
        yield (messages.SPEC_BLOCK_VERIFY_ALGO, "drop `--speculative-use-block-verification`"
               + (f" (--speculative-algorithm {algo} has no block verification)" if algo else " (no speculative algorithm is given)"),
               ("speculative_use_block_verification",))
    window = _int(cfg.user("speculative_draft_window_size"))
    if window is not None and window <= 0:
        yield (messages.SPEC_WINDOW_POSITIVE.format(n=window), "give `--speculative-draft-window-size` a positive count, or drop it",
               ("speculative_draft_window_size",))
    if cfg.at_least(versions.SPEC_DRAFT_SINK) and cfg.given("speculative_draft_sink_size"):
        sink = _int(cfg.user("speculative_draft_sink_size"))
        if sink is not None and sink < 0:
            yield (messages.SPEC_SINK_NON_NEGATIVE.format(n=sink), "give `--speculative-draft-sink-size` 0 or more, or drop it",
                   ("speculative_draft_sink_size",))
        if sink is not None and not cfg.given("speculative_draft_window_size"):
            yield (messages.SPEC_SINK_NEEDS_WINDOW, "add `--speculative-draft-window-size`, or drop `--speculative-draft-sink-size`",
                   ("speculative_draft_sink_size",))
    if (not cfg.at_least(versions.SPEC_SKIP_DP_MLP_SYNC_GONE) and cfg.user("speculative_skip_dp_mlp_sync")
            and algo != "EAGLE"):
        yield (messages.SPEC_SKIP_DP_MLP_SYNC.format(algo=algo), "drop `--speculative-skip-dp-mlp-sync` (EAGLE/NEXTN only)",
               ("speculative_skip_dp_mlp_sync",))
    if cfg.at_least(versions.DP_SPEC_COORDINATION) and dp_spec_coordination(cfg):
        dspark = cfg.at_least(versions.DP_SPEC_COORDINATION_DSPARK)
        if algo not in (("EAGLE", "EAGLE3", "DSPARK") if dspark else ("EAGLE", "EAGLE3")) or cfg.user("enable_multi_layer_eagle"):
            yield (messages.DP_SPEC_COORDINATION if dspark else messages.DP_SPEC_COORDINATION_OLD,
                   "unset `SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION`, or use single-layer EAGLE/NEXTN, EAGLE3"
                   + (" or DSPARK" if dspark else ""), ("speculative_algorithm",))


def dp_spec_coordination(cfg: Resolved) -> bool:
    """SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION as the launch sets it (EnvBool, default off:
    0.5.23 ``srt/environ.py`` L1558, L143-150)."""
    value = cfg.cmd.env.get("SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION")
    return value is not None and value.strip().lower() in ("true", "1", "yes", "y")


def rejection_sampling(cfg: Resolved) -> bool:
    """Whether SGLang turns rejection sampling on: asked for, or (0.5.22+) implied by block
    verification for EAGLE/EAGLE3 (speculative_hook.py 0.5.23 L183-193). SGLang's own ROCm
    default (L1185-1204) turns it on only where nothing below refuses it."""
    if cfg.user("speculative_use_rejection_sampling"):
        return True
    return (cfg.at_least(versions.SPEC_BLOCK_VERIFICATION) and bool(cfg.user("speculative_use_block_verification"))
            and _algo(cfg) in ("EAGLE", "EAGLE3"))


def _thresholds(cfg: Resolved) -> tuple[object, object]:
    single, acc = cfg.user("speculative_accept_threshold_single"), cfg.user("speculative_accept_threshold_acc")
    return (1.0 if single is None else single), (1.0 if acc is None else acc)


@rule(
    "SPEC019", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="rejection-sampling-prerequisites",
    speculative=True,
    summary="rejection sampling ⇒ EAGLE/NEXTN or EAGLE3, topk 1, accept thresholds 1.0 (and no deterministic inference before 0.5.23)",
    what="""
        `--speculative-use-rejection-sampling` (also turned on by
        `--speculative-use-block-verification` for EAGLE/EAGLE3 from 0.5.22) is checked in
        `_handle_eagle_family`, in this order: the algorithm must be EAGLE (NEXTN) or EAGLE3
        (STANDALONE is refused), topk must be 1 (the resolved topk: an auto-chosen topk 4 for
        Llama/Grok counts), both accept thresholds must stay 1.0, and before 0.5.23
        `--enable-deterministic-inference` is refused after them (0.5.23 refuses it only off
        CUDA). NGRAM, DFLASH and DSPARK do not pass through this handler.
    """,
    why="SGLang refuses to start with a ValueError (NotImplementedError for the algorithm) while it resolves its arguments.",
    sglang_message="\n".join((messages.SPEC_REJECTION_ALGO, messages.SPEC_REJECTION_TOPK, messages.SPEC_REJECTION_THRESHOLDS,
                              messages.SPEC_REJECTION_DETERMINISTIC)),
    fix="Use EAGLE/NEXTN or EAGLE3 with `--speculative-eagle-topk 1` and the default accept thresholds, or drop `--speculative-use-rejection-sampling`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6 --speculative-use-rejection-sampling",
    sources=(
        "0.5.23 `srt/arg_groups/speculative_hook.py` L1206-1250 `_handle_eagle_family` (L1215 algorithm, L1221 topk, L1225 "
        "deterministic off CUDA, L1231 thresholds); L183-193 block verification turns it on",
        "0.5.19 `srt/arg_groups/speculative_hook.py` L745-781 (0.5.20 L929-959, 0.5.21 L1103-1133, 0.5.22 L1125-1155)",
        "0.5.23 `srt/speculative/spec_info.py` `handle_server_args` (EAGLE, EAGLE3 and STANDALONE reach `_handle_eagle_family`)",
    ),
    changes=(
        "0.5.22: --speculative-use-block-verification turns rejection sampling on for EAGLE/EAGLE3",
        "0.5.23: deterministic inference with rejection sampling is accepted on CUDA (refused only off CUDA)",
    ),
)
def spec019(cfg: Resolved) -> Iterator[Hit]:
    algo = _algo(cfg)
    if algo not in ("EAGLE", "EAGLE3", "STANDALONE") or not rejection_sampling(cfg) or _eagle_family_stopped(cfg, algo):
        return
    asked = "--speculative-use-rejection-sampling" if cfg.user("speculative_use_rejection_sampling") \
        else "--speculative-use-block-verification (which turns rejection sampling on)"
    for message, fix, values in _rejection_refusals(cfg, algo, asked):
        yield Hit(message, fix, values=values, at=_loc(cfg, values[0]) if values else None)
        return


def _eagle_family_stopped(cfg: Resolved, algo: str) -> bool:
    """Whether _handle_eagle_family stops before its rejection-sampling checks (0.5.23 L1078-1182):
    STANDALONE under attention DP (SPEC006), the bare assertion on topk or draft tokens without steps
    (SPEC001), trtllm_mha with topk > 1 (SPEC005)."""
    if algo == "STANDALONE" and cfg.v("dp_attention"):
        return True
    if Event.TOPK_OR_DRAFT_WITHOUT_STEPS in cfg.events:
        return True
    K = cfg.v("topk")
    trtllm = any(cfg.v(n) == "trtllm_mha" for n in ("attention_backend", "prefill_attention_backend", "decode_attention_backend"))
    return trtllm and isinstance(K, int) and K > 1


def _rejection_refusals(cfg: Resolved, algo: str, asked: str) -> Iterator[Refusal]:
    if algo not in ("EAGLE", "EAGLE3"):
        yield (messages.SPEC_REJECTION_ALGO.format(algo=algo), f"drop {asked}, or use EAGLE/NEXTN or EAGLE3",
               ("speculative_algorithm",))
    K = cfg.v("topk")
    if K != 1:
        why = "" if cfg.given("speculative_eagle_topk") else f" (topk {K}: {cfg['topk'].why})" if "topk" in cfg else ""
        yield (messages.SPEC_REJECTION_TOPK + why,
               f"use `--speculative-eagle-topk 1` (a chain), or drop {asked}", ("speculative_eagle_topk",))
    single, acc = _thresholds(cfg)
    if single != 1.0 or acc != 1.0:
        names = [f"--speculative-accept-threshold-{n}" for n, v in (("single", single), ("acc", acc)) if v != 1.0]
        yield (messages.SPEC_REJECTION_THRESHOLDS, f"drop {' and '.join(f'`{n}`' for n in names)}, or drop {asked}",
               ("speculative_accept_threshold_single" if single != 1.0 else "speculative_accept_threshold_acc",))
    if cfg.user("enable_deterministic_inference") and not cfg.at_least(versions.REJECTION_DETERMINISTIC_CUDA_OK):
        yield (messages.SPEC_REJECTION_DETERMINISTIC, f"drop `--enable-deterministic-inference` or {asked} "
               "(SGLang 0.5.23 accepts both on CUDA)", ("enable_deterministic_inference",))


@rule(
    "SPEC020", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="ngram-external-corpus",
    speculative=True,
    summary="NGRAM with --speculative-ngram-external-corpus-path ⇒ a SAM budget in 1..D − 1 and a positive corpus size",
    what="""
        With an external corpus for NGRAM (`--speculative-ngram-external-corpus-path`) SGLang
        checks, in this order: `--speculative-ngram-external-sam-budget` is positive (its
        default is 0, so the corpus path alone is refused),
        `--speculative-ngram-external-corpus-max-tokens` is positive, and the budget is at most
        the draft tokens − 1 (NGRAM's D: `--speculative-num-draft-tokens`, else 12).
    """,
    why="SGLang refuses to start with a ValueError while it resolves its arguments.",
    sglang_message="\n".join((messages.NGRAM_SAM_BUDGET, messages.NGRAM_CORPUS_MAX_TOKENS, messages.NGRAM_SAM_BUDGET_DRAFT)),
    fix="Give `--speculative-ngram-external-sam-budget` between 1 and the draft tokens − 1 (and a positive corpus size), or drop the corpus path.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /data/corpus.jsonl",
    sources=(
        "0.5.23 `srt/arg_groups/speculative_hook.py` L1331-1349 `_handle_ngram` (after D = 12 by default, L1310-1319)",
        "0.5.19 `srt/arg_groups/speculative_hook.py` L867-885 (0.5.20 L1047-1060: the same checks)",
        "0.5.23 `srt/arg_groups/fields/` (`speculative_ngram_external_sam_budget` default 0)",
    ),
)
def spec020(cfg: Resolved) -> Iterator[Hit]:
    if _algo(cfg) != "NGRAM" or cfg.user("speculative_ngram_external_corpus_path") is None:
        return
    breadth = cfg.v("ngram_breadth")
    if isinstance(breadth, int) and breadth < 1 and not cfg.given("speculative_num_steps"):
        return  # SGLang divides by the breadth first (L1324-1330): a ZeroDivisionError, SPEC010's
    budget = _int(cfg.user("speculative_ngram_external_sam_budget"))
    budget = 0 if budget is None and not cfg.given("speculative_ngram_external_sam_budget") else budget
    tokens = _int(cfg.user("speculative_ngram_external_corpus_max_tokens"))
    tokens = 10_000_000 if tokens is None and not cfg.given("speculative_ngram_external_corpus_max_tokens") else tokens
    D = _int(cfg.v("draft_tokens"))
    if budget is not None and budget <= 0:
        yield Hit(messages.NGRAM_SAM_BUDGET, f"add `--speculative-ngram-external-sam-budget {max(1, (D or 12) - 1)}`",
                  values=("speculative_ngram_external_corpus_path",), at=_loc(cfg, "speculative_ngram_external_corpus_path"))
    elif tokens is not None and tokens <= 0:
        yield Hit(messages.NGRAM_CORPUS_MAX_TOKENS, "give `--speculative-ngram-external-corpus-max-tokens` a positive count, or drop it",
                  values=("speculative_ngram_external_corpus_max_tokens",), at=_loc(cfg, "speculative_ngram_external_corpus_max_tokens"))
    elif budget is not None and D is not None and budget > D - 1:
        yield Hit(messages.NGRAM_SAM_BUDGET_DRAFT.format(limit=D - 1) + f" (budget {budget}, draft tokens {D})",
                  f"use `--speculative-ngram-external-sam-budget {D - 1}`, or raise `--speculative-num-draft-tokens` to {budget + 1}",
                  values=("speculative_ngram_external_sam_budget", "draft_tokens"), at=_loc(cfg, "speculative_ngram_external_sam_budget"))


@rule(
    "SPEC021", Severity.ERROR,
    consequence=Consequence.REFUSES_DRAFT,
    name="multi-layer-eagle-chain-width",
    speculative=True,
    summary="--enable-multi-layer-eagle ⇒ draft tokens = steps + 1 (also with topk > 1)",
    what="""
        Multi-layer EAGLE (`--enable-multi-layer-eagle` with EAGLE/NEXTN or EAGLE3) runs one
        draft layer per step and verifies steps + 1 tokens. With topk 1 SGLang sets the draft
        tokens to steps + 1 itself; with topk > 1 it keeps `--speculative-num-draft-tokens`,
        and the multi-layer draft worker asserts the two agree when it is built.
    """,
    why="SGLang's argument resolution passes; the server stops with an AssertionError when it builds the draft worker, after the target's weights are loaded.",
    sglang_message=messages.MULTI_LAYER_EAGLE_WIDTH,
    fix="Set `--speculative-num-draft-tokens` to steps + 1, or drop `--enable-multi-layer-eagle`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --speculative-algorithm NEXTN --enable-multi-layer-eagle --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6",
    sources=(
        "0.5.23 `srt/speculative/multi_layer_eagle_worker_v2.py` L150-154 `MultiLayerEagleDraftWorker.__init__` "
        "(0.5.19 L145-149, 0.5.20 L148-152, 0.5.21-0.5.22 L147-151)",
        "0.5.23 `srt/speculative/spec_info.py` L352-359 `create_worker` (EAGLE/EAGLE3 with multi-layer EAGLE: the V2 multi-layer worker, overlap or not)",
        "0.5.23 `srt/arg_groups/speculative_hook.py` L1252-1266 (topk 1: draft tokens := steps + 1)",
    ),
)
def spec021(cfg: Resolved) -> Iterator[Hit]:
    if _algo(cfg) not in ("EAGLE", "EAGLE3") or not cfg.user("enable_multi_layer_eagle"):
        return
    S, D = _int(cfg.v("steps")), _int(cfg.v("draft_tokens"))
    if S is None or D is None or D == S + 1:
        return
    yield Hit(messages.MULTI_LAYER_EAGLE_WIDTH.format(d=D, s=S) + " (when SGLang builds the multi-layer draft worker)",
              f"use `--speculative-num-draft-tokens {S + 1}`", values=("draft_tokens", "steps"),
              at=_loc(cfg, "speculative_num_draft_tokens"), sets=(("--speculative-num-draft-tokens", str(S + 1), False),))


@rule(
    "SPEC022", Severity.ERROR,
    consequence=Consequence.REFUSES_DRAFT,
    name="standalone-draft-vocabulary",
    speculative=True,
    summary="STANDALONE: the draft checkpoint's vocab_size must be the target's",
    what="""
        STANDALONE speculative decoding drafts with a separate small model and hands its token
        ids to the target as they are. When SGLang builds the STANDALONE worker it compares the
        two models' `vocab_size` (each from its text config, as SGLang's ModelConfig reads it)
        and refuses when they differ. kdacheck reads both config.json files where it can (the
        draft from a local folder inside the tree or the Hugging Face cache); the token-to-id
        maps of the two tokenizers, which SGLang compares next, are not read.
    """,
    why="SGLang's argument resolution passes; the server stops with a ValueError when it builds the speculative worker, after the target's and the draft's weights are loaded.",
    sglang_message=messages.STANDALONE_VOCAB,
    fix="Draft with a model of the target's own vocabulary (its family's small model), or use an algorithm that maps vocabularies.",
    example="python -m sglang.launch_server --model-path tests/data/models/qwen3-next-80b --tp-size 4 --speculative-algorithm STANDALONE --speculative-draft-model-path tests/data/models/llama-3-8b --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
    sources=(
        "0.5.23 `srt/speculative/standalone_worker_v2.py` L169-199 `StandaloneWorkerV2.__init__`, `_validate_vocab_compatibility` "
        "(the same in 0.5.19-0.5.22)",
        "0.5.23 `srt/speculative/spec_info.py` L365-368 `create_worker` (STANDALONE: the V2 standalone worker)",
        "0.5.23 `srt/configs/model_config.py` (`vocab_size = hf_text_config.vocab_size`)",
    ),
    inferred="Where either config.json is not read (a Hub id not in the cache, a vocab_size the config does not state), not judged: said as could not be checked.",
)
def spec022(cfg: Resolved) -> Iterator[Hit]:
    if _algo(cfg) != "STANDALONE" or cfg.model is None:
        return
    target, draft = cfg.model.vocab_size, cfg.draft_vocab
    if (target is None or draft is None) and cfg.user("speculative_draft_model_path") is not None:
        unread = "the draft's config.json was not read (not in the tree or the Hugging Face cache)" if draft is None \
            else "the target's config does not give vocab_size"
        yield unchecked(f"STANDALONE needs the draft's vocab_size to be the target's; {unread}", "speculative_algorithm")
        return
    if target is None or draft is None or target == draft:
        return
    yield Hit(messages.STANDALONE_VOCAB.format(target=target, draft=draft), "draft with a model whose vocab_size is the target's",
              values=("speculative_algorithm",), at=_loc(cfg, "speculative_draft_model_path"))
