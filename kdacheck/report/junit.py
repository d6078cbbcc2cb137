"""``--output-format junit``: JUnit XML for CI dashboards (Jenkins, GitLab, Azure).

One ``testsuite`` per file, one ``testcase`` per launch command found in it, so that the test
count is the launch count (``classname`` = the file with its dots written ``_``, since Jenkins
splits a class name at its last dot into package and class; ``name`` = the command, with its
line). A launch with findings at or above ``--failure-threshold`` fails (``type`` = the worst
severity, ``message`` = the finding or a count; the text lists each with its place and fix).
Otherwise, a launch on which some check could not run (the model or the GPU unknown, a value not
known statically, arguments not read) is ``skipped``, its message naming those checks, and under
``--strict`` it fails; a launch checked in full passes. Findings that do not fail it (notes,
findings below the threshold) go to its ``system-out``. Rules that do not apply to a launch
produce nothing. An unreadable file is one test case with an ``error``. No ``file`` attribute:
the path is the class name (Jenkins' schema, tests/data/junit/junit-10.xsd, is the contract).

``kdacheck run --output-format junit`` is written here too (:func:`render_run`): one
``testsuite`` per plan, one ``testcase`` per kernel check (``classname`` =
``kdacheck-run-<kind>``, the op's ``Kind``), a failed check's ``failure`` carrying its error.
Both documents are built with ``xml.etree`` and written by :func:`write`, so that any message is
escaped the same way.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import IO, TYPE_CHECKING

from kdacheck.findings import Finding, Severity
from kdacheck.report import RenderContext, RunRenderer
from kdacheck.results import FileResult
from kdacheck.sanitize import visible_name

if TYPE_CHECKING:
    from kdacheck.kernels.harness import CaseResult
    from kdacheck.resolve import Resolved
    from kdacheck.results import Case, Plan

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text: str) -> str:
    """XML 1.0 cannot hold most control characters, even escaped: show them as U+FFFD."""
    return _INVALID_XML.sub("\ufffd", text)


def _failure_text(findings: list[Finding]) -> str:
    out = []
    for f in findings:
        out.append(f"{f.location}: {f.code} [{f.severity.label}] {f.message}" + (f" (in {f.source})" if f.source else ""))
        if f.fix:
            out.append(f"    fix: {f.fix}")
    return _x("\n".join(out))


def classname(path: str) -> str:
    return _x(path.replace(".", "_"))


def _launch_name(cfg: Resolved) -> str:
    cmd = cfg.cmd
    role = visible_name(cmd.role) if cmd.role else ""
    return _x(f"{role} (line {cmd.loc.line})" if role else f"launch at line {cmd.loc.line}")


def _not_run(cfg: Resolved, findings: list[Finding]) -> list[str]:
    """What could not be checked on one launch: the rules needing the model, each "could not
    be checked" finding, the arguments not read."""
    out = [f"{code}: needs the model (MODEL001)" for code in cfg.not_checked]
    out += [f"{f.code}: {f.message}" for f in findings if f.not_checked]
    out += [f"not read: {u}" for u in cfg.cmd.unread]
    return out


def tree(results: list[FileResult], threshold: Severity = Severity.WARNING, strict: bool = False) -> ET.Element:
    root = ET.Element("testsuites", name="kdacheck")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=_x(r.path))
        counts = dict.fromkeys(totals, 0)
        if r.error:
            case = ET.SubElement(suite, "testcase", classname=classname(r.path), name="read")
            ET.SubElement(case, "error", message=_x(r.error), type="unreadable").text = _x(r.error)
            counts["tests"], counts["errors"] = 1, 1
        groups = r.by_launch if len(r.by_launch) == len(r.resolved) else [r.findings] * len(r.resolved)
        for cfg, found in zip(r.resolved if not r.error else [], groups, strict=False):
            case = ET.SubElement(suite, "testcase", classname=classname(r.path), name=_launch_name(cfg))
            counts["tests"] += 1
            failing = [f for f in found if f.severity >= threshold and not f.not_checked]
            unrun = _not_run(cfg, found)
            if failing:
                counts["failures"] += 1
                worst = max(f.severity for f in failing)
                message = failing[0].message if len(failing) == 1 else f"{len(failing)} findings"
                ET.SubElement(case, "failure", message=_x(message), type=worst.label).text = _failure_text(failing)
            elif unrun and strict:
                counts["failures"] += 1
                ET.SubElement(case, "failure", message=_x(f"--strict: {len(unrun)} check{'s' * (len(unrun) != 1)} could not be run"),
                              type="not-checked").text = _x("\n".join(unrun))
            elif unrun:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=_x(f"{len(unrun)} check{'s' * (len(unrun) != 1)} could not be run: "
                                                          + "; ".join(unrun)[:500])).text = _x("\n".join(unrun))
            rest = [f for f in found if f not in failing and not f.not_checked]
            if rest:
                ET.SubElement(case, "system-out").text = _failure_text(rest)
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
        if r.notes:
            ET.SubElement(suite, "system-out").text = _x("\n".join(r.notes))
    for k in ("tests", "failures", "errors"):
        root.set(k, str(totals[k]))
    return root


def write(root: ET.Element, out: IO[str]) -> None:
    """One JUnit document: the declaration, the tree indented by two spaces, a final newline."""
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")


def render(results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    write(tree(results, ctx.threshold, ctx.strict), out)


# ----------------------------------------------------------------------------- kdacheck run


def run_tree(plans: list[tuple[Plan, list[tuple[Case, CaseResult]]]], device: str) -> ET.Element:
    """``kdacheck run``'s document: one test suite per plan, one test case per kernel check."""
    from kdacheck.report.run_full import shapes_line

    nothing = sum(1 for p, r in plans if not r and p.nothing)
    total = sum(len(r) for _p, r in plans) + nothing
    failed = sum(1 for _p, r in plans for _c, res in r if not res.passed)
    root = ET.Element("testsuites", name="kdacheck run", tests=str(total), failures=str(failed))  # Jenkins: no `skipped` on testsuites
    for plan, results in plans:
        bad = sum(1 for _c, res in results if not res.passed)
        if not results and plan.nothing:  # said as one skipped case, never as a pass
            suite = ET.SubElement(root, "testsuite", name=_x(visible_name(plan.source)), tests="1", failures="0", skipped="1")
            test = ET.SubElement(suite, "testcase", classname="kdacheck-run", name="nothing to run")
            ET.SubElement(test, "skipped", message=_x(visible_name(plan.nothing))[:500])
            continue
        suite = ET.SubElement(root, "testsuite", name=_x(visible_name(plan.source)), tests=str(len(results)), failures=str(bad))
        for case, res in results:
            kind = case.op.kind.value
            test = ET.SubElement(suite, "testcase", classname=f"kdacheck-run-{kind}", name=_x(visible_name(case.label)))
            if res.time_s is not None:
                test.set("time", f"{res.time_s:.6f}")
            if not res.passed:
                msg = _x(visible_name(res.error or ("canaries overwritten" if not res.canaries_intact else f"relative error {res.rel_err}")))
                ET.SubElement(test, "failure", message=msg[:500], type=kind).text = msg
            ET.SubElement(test, "system-out").text = _x(visible_name(f"{device}; {shapes_line(res.shapes)}"))
    return root


def render_run(plans: list[tuple[Plan, list[tuple[Case, CaseResult]]]], device: str, out: IO[str]) -> None:
    write(run_tree(plans, device), out)


class RunReport(RunRenderer):
    """``kdacheck run --output-format junit``: one document for every plan, once all are done."""

    def run_done(self, plans: list[tuple[Plan, list[tuple[Case, CaseResult]]]]) -> None:
        render_run(plans, self.device, self.out)
