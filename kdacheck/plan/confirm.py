"""``--run`` and ``--sglang``: the top candidates confirmed by kdacheck's kernels
(``kdacheck.runner``) and by SGLang's own argument resolution (``kdacheck.sglang``)."""

from __future__ import annotations

from typing import Any

from kdacheck.findings import InputError
from kdacheck.plan.engine import Candidate
from kdacheck.plan.judge import argv


def run_kernels(cands: list[Candidate]) -> list[str]:
    """Each candidate's verify and gather cases at its shapes (on a GPU; smaller in Triton's
    interpreter, where nothing is timed). Sets ``c.run``; returns notes."""
    from kdacheck import runner

    guess = runner.guess_device("auto")
    plans = [runner.plan_from_resolved(c.verdict.cfg, None, None, None, guess == "cpu") for c in cands]
    runner.check_work(plans, guess)  # before torch is imported
    dev = runner.pick_device("auto")
    if dev != guess:
        plans = [runner.plan_from_resolved(c.verdict.cfg, None, None, None, dev == "cpu") for c in cands]
        runner.check_work(plans, dev)
    notes = []
    for c, plan in zip(cands, plans, strict=True):
        results = runner.run_plan(plan, dev)
        c.run = {
            "device": dev,
            "passed": all(r.passed for _case, r in results),
            "cases": [{"label": case.label, "passed": r.passed,
                       "time_s": r.time_s if dev != "cpu" else None,
                       "bandwidth_gbs": getattr(r, "bandwidth_gbs", None) if dev != "cpu" else None} for case, r in results],
        }
    if dev == "cpu":
        notes.append("--run: Triton's interpreter on the CPU checked the kernels at reduced shapes; no time was measured")
    return notes


def require_sglang() -> str:
    """The installed SGLang's version, or InputError (before any search is spent)."""
    import sys

    from kdacheck import sglang

    installed = sglang.importable(sys.executable)
    if installed is None:
        raise InputError("--sglang runs SGLang's own argument resolution, but SGLang is not importable here: "
                         "run kdacheck where SGLang is installed")
    return installed


def sglang_check(cands: list[Candidate], gpu: str) -> list[str]:
    """Each emitted line through SGLang's own resolution (SGLang must be importable here)."""
    from kdacheck import sglang

    installed = require_sglang()
    for c in cands:
        verdict: dict[str, Any] = sglang.run(argv(c.verdict.flags), gpu)
        c.sglang = {"verdict": verdict.get("verdict"), "error": reason(verdict)}
    return [f"--sglang: SGLang {installed}'s own resolution, in a subprocess"]


def reason(verdict: dict[str, Any]) -> str | None:
    """Why SGLang's child did not say "starts" (its exception and message, or why it was not
    run), sanitised: what the table and the JSON document show; None when it starts."""
    from kdacheck.sanitize import visible_line

    if verdict.get("verdict") == "starts":
        return None
    said = ": ".join(str(verdict[k]) for k in ("exception", "message") if verdict.get(k))
    said = said or "; ".join(str(n) for n in verdict.get("notes") or ()) or f"verdict {verdict.get('verdict')!r}, no reason given"
    return visible_line(said[:1000])
