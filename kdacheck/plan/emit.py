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
from kdacheck.plan.judge import line as launch_line
from kdacheck.plan.space import Flags
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
                     "tokens_per_s_per_user": round(s.per_user, 1),
                     "bytes": s.how},
        **({"prefill": {"launch": launch_line(c.pair.prefill), "argv": argv(c.pair.prefill)}} if c.pair is not None else {}),
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


def render_error(message: str, out: IO[str]) -> None:
    """Exit 2 with ``--output-format json``: a JSON document saying why (no candidates)."""
    doc = {"schema": "kdacheck-plan/1", "error": visible(message), "exit_code": 2, "candidates": []}
    out.write(json_text(doc, ensure_ascii=True))
    out.write("\n")


def _score_key(c: Candidate) -> tuple[float, float, float]:
    s = c.score
    return (round(s.throughput, 3), round(s.latency_s * 1e6, 3), round(s.tau, 6))


def collapsed(cands: list[Candidate]) -> list[tuple[Candidate, int]]:
    """Each candidate with a score of its own, and how many more ranked below it score the same
    (the same throughput, latency and tokens per step: lines that differ only in dimensions the
    ranking does not see, e.g. the memory fraction or chunked prefill at the same R and
    speculative setting). The first, the best ranked, stands for them."""
    first: dict[tuple[float, float, float], int] = {}
    out: list[tuple[Candidate, int]] = []
    for c in cands:
        k = _score_key(c)
        if k in first:
            c0, n = out[first[k]]
            out[first[k]] = (c0, n + 1)
        else:
            first[k] = len(out)
            out.append((c, 0))
    return out


WIDTH = 80  # the default view's columns (--wide: up to the terminal's, 220 at most)
COLUMNS_WIDE = ("#", "front", "launch", "R", "served", "KV tok/req", "weights", "state pool", "spec reserve", "KV cache",
                "outside", "tok/step", "thr proxy tok/s/GPU", "lat proxy ms/tok", "alike")
COLUMNS = ("#", "*", "candidate", "R", "KV tok/req", "tok/s/GPU", "tok/s/user", "alike")


# The default view's short names of the searched flags (the wide view and JSON spell them whole)
SHORT = (("mamba-ssm-dtype ", "ssm "), ("mamba-radix-cache-strategy ", "radix "), ("disable-overlap-schedule", "no-overlap"),
         ("chunked-prefill-size ", "chunk "), ("mem-fraction-static ", "mem "), ("linear-attn-verify-backend ", "verify "),
         ("linear-attn-decode-backend ", "decode "), ("mamba-track-interval ", "track "), ("page-size ", "page "),
         ("enable-hisparse", "hisparse"), ("disable-radix-cache", "no-radix"), ("bfloat16", "bf16"), ("float32", "fp32"))


def short_label(label: str) -> str:
    for long, short in SHORT:
        label = label.replace(long, short)
    return label


def _row(i: int, cand: Candidate, alike: int, wide: bool) -> tuple[str, ...]:
    m, s = cand.memory, cand.score
    kv = "?" if cand.kv_tokens_per_request is None else f"{cand.kv_tokens_per_request:,}"
    more = f"+{alike}" if alike else ""
    if not wide:
        return (str(i), "*" if cand.pareto else "", visible_line(short_label(cand.label)), str(m["R"]), kv, f"{s.throughput:,.0f}",
                f"{s.per_user:,.0f}", more)
    return (str(i), "*" if cand.pareto else "", visible_line(cand.label), str(m["R"]), str(cand.served), kv,
            f"{m['weights_gib']:.1f}", f"{m['state_pool_gib']:.1f}", f"{m['spec_reserve_gib']:.1f}", f"{m['kv_rest_gib']:.1f}",
            f"{m['outside_static_gib']:.1f}", f"{s.tau:.2f}", f"{s.throughput:,.0f}", f"{s.latency_s * 1e3:.2f}", more)


def render_table(res: Result, out: IO[str], top: int = 10, wide: bool = False) -> None:
    """The plan for a reader: an 80-column table of the candidates (``wide``: every memory
    column), one row per score (near-duplicates counted under ``alike``), the notes, and the
    chosen launch, pastable, with its per-rank memory picture (:func:`chosen_lines`)."""
    from rich.console import Console
    from rich.table import Table

    term = os.get_terminal_size(out.fileno()).columns if out.isatty() else None
    width = max(100, min(220, term or 200)) if wide else min(WIDTH, term or WIDTH)
    console = Console(file=out, width=width, highlight=False, soft_wrap=False, emoji=False, markup=False)
    c = res.counts
    rows = collapsed(res.candidates)
    console.print(f"kdacheck plan: {visible_line(res.model.name)} ({res.model.architecture}) on {res.request.gpu}, SGLang {res.version}")
    console.print(f"candidates: {c.considered} considered, {c.pruned} pruned, {c.linted} linted, {c.kept} kept"
                  + (" (time budget or candidate cap reached)" if res.budget_spent else "")
                  + f"; {len(rows)} distinct scores, {min(top, len(rows))} shown")
    table = Table(show_lines=False, box=None, pad_edge=False)
    for col in COLUMNS_WIDE if wide else COLUMNS:
        table.add_column(col, overflow="fold", no_wrap=col != "candidate" and col != "launch")
    for i, (cand, alike) in enumerate(rows[:top], 1):
        table.add_row(*_row(i, cand, alike, wide))
    console.print(table)
    console.print("R: requests per scheduler (lint's R); *: on the Pareto front; alike: more kept lines with the same score "
                  "(--output-format json lists them)" + ("; memory per rank in GiB" if wide else
                                                         "; ssm, radix, chunk, mem: the SSM dtype, radix strategy, chunked "
                                                         "prefill, memory fraction flags; --wide: the memory columns"))
    for n in res.notes:
        console.print(f"note: {visible_line(n)}")
    for i, cand in enumerate(res.candidates[:top], 1):
        if cand.sglang is not None:  # --sglang: SGLang's verdict on the line, and why where it is not "starts"
            why = cand.sglang.get("error")
            console.print(f"--sglang #{i}: {visible_line(str(cand.sglang.get('verdict')))}" + (f": {visible_line(why)}" if why else ""))
    for a in sorted({cand.score.alpha_source for cand, _n in rows[:top]}):
        console.print(f"acceptance: {visible_line(a)}")
    console.print(ESTIMATE)
    console.file.flush()
    # the launch and its memory picture are written as they are, never laid out by Rich (a wrapped
    # line pasted into a shell runs a truncated launch)
    out.write("\n".join(chosen_lines(res.candidates[0], res)) + "\n")


def launch_lines(flags: Flags) -> list[str]:
    """The launch as bash reads it: the launcher, then one flag (with its value) per line, each
    line but the last ending in `` \\``; each word ``shlex.quote``d, a control character spelled
    ``$'\\xNN'`` (:func:`on_terminal`). Pasted whole, it is one command."""
    import shlex

    words = [shlex.quote(w) for w in (*LAUNCHER, *argv(flags))]
    body: list[str] = []
    for w in words:
        if body and w.startswith("--"):
            body.append("    " + w)
        elif body and len(body) > 1:
            body[-1] += " " + w
        else:
            body = [*body[:-1], f"{body[-1]} {w}"] if body else [w]
    return [on_terminal(line) + (" \\" if i < len(body) - 1 else "") for i, line in enumerate(body)]


def memory_picture(c: Candidate) -> list[str]:
    """The per-rank memory picture ``lint --gpu`` draws for the same line (report/full.py
    ``memory_lines``); for a model lint has no memory account for, the plan's estimate."""
    import textwrap

    from kdacheck.report.full import memory_lines

    drawn: list[str] = []
    for line in memory_lines(c.verdict.cfg):  # within WIDTH: each part's explanation below its bar
        drawn.append("".join(text for text, _style in line[:2]).rstrip())
        why = "".join(text for text, _style in line[2:]).strip()
        drawn += textwrap.wrap(why, WIDTH, initial_indent=" " * 6, subsequent_indent=" " * 6)
    if drawn:
        return drawn
    m = c.memory
    return [*textwrap.wrap(f"memory per rank (GiB; {m['source']}):", WIDTH, initial_indent="  ", subsequent_indent="    "),
            *textwrap.wrap(f"weights {m['weights_gib']:.2f}, KV cache {m['kv_rest_gib']:.2f}, outside the static pool "
                           f"{m['outside_static_gib']:.2f} (mem_fraction_static {m['mem_fraction_static']:g})", WIDTH,
                           initial_indent="    ", subsequent_indent="      ")]


def chosen_lines(c: Candidate, res: Result) -> list[str]:
    import shlex
    import textwrap

    opts = [" ".join(shlex.quote(w) for w in o.split(" ", 1)) for o in res.lint_options]  # "--model X": each word quoted
    check = [on_terminal(f"    {o}") + (" \\" if i < len(opts) - 1 else "") for i, o in enumerate(opts)]
    if c.pair is not None:  # --pd: both servers, then the pair checked as one deployment
        return [*textwrap.wrap(f"chosen (#1): {visible_line(c.label)}", WIDTH, subsequent_indent="  "),
                "prefill server:", *launch_lines(c.pair.prefill), "decode server:", *launch_lines(c.verdict.flags),
                *memory_picture(c), "check the pair (both launches in one file, or each in its own file):",
                "kdacheck lint pair.sh \\", *check, "kdacheck lint --deployment prefill.sh decode.sh \\", *check]
    return [*textwrap.wrap(f"chosen (#1): {visible_line(c.label)}", WIDTH, subsequent_indent="  "), *launch_lines(c.verdict.flags),
            *memory_picture(c), "check it (paste the launch for <the line>):", "kdacheck lint --cmd '<the line>' \\", *check]


def _script_lines(flags: Flags, tail: str = "") -> list[str]:
    import shlex

    words = [*LAUNCHER, *argv(flags)]
    body, cur = [], ""
    for w in (shlex.quote(x) for x in words):
        if cur and (w.startswith("--") or len(cur) > 100):
            body.append(cur)
            cur = "  " + w
        else:
            cur = f"{cur} {w}" if cur else w
    body.append(cur + tail)
    return [b + " \\" for b in body[:-1]] + body[-1:]


def shell_text(c: Candidate, res: Result) -> str:
    """The chosen launch as a bash script, each word as ``shlex.quote`` writes it: a file gets
    the values' very bytes, as an operator would paste them (standard output: :func:`on_terminal`).
    With ``--pd`` both servers, started together (kdacheck lint reads the file as one deployment)."""
    head = ("#!/usr/bin/env bash\n"
            f"# kdacheck plan: {visible_line(c.label)}; SGLang {res.version}, {res.request.gpu}\n")
    if c.pair is None:
        return head + "set -euo pipefail\n" + "\n".join(_script_lines(c.verdict.flags)) + "\n"
    return (head + "# the prefill and decode servers of one PD deployment; route requests to them with SGLang's router\n"
            "# (`python3 -m sglang_router.launch_router --pd-disaggregation --prefill URL --decode URL`)\n"
            "set -euo pipefail\n" + "\n".join(_script_lines(c.pair.prefill, " &")) + "\n"
            + "\n".join(_script_lines(c.verdict.flags, " &")) + "\nwait\n")


def yaml_text(c: Candidate, res: Result) -> str:
    """A SGLang ``--config`` file: one ``key: value`` per flag (a switch is ``true``)."""
    if c.pair is not None:
        raise ValueError("--emit yaml: a --config file holds one server; with --pd use --emit shell or --emit lws")
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


GPUS_PER_NODE = 8  # --emit lws: a pod per node of this many GPUs (the GPU profiles' HGX/DGX nodes)


def _k8s_name(text: str) -> str:
    """A DNS-1123 label from the model's name: lower case, ``[a-z0-9-]``, 40 characters at most."""
    name = re.sub(r"[^a-z0-9]+", "-", text.rsplit("/", 1)[-1].lower()).strip("-")[:40].strip("-")
    return name or "sglang"


def _lws_doc(name: str, flags: Flags, gpus: int, image: str) -> list[str]:
    size = max(1, -(-gpus // GPUS_PER_NODE))
    words = [*LAUNCHER, *argv(flags)]
    if size > 1:  # one SGLang server over `size` nodes: LWS gives each pod its rank and the leader's address
        words += ["--nnodes", "$(LWS_GROUP_SIZE)", "--node-rank", "$(LWS_WORKER_INDEX)",
                  "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000"]
    per_pod = min(gpus, GPUS_PER_NODE)

    def template(key: str) -> list[str]:
        return [f"    {key}:", "      spec:", "        containers:", "          - name: sglang",
                f"            image: {json.dumps(image)}", "            command:",
                *(f"              - {json.dumps(w, ensure_ascii=True)}" for w in words),
                "            resources:", "              limits:", f"                nvidia.com/gpu: {per_pod}"]

    doc = ["apiVersion: leaderworkerset.x-k8s.io/v1", "kind: LeaderWorkerSet", "metadata:", f"  name: {name}",
           "spec:", "  replicas: 1", "  leaderWorkerTemplate:", f"    size: {size}"]
    doc += template("leaderTemplate")
    if size > 1:
        doc += template("workerTemplate")
    return doc


def lws_text(c: Candidate, res: Result) -> str:
    """The chosen launch as LeaderWorkerSet manifests (one per server; with ``--pd`` a prefill
    and a decode set, which ``kdacheck lint`` reads as one deployment): the image of the target
    SGLang version, a pod per node of :data:`GPUS_PER_NODE` GPUs, the multi-node flags LWS fills
    in where a server spans nodes. Every value is a JSON string, which YAML reads as written."""
    from kdacheck.plan.cost import layout

    gpus = layout(c.verdict.cfg)[1]
    image = f"lmsysorg/sglang:v{res.version}"
    base = _k8s_name(res.model.name)
    head = [f"# kdacheck plan: {visible_line(c.label)}; SGLang {res.version}, {res.request.gpu}",
            f"# {gpus} GPU(s) per server, {GPUS_PER_NODE} a node; add a Service and, for PD, SGLang's router "
            "(`python3 -m sglang_router.launch_router --pd-disaggregation`)"]
    if c.pair is None:
        return "\n".join([*head, *_lws_doc(base, c.verdict.flags, gpus, image)]) + "\n"
    return "\n".join([*head, *_lws_doc(f"{base}-prefill", c.pair.prefill, gpus, image), "---",
                      *_lws_doc(f"{base}-decode", c.verdict.flags, gpus, image)]) + "\n"
