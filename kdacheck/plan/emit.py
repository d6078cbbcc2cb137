"""What ``kdacheck plan`` prints and writes: the table (rich), JSON, and the chosen launch as a
shell script or a SGLang ``--config`` YAML file that ``kdacheck lint`` passes. Files are
written only through ``kdacheck.writes`` (inside the working directory's repository, no link
followed, by rename); ``-`` is standard output. Every string from the input passes
``kdacheck.sanitize`` before a terminal sees it."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import IO, Any

from kdacheck.plan.engine import Candidate, Result
from kdacheck.plan.judge import LAUNCHER, argv
from kdacheck.sanitize import CONTROL, json_text, visible, visible_line

ESTIMATE = ("The ranking is an estimate (docs/plan.md): memory-bound verify steps, a per-token acceptance rate, "
            "no prefill, network or scheduler effects. Every listed launch lints with 0 errors and 0 warnings "
            "at this SGLang version; memory figures are lint's for the same line.")


def candidate_doc(c: Candidate, rank: int) -> dict[str, Any]:
    s = c.score
    return {
        "rank": rank, "label": c.label, "launch": c.text, "argv": argv(c.verdict.flags), "pareto": c.pareto,
        "served_requests": c.served, "memory_gib": c.memory, "kv_tokens_per_request": c.kv_tokens_per_request,
        "findings": [{"code": f.code, "severity": f.severity.label} for f in c.verdict.findings],
        "not_checked": c.verdict.not_checked,
        "estimate": {"acceptance": s.alpha, "acceptance_source": s.alpha_source, "tokens_per_step": round(s.tau, 3),
                     "bytes_per_step": s.step_bytes, "kernel_bytes_per_step": s.kernel_bytes, "step_s": s.step_s,
                     "throughput_tokens_per_s_per_gpu": round(s.throughput, 1), "latency_s_per_token": s.latency_s,
                     "bytes": s.how},
        **({"sglang": c.sglang} if c.sglang is not None else {}),
        **({"run": c.run} if c.run is not None else {}),
    }


def document(res: Result, top: int | None = None) -> dict[str, Any]:
    cands = res.candidates if top is None else res.candidates[:top]
    return {
        "schema": "kdacheck-plan/1",
        "model": visible(res.model.name), "model_source": visible(res.model_note), "architecture": res.model.architecture,
        "gpu": res.request.gpu, "sglang_version": res.version,
        "lint_with": [visible(o) for o in res.lint_options],
        "counts": {"considered": res.counts.considered, "pruned": res.counts.pruned, "linted": res.counts.linted,
                   "kept": res.counts.kept, "pruned_why": res.counts.why_pruned},
        "budget_spent": res.budget_spent, "min_context": res.request.min_context, "kv_bytes_per_token": visible(res.kv_how),
        "notes": [visible(n) for n in res.notes], "estimate": ESTIMATE,
        "candidates": [candidate_doc(c, i + 1) for i, c in enumerate(cands)],
    }


def render_json(res: Result, out: IO[str], top: int | None = None) -> None:
    out.write(json_text(document(res, top), ensure_ascii=True))
    out.write("\n")


def render_table(res: Result, out: IO[str], top: int = 10) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, width=max(100, min(220, os.get_terminal_size(out.fileno()).columns if out.isatty() else 200)),
                      highlight=False, soft_wrap=False, emoji=False, markup=False)
    c = res.counts
    console.print(f"kdacheck plan: {visible_line(res.model.name)} ({res.model.architecture}) on {res.request.gpu}, SGLang {res.version}")
    console.print(f"candidates: {c.considered} considered, {c.pruned} pruned, {c.linted} linted, {c.kept} kept"
                  + (" (time budget or candidate cap reached)" if res.budget_spent else ""))
    table = Table(show_lines=False)
    for col in ("#", "front", "launch", "R", "served", "KV tok/req", "weights", "state pool", "spec reserve", "KV cache",
                "outside", "tok/step", "thr proxy tok/s/GPU", "lat proxy ms/tok"):
        table.add_column(col, overflow="fold")
    for i, cand in enumerate(res.candidates[:top], 1):
        m, s = cand.memory, cand.score
        table.add_row(str(i), "*" if cand.pareto else "", visible_line(cand.label), str(m["R"]), str(cand.served),
                      "?" if cand.kv_tokens_per_request is None else f"{cand.kv_tokens_per_request:,}",
                      f"{m['weights_gib']:.1f}", f"{m['state_pool_gib']:.1f}", f"{m['spec_reserve_gib']:.1f}",
                      f"{m['kv_rest_gib']:.1f}", f"{m['outside_static_gib']:.1f}", f"{s.tau:.2f}", f"{s.throughput:,.0f}", f"{s.latency_s * 1e3:.2f}")
    console.print(table)
    console.print("R: requests per scheduler (lint's R); served: R × DP replicas × attention-DP workers; memory per rank in GiB (outside: the share outside the static pool, 1 − mem_fraction_static)" + ("" if res.candidates[0].memory["source"].startswith("lint")
                                              else f" ({res.candidates[0].memory['source']})"))
    for n in res.notes:
        console.print(f"note: {visible_line(n)}")
    for i, cand in enumerate(res.candidates[:top], 1):
        if cand.sglang is not None:  # --sglang: SGLang's verdict on the line, and why where it is not "starts"
            why = cand.sglang.get("error")
            console.print(f"--sglang #{i}: {visible_line(str(cand.sglang.get('verdict')))}" + (f": {visible_line(why)}" if why else ""))
    algos = {cand.score.alpha_source for cand in res.candidates[:top]}
    for a in sorted(algos):
        console.print(f"acceptance: {visible_line(a)}")
    console.print(ESTIMATE)
    best = res.candidates[0]
    console.print(f"chosen: {visible_line(best.text)}")
    console.print(f"check it: kdacheck lint --cmd '<the line>' {visible_line(' '.join(res.lint_options))}")


def shell_text(c: Candidate, res: Result) -> str:
    """The chosen launch as a bash script, each word as ``shlex.quote`` writes it: a file gets
    the values' very bytes, as an operator would paste them (standard output: :func:`on_terminal`)."""
    import shlex

    words = [*LAUNCHER, *argv(c.verdict.flags)]
    body, line = [], ""
    for w in (shlex.quote(x) for x in words):
        if line and (w.startswith("--") or len(line) > 100):
            body.append(line)
            line = "  " + w
        else:
            line = f"{line} {w}" if line else w
    body.append(line)
    return ("#!/usr/bin/env bash\n"
            f"# kdacheck plan: {visible_line(c.label)}; SGLang {res.version}, {res.request.gpu}\n"
            "set -euo pipefail\n" + " \\\n".join(body) + "\n")


def yaml_text(c: Candidate, res: Result) -> str:
    """A SGLang ``--config`` file: one ``key: value`` per flag (a switch is ``true``)."""
    lines = [f"# kdacheck plan: {visible_line(c.label)}; SGLang {res.version}, {res.request.gpu}",
             "# launch: python3 -m sglang.launch_server --config <this file>"]
    for option, value in c.verdict.flags:
        key = option[2:]
        if value is None:
            lines.append(f"{key}: true")
        elif isinstance(value, tuple):
            lines.append(f"{key}: [{', '.join(v if _number(v) else json.dumps(v) for v in value)}]")
        elif _number(value):
            lines.append(f"{key}: {value}")
        else:
            lines.append(f"{key}: {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip() == text and text.lower() not in ("nan", "inf", "-inf", "infinity", "+inf")


def _ansi_c(m: re.Match[str]) -> str:
    return "'$'" + "".join(f"\\x{b:02x}" for b in m.group().encode("utf-8", "surrogateescape")) + "''"


def on_terminal(text: str) -> str:
    """``text`` as standard output shows it: each control or format character (from an
    ``--args`` value; ``shell_text`` leaves one only inside a single-quoted word, ``yaml_text``
    none) spliced out of its quotes as bash's ``$'\\xNN'``, so the line pasted from the
    terminal gives SGLang the same bytes and the terminal gets no escape sequence."""
    return CONTROL.sub(_ansi_c, text)


def write(path: str, text: str, allow_outside: bool = False) -> None:
    """``-`` to standard output (:func:`on_terminal`); a file, as it is, through
    ``kdacheck.writes`` (Refused: exit 2)."""
    if path == "-":
        sys.stdout.write(on_terminal(text))
        sys.stdout.flush()
        return
    from kdacheck import confine, writes

    writes.replace(path, text.encode(), confine.repository_root(os.getcwd()), allow_outside=allow_outside)
