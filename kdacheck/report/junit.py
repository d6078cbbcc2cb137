"""``--output-format junit``: JUnit XML for CI dashboards (Jenkins, GitLab, Azure).

One ``testsuite`` per file, one ``testcase`` per rule checked on it (``classname`` = the
file with its dots written ``_``, since Jenkins splits a class name at its last dot into
package and class; ``file`` = the path; ``name`` = the code). A rule's findings at or above
``--failure-threshold`` become that test case's ``failure`` (``type`` = the worst severity,
``message`` = the finding, or a count when there are several; the text lists each finding with
its place and fix). Findings below the threshold, and info findings (facts, not faults), go to
the test case's ``system-out`` and leave it passing, so that the XML and the exit code agree. An
unreadable file is one test case with an ``error``.

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
from kdacheck.lint import FileResult
from kdacheck.report import RenderContext
from kdacheck.sanitize import visible_name

if TYPE_CHECKING:
    from kdacheck.kernels.harness import CaseResult
    from kdacheck.runner import Case, Plan

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text: str) -> str:
    """XML 1.0 cannot hold most control characters, even escaped: show them as U+FFFD."""
    return _INVALID_XML.sub("\ufffd", text)


def _failure_text(findings: list[Finding]) -> str:
    out = []
    for f in findings:
        out.append(f"{f.location}: {f.code} [{f.severity.label}] {f.message}")
        if f.fix:
            out.append(f"    fix: {f.fix}")
    return _x("\n".join(out))


def classname(path: str) -> str:
    return _x(path.replace(".", "_"))


def tree(results: list[FileResult], threshold: Severity = Severity.WARNING) -> ET.Element:
    root = ET.Element("testsuites", name="kdacheck")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=_x(r.path))
        tests = failures = errors = 0
        if r.error:
            case = ET.SubElement(suite, "testcase", classname=classname(r.path), name="read", file=_x(r.path))
            ET.SubElement(case, "error", message=_x(r.error), type="unreadable").text = _x(r.error)
            tests, errors = 1, 1
        else:
            by_code: dict[str, list[Finding]] = {}
            for f in r.findings:
                by_code.setdefault(f.code, []).append(f)
            codes = list(r.rules) + sorted(c for c in by_code if c not in r.rules)
            for code in codes:
                case = ET.SubElement(suite, "testcase", classname=classname(r.path), name=code, file=_x(r.path))
                tests += 1
                found = by_code.get(code)
                if not found:
                    continue
                worst = max(f.severity for f in found)
                if worst < threshold or worst == Severity.INFO:
                    # Below the threshold, or facts (sizes, defaults that applied): not failures,
                    # kept visible.
                    ET.SubElement(case, "system-out").text = _failure_text(found)
                else:
                    failures += 1
                    message = found[0].message if len(found) == 1 else f"{len(found)} {code} findings"
                    ET.SubElement(case, "failure", message=_x(message), type=worst.label).text = _failure_text(found)
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        suite.set("skipped", "0")
        if r.notes:
            ET.SubElement(suite, "system-out").text = _x("\n".join(r.notes))
        totals["tests"] += tests
        totals["failures"] += failures
        totals["errors"] += errors
    for k, v in totals.items():
        root.set(k, str(v))
    return root


def write(root: ET.Element, out: IO[str]) -> None:
    """One JUnit document: the declaration, the tree indented by two spaces, a final newline."""
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode"))
    out.write("\n")


def render(results: list[FileResult], out: IO[str], ctx: RenderContext) -> None:
    write(tree(results, ctx.threshold), out)


# ----------------------------------------------------------------------------- kdacheck run


def run_tree(plans: list[tuple[Plan, list[tuple[Case, CaseResult]]]], device: str) -> ET.Element:
    """``kdacheck run``'s document: one test suite per plan, one test case per kernel check."""
    from kdacheck.report.run_full import shapes_line

    nothing = sum(1 for p, r in plans if not r and p.nothing)
    total = sum(len(r) for _p, r in plans) + nothing
    failed = sum(1 for _p, r in plans for _c, res in r if not res.passed)
    root = ET.Element("testsuites", name="kdacheck run", tests=str(total), failures=str(failed), skipped=str(nothing))
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
