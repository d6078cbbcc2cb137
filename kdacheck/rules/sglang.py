"""SGLANG: what SGLang's own resolution says (``kdacheck lint --sglang``, kdacheck.sglang)."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck.findings import Severity
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Hit, rule


@rule(
    "SGLANG001", Severity.ERROR,
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
    "SGLANG002", Severity.WARNING,
    name="sglang-resolves-differently",
    summary="a value SGLang resolves differently from kdacheck (--sglang)",
    what="""
        With `--sglang`, every field both resolve (steps, topk, draft tokens, TP, DP, attention
        DP, page size, running requests, the attention and linear-attention backends, the radix
        cache and its strategy, the overlap schedule, the SSM dtype) is compared. A difference
        means kdacheck's checks ran on a value the server does not use: please report it.
    """,
    why="kdacheck's verdicts are only as good as its copy of SGLang's resolution.",
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
        yield Hit(f"SGLang resolves {field} = {theirs!r}; kdacheck resolved {mine!r}",
                  "trust SGLang's value, and report the difference to kdacheck")
