"""SPEC: the speculative parameters (S, K, D) and how SGLang resolves them."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck.findings import Severity
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Hit, rule

_HOOK = "0.5.23 `srt/arg_groups/speculative_hook.py` `_handle_eagle_family`"


@rule(
    "SPEC001", Severity.ERROR,
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
    if "SPEC001" not in cfg.events:
        return
    given = [d for d in ("speculative_eagle_topk", "speculative_num_draft_tokens") if cfg.given(d)]
    names = " and ".join(f"`{cfg.parsed.given[d].flag.name}`" for d in given)
    topk, draft = cfg.parsed.value("speculative_eagle_topk"), cfg.parsed.value("speculative_num_draft_tokens")
    if draft is not None and topk in (None, 1):
        fix = f"add `--speculative-num-steps {max(1, draft - 1)}`"
    else:
        fix = "add `--speculative-num-steps 3`"
    yield Hit(
        f"{names} given without `--speculative-num-steps`: SGLang stops at start with a bare AssertionError",
        fix,
        values=("topk", "draft_tokens", "steps"),
        at=cfg.parsed.given[given[0]].loc,
    )


@rule(
    "SPEC002", Severity.WARNING,
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
    if "SPEC002" not in cfg.events:
        return
    given = cfg.parsed.value("speculative_num_draft_tokens")
    d = cfg.v("draft_tokens")
    yield Hit(
        f"`--speculative-num-draft-tokens {given}` with topk 1 and {cfg.v('steps')} steps: SGLang uses {d} instead",
        f"set `--speculative-num-draft-tokens {d}`",
        values=("draft_tokens", "steps", "topk"),
        at=cfg.parsed.given["speculative_num_draft_tokens"].loc,
    )


@rule(
    "SPEC011", Severity.INFO,
    summary="--max-running-requests unset under speculation: 48 applies",
    what="""
        With speculative decoding on and no `--max-running-requests`, SGLang caps running
        requests at 48 (per server; divided among attention-DP workers). The scratch buffers
        are sized from it.
    """,
    why="A silent default that sizes the verify buffers and the batch.",
    fix="Set `--max-running-requests` explicitly if 48 is not what you want.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --speculative-algorithm EAGLE",
    sources=("0.5.23 `srt/arg_groups/speculative_hook.py` (max_running_requests default 48)",),
)
def spec011(cfg: Resolved) -> Iterator[Hit]:
    if cfg.v("spec_on") and not cfg.given("max_running_requests"):
        yield Hit(
            f"max running requests = 48 (SGLang's default under speculative decoding); R = {cfg.v('R')} per attention-DP worker",
            None,
            values=("max_running_requests", "R"),
        )
