"""Output formats for CI: SARIF (schema-valid), GitHub workflow commands, JUnit, concise; exit
codes by threshold."""

from __future__ import annotations

import io
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kdacheck import report
from kdacheck import runner as runner_mod
from kdacheck.cli import app
from kdacheck.report.github import escape_data, escape_property
from kdacheck.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
CI = DATA / "ci"
SELECT = ("--select", "ARG001,SPEC001,SPEC002")  # stable as other rules are added
# (file relative to CI, line, code, severity) for the fixture folder under SELECT
EXPECTED = [
    ("errors/bad-flags.yaml", 4, "SPEC001", "error"),
    ("errors/bad-flags.yaml", 6, "ARG001", "error"),
    ("k8s/deploy.yaml", 17, "SPEC001", "error"),
    ("k8s/deploy.yaml", 21, "ARG001", "error"),
    ("warn/spec002.sh", 8, "SPEC002", "warning"),
]
runner = CliRunner()


def invoke(*args: str, env: dict[str, str | None] | None = None, input: str | None = None):  # type: ignore[no-untyped-def]
    base: dict[str, str | None] = {"NO_COLOR": "1", "GITHUB_ACTIONS": None, "GITHUB_WORKSPACE": None}
    return runner.invoke(app, list(args), env={**base, **(env or {})}, input=input)


@pytest.fixture(autouse=True)
def _in_fixture_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CI)


def test_sarif_validates_and_has_one_descriptor_per_rule() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    r = invoke("lint", ".", *SELECT, "--output-format", "sarif")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc), key=str)
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    assert doc["version"] == "2.1.0"
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    ids = [d["id"] for d in driver["rules"]]
    assert ids == [r.code for r in all_rules()]
    assert len(ids) == len(set(ids))
    for d in driver["rules"]:
        assert d["helpUri"].startswith("https://") and d["shortDescription"]["text"]
        assert d["help"]["markdown"].startswith(f"## {d['id']}")
        assert d["defaultConfiguration"]["level"] in ("error", "warning", "note")
    got = []
    for res in run["results"]:
        assert ids[res["ruleIndex"]] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        assert not uri.startswith("/") and "\\" not in uri
        got.append((uri, loc["region"]["startLine"], res["ruleId"], res["level"]))
    # URIs are relative to the repository root (this checkout's top level).
    prefix = "tests/data/ci/" if (ROOT / ".git").exists() else ""
    assert sorted(got) == sorted((prefix + p, line, code, sev) for p, line, code, sev in EXPECTED)
    assert run["invocations"][0]["executionSuccessful"] is True


def test_sarif_results_are_findings_only_facts_are_run_properties() -> None:
    # Code scanning shows every result as an alert: a clean tree uploads none; its facts (sizes,
    # values) are run properties, and a model that could not be read a notification.
    clean = json.loads(invoke("lint", str(ROOT / "examples" / "clean"), "--output-format", "sarif").stdout)
    assert not _sarif_errors(clean)
    run = clean["runs"][0]
    assert run["results"] == [] and run["properties"]["facts"]
    assert {"ruleId", "message", "uri", "startLine"} <= set(run["properties"]["facts"][0])
    errors = ROOT / "examples" / "errors"
    run = json.loads(invoke("lint", str(errors), "--output-format", "sarif").stdout)["runs"][0]
    files = json.loads(invoke("lint", str(errors), "--output-format", "json").stdout)["files"]
    faults = [f for r in files for f in r["findings"] if f["severity"] in ("error", "warning")]
    assert len(run["results"]) == len(faults) and {r["level"] for r in run["results"]} == {"error", "warning"}
    # --failure-threshold info makes every note a fault, and then a result.
    run = json.loads(invoke("lint", str(errors), "--output-format", "sarif", "--failure-threshold", "info").stdout)["runs"][0]
    assert "note" in {r["level"] for r in run["results"]} and not run["properties"]["facts"]


def test_sarif_reports_unreadable_files_and_inline_commands() -> None:
    r = invoke("lint", "missing.yaml", "--cmd", "python -m sglang.launch_server --bogus", *SELECT, "--output-format", "sarif")
    assert r.exit_code == 2
    run = json.loads(r.stdout)["runs"][0]
    inv = run["invocations"][0]
    assert inv["executionSuccessful"] is False
    assert any("missing.yaml" in n["message"]["text"] for n in inv["toolExecutionNotifications"])
    (res,) = run["results"]
    # A repository-level result: no logical-only location (GitHub rejects the file for one).
    (loc,) = res["locations"]
    assert res["ruleId"] == "ARG001" and loc["physicalLocation"]["artifactLocation"] == {"uri": ".", "uriBaseId": "%SRCROOT%"}
    assert res["message"]["text"].startswith("<cmd>:")


def _sarif_errors(doc: dict) -> list[str]:  # type: ignore[type-arg]
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    return [f"{list(e.path)}: {e.message}" for e in jsonschema.Draft4Validator(schema).iter_errors(doc)]


def test_sarif_on_a_usage_error_is_a_valid_failed_run() -> None:
    # A configuration or option error (exit 2) still writes a document, so that an upload
    # step never sends an empty file.
    for args in (("lint", "--output-format", "sarif"), ("lint", "--env", "NOEQUALS", "x.sh", "--output-format", "sarif")):
        r = invoke(*args)
        assert r.exit_code == 2
        doc = json.loads(r.stdout)
        assert not _sarif_errors(doc)
        inv = doc["runs"][0]["invocations"][0]
        assert inv["executionSuccessful"] is False and inv["toolExecutionNotifications"][0]["level"] == "error"
        assert doc["runs"][0]["results"] == []
    r = invoke("lint", "--output-format", "json")
    assert r.exit_code == 2 and json.loads(r.stdout)["error"].startswith("nothing to lint")


def test_sarif_fingerprints_survive_a_line_inserted_above(tmp_path: Path) -> None:
    text = "python -m sglang.launch_server --model-path m --tp 2 \\\n  --speculative-algorithm EAGLE --speculative-eagle-topk 4\n"
    f = tmp_path / "run.sh"

    def prints() -> dict[tuple[str, str], str]:
        doc = json.loads(invoke("lint", str(f), "--output-format", "sarif").stdout)
        assert not _sarif_errors(doc)
        return {(r["ruleId"], r["message"]["text"]): r["partialFingerprints"]["kdacheck/v1"] for r in doc["runs"][0]["results"]}

    f.write_text(text)
    before = prints()
    assert before and len(set(before.values())) == len(before)
    f.write_text("# a comment\necho starting\n" + text)
    assert prints() == before


def test_sarif_not_checked_is_a_notification_not_an_alert(tmp_path: Path) -> None:
    f = tmp_path / "run.sh"
    f.write_text("python -m sglang.launch_server --model-path m --tp $TP --speculative-algorithm EAGLE \\\n"
                 "  --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens $DRAFT\n")
    doc = json.loads(invoke("lint", str(f), "--output-format", "sarif").stdout)
    assert not _sarif_errors(doc)
    run = doc["runs"][0]
    assert not [r for r in run["results"] if r["message"]["text"].startswith("could not be checked")]
    notes = [n for n in run["invocations"][0]["toolExecutionNotifications"] if n["descriptor"]["id"] == "not-checked"]
    assert notes and all(n["associatedRule"]["id"] for n in notes)
    codes = [d["id"] for d in run["tool"]["driver"]["rules"]]
    assert all(codes[n["associatedRule"]["index"]] == n["associatedRule"]["id"] for n in notes)


GITHUB = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),title=kdacheck \(([A-Z]+\d+)\)(?: \(in [^:]+\))?::(.*)$")  # (in ROLE): the launch's role


def _github_lines(output: str) -> list[tuple[str, str, int, str]]:
    out = []
    for line in output.splitlines():
        if line.startswith("::") and not line.startswith(("::group::", "::endgroup::", "::notice title=kdacheck::")):
            m = GITHUB.match(line)
            assert m, line
            out.append((m.group(2), m.group(1), int(m.group(3)), m.group(5)))
    return out


def test_github_annotations_point_at_file_and_line() -> None:
    r = invoke("lint", ".", *SELECT, "--output-format", "github")
    assert r.exit_code == 1
    kinds = {"error": "error", "warning": "warning"}
    got = _github_lines(r.stdout)
    assert sorted(got) == sorted((p, kinds[s], line, c) for p, line, c, s in EXPECTED if s in kinds)
    # errors first: GitHub keeps only the first ten of each kind
    assert [k for _p, k, _l, _c in got] == sorted((k for _p, k, _l, _c in got), key=["error", "warning"].index)
    assert r.stdout.splitlines()[-1].startswith("Checked 3 files")


def test_github_format_is_automatic_under_github_actions() -> None:
    r = invoke("lint", ".", *SELECT, env={"GITHUB_ACTIONS": "true"})
    assert r.exit_code == 1
    assert len(_github_lines(r.stdout)) == len(EXPECTED)
    # an explicit format still wins
    r = invoke("lint", ".", *SELECT, "--output-format", "concise", env={"GITHUB_ACTIONS": "true"})
    assert "::error" not in r.stdout


def test_github_escaping_matches_actions_toolkit() -> None:
    assert escape_data("50% done\r\nnext: a,b") == "50%25 done%0D%0Anext: a,b"
    assert escape_property("C:\\x,y%\n") == "C%3A\\x%2Cy%25%0A"


def test_junit_is_well_formed_with_failure_counts() -> None:
    """One test case per launch command (not per rule): its failure lists its findings."""
    r = invoke("lint", ".", *SELECT, "--output-format", "junit")
    assert r.exit_code == 1
    root = ET.fromstring(r.stdout)
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"errors/bad-flags.yaml", "k8s/deploy.yaml", "warn/spec002.sh"}
    for name, suite in suites.items():
        (case,) = suite.findall("testcase")  # one launch in each fixture file
        expected = {code: sev for p, _line, code, sev in EXPECTED if p == name}
        failure = case.find("failure")
        assert failure is not None and int(suite.get("failures", "-1")) == 1 and int(suite.get("tests", "-1")) == 1
        assert failure.get("type") == ("error" if "error" in expected.values() else "warning")
        assert all(code in (failure.text or "") for code in expected)
    assert int(root.get("failures", "-1")) == 3 and int(root.get("tests", "-1")) == 3
    for case in root.iter("testcase"):
        assert "." not in case.get("classname", ".") and case.get("file") is None


def test_junit_respects_the_failure_threshold() -> None:
    # Only errors fail the run: the warning's test case passes, with the finding in system-out.
    r = invoke("lint", "warn", *SELECT, "--output-format", "junit", "--failure-threshold", "error")
    assert r.exit_code == 0
    root = ET.fromstring(r.stdout)
    assert root.get("failures") == "0" and root.find(".//failure") is None
    assert any("SPEC002" in (o.text or "") for o in root.iter("system-out"))


def test_junit_escapes_any_message() -> None:
    r = invoke("lint", "--cmd", "python -m sglang.launch_server '--bogus-<&>\"\x01'", *SELECT, "--output-format", "junit")
    root = ET.fromstring(r.stdout)
    assert root.get("failures") == "1"
    failure = root.find(".//failure")
    assert failure is not None and "--bogus-<&>\"" in failure.get("message", "")


CONCISE = re.compile(r"^(\S+):(\d+):(\d+): (?:\[\*\] )?([A-Z]+\d+) \[(error|warning|info)\] (.+)$")
NOTE = re.compile(r"^(\S+):(\d+):(\d+): note: (.+)$")  # where a model not in the tree came from


def test_concise_lines_are_sorted_and_formatted() -> None:
    r = invoke("lint", ".", *SELECT, "--output-format", "concise")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    # other/values.yaml names SGLang but launches nothing: counted once, never read key by key
    assert lines[-2] == "Checked 3 files, 3 launch commands, 4 errors, 1 warning, 0 info, 1 non-launch YAML file skipped."
    notes = [ln for ln in lines[:-2] if NOTE.match(ln)]
    assert notes and all("note: model moonshotai/Kimi-Linear-48B-A3B-Instruct from the bundled index" in n for n in notes)
    marked = [ln for ln in lines[:-2] if ": [*] " in ln]  # the findings --fix fixes, counted under the summary (as ruff does)
    assert marked and lines[-1] == f"[*] {len(marked)} fixable with --fix."
    parsed = [CONCISE.match(ln) for ln in lines[:-2] if not NOTE.match(ln)]
    assert all(parsed), lines
    keys = [(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)) for m in parsed if m]
    assert keys == sorted(keys)
    assert [(k[0], k[1], k[3]) for k in keys] == [(p, line, c) for p, line, c, _s in EXPECTED]


def test_json_keeps_its_documented_key_order() -> None:
    r = invoke("lint", "warn/spec002.sh", *SELECT, "--output-format", "json")
    doc = json.loads(r.stdout)
    assert list(doc) == ["schema_version", "tool", "sglang_version", "files", "summary"]
    assert list(doc["files"][0]) == ["path", "error", "notes", "commands", "findings"]
    keys = ["code", "severity", "message", "location", "fix", "edits", "evidence", "command", "fixable"]
    assert list(doc["files"][0]["findings"][0]) == keys
    command = doc["files"][0]["commands"][0]
    assert doc["schema_version"] == 3
    assert list(command) == ["command", "location", "sglang_version", "model", "model_source", "model_origin", "gpu", "values", "role", "unread"]
    assert command["command"].startswith("python") and "sglang.launch_server" in command["command"]  # the launch as read
    doc_md = (ROOT / "docs" / "json-schema.md").read_text()
    for key in keys:
        assert f"| `{key}` |" in doc_md
    for key in [*doc["summary"], *command]:
        assert f"`{key}`" in doc_md


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--failure-threshold", "warning"), 1),
        (("--failure-threshold", "error"), 0),
        (("--failure-threshold", "info"), 1),
        (("--exit-zero",), 0),
        (("--failure-threshold", "info", "--exit-zero"), 0),
        ((), 1),  # default: warning
    ],
)
def test_exit_codes_follow_the_threshold(args: tuple[str, ...], code: int) -> None:
    r = invoke("lint", "warn/spec002.sh", "--select", "SPEC002", "--output-format", "concise", *args)
    assert r.exit_code == code, r.output


def test_exit_zero_does_not_hide_kdacheck_failures() -> None:
    assert invoke("lint", "warn/spec002.sh", "missing.sh", "--exit-zero").exit_code == 2
    assert invoke("lint", "warn/spec002.sh", "--gpu", "no-such-gpu", "--exit-zero").exit_code == 2


def test_select_ignore_and_extend_select_by_code_or_prefix() -> None:
    def codes(*args: str) -> set[str]:
        r = invoke("lint", ".", "--output-format", "concise", *args)
        return {m.group(4) for m in map(CONCISE.match, r.stdout.splitlines()) if m}

    assert codes("--select", "SPEC001") == {"SPEC001"}
    assert codes("--select", "ARG") == {"ARG001"}
    assert codes("--select", "ARG,SPEC001") == {"ARG001", "SPEC001"}
    assert codes("--select", "ARG", "--extend-select", "SPEC002") == {"ARG001", "SPEC002"}
    assert codes("--select", "ARG001,SPEC00", "--ignore", "SPEC001") == {"ARG001", "SPEC002"}
    assert "ARG001" not in codes("--ignore", "ARG")


def test_github_says_when_its_annotation_cap_hides_some(tmp_path: Path) -> None:
    f = tmp_path / "many.sh"
    f.write_text("".join(f"python -m sglang.launch_server --model-path m --bogus-{i}\n" for i in range(12)))
    summary = tmp_path / "summary.md"
    r = invoke("lint", str(f), "--select", "ARG001", "--output-format", "github",
               env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    assert r.exit_code == 1
    assert len(_github_lines(r.stdout)) == 12
    (notice,) = [line for line in r.stdout.splitlines() if line.startswith("::notice")]
    assert "2 more" in notice
    table = summary.read_text()
    assert table.count("| ✗ | `ARG001` |") == 12


MULTITOOL = os.environ.get("KDACHECK_SARIF_MULTITOOL", "")


@pytest.mark.skipif(not MULTITOOL, reason="set KDACHECK_SARIF_MULTITOOL to the Sarif.Multitool binary (npm @microsoft/sarif-multitool)")
@pytest.mark.parametrize("args", [(".",), ("--cmd", "python -m sglang.launch_server --bogus"), ("-",), ()], ids=["folder", "cmd", "stdin", "usage-error"])
def test_sarif_passes_githubs_ingestion_rules(args: tuple[str, ...], tmp_path: Path) -> None:
    import subprocess

    r = invoke("lint", *args, *SELECT, "--output-format", "sarif", input="python -m sglang.launch_server --bogus\n")
    src, out = tmp_path / "in.sarif", tmp_path / "out.sarif"
    src.write_text(r.stdout)
    env = {**os.environ, "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT": "1"}
    subprocess.run([MULTITOOL, "validate", "--rule-kind", "Sarif;Gh", "--level", "Error;Warning", "-o", str(out), str(src)],
                   check=True, env=env, capture_output=True, timeout=300)
    found = [(x["ruleId"], x.get("message", {}).get("arguments", [])[:1]) for x in json.loads(out.read_text())["runs"][0].get("results", [])]
    assert found == []


def test_kda002_verdict_names_the_crash_and_draws_the_row_map() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "examples/errors/KDA002-dp-attention-row-map.sh", "--gpu", "b200"],
                       cwd=root, capture_output=True, text=True, timeout=60, env={**os.environ, "NO_COLOR": "1"})
    lines = p.stdout.splitlines()
    assert lines[1].strip().startswith("✗ crashes at CUDA-graph capture (KDA002)")
    assert any("row map: batch rows 0–47 → [0 1 2 … 44 | 45 45 45]" in ln for ln in lines)


@pytest.mark.parametrize("name", report.FORMATS)
def test_every_format_has_its_renderer(name: str) -> None:
    """"A new output format" (docs/architecture.md): each ``report.FORMATS`` name has its module with
    ``render(results, out, ctx)``, and ``--statistics`` has a place in it or refuses it by name."""
    mod = report.module(name)
    assert callable(getattr(mod, "render", None)), f"kdacheck/report/{report.FORMATS[name]}.py: render(results, out, ctx)"
    assert not (hasattr(mod, "render_statistics") and name in report.NO_STATISTICS)


@pytest.mark.parametrize(("name", "command"), [(n, c) for n, by in report.REGISTRY.items() for c in by])
def test_every_format_has_its_renderer_for_each_command_it_claims(name: str, command: str) -> None:
    """"A new output format" (docs/architecture.md): one line in ``report.REGISTRY`` names, per
    command, the module that renders it; that module has the command's renderer (lint: ``render``;
    run: ``RunReport``, a ``report.RunRenderer`` that writes something)."""
    where = f"kdacheck/report/{report.REGISTRY[name][command]}.py"
    mod = report.module(name, command)
    renderer = getattr(mod, report.RENDERERS[command], None)
    assert renderer is not None, f"{where}: {report.RENDERERS[command]} ({name!r} claims the {command} command)"
    if command == "run":
        assert isinstance(renderer, type) and issubclass(renderer, report.RunRenderer), f"{where}: RunReport(report.RunRenderer)"
        hooks = ("plan_started", "case_done", "plan_done", "run_done")
        assert any(h in vars(renderer) for h in hooks), f"{where}: RunReport writes nothing (override one of {hooks})"
    else:
        assert callable(renderer)


def _run_report(name: str, plan: object) -> str:
    out = io.StringIO()
    rep = report.run_renderer(name, "cpu", out)
    code, results = runner_mod.execute(plan, "cpu", rep)  # type: ignore[arg-type]
    rep.run_done([(plan, results)])  # type: ignore[list-item]
    assert code == 0
    return out.getvalue()


@pytest.mark.parametrize("name", report.RUN_FORMATS)
def test_every_run_format_says_why_nothing_ran_and_shows_no_control_character(name: str) -> None:
    """Each ``kdacheck run`` format, as lint's: a plan with no kernel says why (never an empty
    pass), and text from the input reaches the output without its control characters."""
    from kdacheck.results import Plan

    plan = Plan("evil\x1b[31m.yaml", [], ["model: \x1b]8;;http://x\x07link"], "nothing to run for a model without hybrid state\x1b[2J")
    text = _run_report(name, plan)
    assert "nothing to run for a model without hybrid state" in text, text
    assert "\x1b" not in text and "\x07" not in text, repr(text)
    assert _run_report(name, plan) == text  # deterministic


@pytest.mark.parametrize("name", report.RUN_FORMATS)
def test_every_run_format_is_a_choice_of_kdacheck_run(name: str) -> None:
    r = invoke("run", "--device", "cpu", "--model", "meta-llama/Meta-Llama-3-8B-Instruct", "--output-format", name)
    assert r.exit_code == 0, r.output
    assert "without hybrid state" in r.stdout


def test_github_fact_lines_are_not_percent_encoded() -> None:
    # Plain log lines are not decoded by the runner: a `%` in a fact stays a `%`, not `%25`.
    r = invoke("lint", str(ROOT / "examples" / "qwen3-next-nextn.sh"), "--gpu", "h100", "--output-format", "github")
    facts = [ln for ln in r.stdout.splitlines() if ln.startswith("kdacheck info: ")]
    assert any("%" in ln for ln in facts) and not any("%25" in ln for ln in facts)


def test_json_text_is_the_documents_data_whatever_the_input_writes() -> None:
    """`json_.text` writes each resolved value's record on one line through a per-run mark: a
    value the input wrote that looks like a mark (NUL, hex, colon, index) stays data."""
    import json

    from kdacheck.report import json_

    forged = "\x000123456789abcdef:0"
    doc = {"files": [{"commands": [{"values": {"a": {"value": forged, "why": "\x00x:1"}, "b": {"value": [1, {"k": forged}]}},
                                    "command": forged}]}], "summary": {"note": '"' + forged + '"'}}
    expected = json.loads(json.dumps(doc))
    text = json_.text(json.loads(json.dumps(doc)))
    assert json.loads(text) == expected
    assert "\x00" not in text and '"a": {"value": "\\u0000' in text
