"""``--output-format junit``: JUnit XML for CI dashboards (Jenkins, GitLab, Azure).

One ``testsuite`` per file, one ``testcase`` per rule checked on it (``classname`` = the
file with its dots written ``_``, since Jenkins splits a class name at its last dot into
package and class; ``file`` = the path; ``name`` = the code). A rule's findings at or above
``--failure-threshold`` become that test case's ``failure`` (``type`` = the worst severity,
``message`` = the finding, or a count when there are several; the text lists each finding with
its place and fix). Findings below the threshold, and info findings (facts, not faults), go to
the test case's ``system-out`` and leave it passing, so that the XML and the exit code agree. A
rule that could not decide (only "could not be checked" findings) is ``skipped``. In a file of
several named launches (roles, services, containers) a rule's findings are one test case per
launch, ``CODE (in ROLE)``. An unreadable file is one test case with an ``error``.

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
        out.append(f"{f.location}: {f.code} [{f.severity.label}] {f.message}" + (f" (in {f.source})" if f.source else ""))
        if f.fix:
            out.append(f"    fix: {f.fix}")
    return _x("\n".join(out))


def _cases(codes: list[str], by_code: dict[str, list[Finding]], roles: bool) -> list[tuple[str, str, list[Finding]]]:
    """(code, role, findings) per test case: one per rule; in a file of several named launches
    (roles, services, containers) a rule with findings gets one case per launch it fired in."""
    out: list[tuple[str, str, list[Finding]]] = []
    for code in codes:
        found = by_code.get(code, [])
        sources = list(dict.fromkeys(f.source for f in found))
        if not roles or len(sources) < 1 or sources == [""]:
            out.append((code, "", found))
            continue
        out += [(code, src, [f for f in found if f.source == src]) for src in sources]
    return out


def _one(text: str) -> str:
    return " ".join(text.split())[:500]


def classname(path: str) -> str:
    return _x(path.replace(".", "_"))


def tree(results: list[FileResult], threshold: Severity = Severity.WARNING) -> ET.Element:
    root = ET.Element("testsuites", name="kdacheck")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=_x(r.path))
        tests = failures = errors = skipped = 0
        if r.error:
            case = ET.SubElement(suite, "testcase", classname=classname(r.path), name="read", file=_x(r.path))
            ET.SubElement(case, "error", message=_x(r.error), type="unreadable").text = _x(r.error)
            tests, errors = 1, 1
        else:
            by_code: dict[str, list[Finding]] = {}
            for f in r.findings:
                by_code.setdefault(f.code, []).append(f)
            codes = list(r.rules) + sorted(c for c in by_code if c not in r.rules)
            roles = len({cfg.cmd.role for cfg in r.resolved}) > 1
            for code, role, found in _cases(codes, by_code, roles):
                name = f"{code} (in {visible_name(role)})" if role else code
                case = ET.SubElement(suite, "testcase", classname=classname(r.path), name=_x(name), file=_x(r.path))
                tests += 1
                if not found:
                    continue
                worst = max(f.severity for f in found)
                if all(f.not_checked for f in found):  # the rule could not decide: neither a pass nor a failure
                    ET.SubElement(case, "skipped", message=_x(_one(found[0].message))).text = _failure_text(found)
                    skipped += 1
                elif worst < threshold or worst == Severity.INFO:
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
        suite.set("skipped", str(skipped))
        if r.notes:
            ET.SubElement(suite, "system-out").text = _x("\n".join(r.notes))
        totals["tests"] += tests
        totals["failures"] += failures
        totals["errors"] += errors
        totals["skipped"] += skipped
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

    total = sum(len(r) for _p, r in plans)
    failed = sum(1 for _p, r in plans for _c, res in r if not res.passed)
    root = ET.Element("testsuites", name="kdacheck run", tests=str(total), failures=str(failed))
    for plan, results in plans:
        bad = sum(1 for _c, res in results if not res.passed)
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
