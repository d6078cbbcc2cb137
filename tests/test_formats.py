"""Output formats for CI: SARIF (schema-valid), GitHub workflow commands, JUnit, concise; exit
codes by threshold."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

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


def test_sarif_reports_unreadable_files_and_inline_commands() -> None:
    r = invoke("lint", "missing.yaml", "--cmd", "python -m sglang.launch_server --bogus", *SELECT, "--output-format", "sarif")
    assert r.exit_code == 2
    run = json.loads(r.stdout)["runs"][0]
    inv = run["invocations"][0]
    assert inv["executionSuccessful"] is False
    assert any("missing.yaml" in n["message"]["text"] for n in inv["toolExecutionNotifications"])
    (res,) = run["results"]
    assert res["ruleId"] == "ARG001" and "physicalLocation" not in res["locations"][0]


GITHUB = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),title=([A-Z]+\d+)::(.*)$")


def _github_lines(output: str) -> list[tuple[str, str, int, str]]:
    out = []
    for line in output.splitlines():
        if line.startswith("::"):
            m = GITHUB.match(line)
            assert m, line
            out.append((m.group(2), m.group(1), int(m.group(3)), m.group(5)))
    return out


def test_github_annotations_point_at_file_and_line() -> None:
    r = invoke("lint", ".", *SELECT, "--output-format", "github")
    assert r.exit_code == 1
    kinds = {"error": "error", "warning": "warning", "info": "notice"}
    assert sorted(_github_lines(r.stdout)) == sorted((p, kinds[s], line, c) for p, line, c, s in EXPECTED)
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
    r = invoke("lint", ".", *SELECT, "--output-format", "junit")
    assert r.exit_code == 1
    root = ET.fromstring(r.stdout)
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"errors/bad-flags.yaml", "k8s/deploy.yaml", "warn/spec002.sh"}
    total_failures = 0
    for name, suite in suites.items():
        cases = suite.findall("testcase")
        assert [c.get("name") for c in cases] == ["ARG001", "SPEC001", "SPEC002"]
        failing = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
        expected = {code: sev for p, _line, code, sev in EXPECTED if p == name}
        assert {k: f.get("type") for k, f in failing.items()} == expected
        assert int(suite.get("failures", "-1")) == len(expected)
        assert int(suite.get("tests", "-1")) == 3
        total_failures += len(expected)
    assert int(root.get("failures", "-1")) == total_failures == 5


def test_junit_escapes_any_message() -> None:
    r = invoke("lint", "--cmd", "python -m sglang.launch_server '--bogus-<&>\"\x01'", *SELECT, "--output-format", "junit")
    root = ET.fromstring(r.stdout)
    assert root.get("failures") == "1"
    failure = root.find(".//failure")
    assert failure is not None and "--bogus-<&>\"" in failure.get("message", "")


CONCISE = re.compile(r"^(\S+):(\d+):(\d+): ([A-Z]+\d+) \[(error|warning|info)\] (.+)$")


def test_concise_lines_are_sorted_and_formatted() -> None:
    r = invoke("lint", ".", *SELECT, "--output-format", "concise")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[-1] == "Checked 3 files, 3 launch commands, 4 errors, 1 warning, 0 info."
    parsed = [CONCISE.match(ln) for ln in lines[:-1]]
    assert all(parsed), lines
    keys = [(m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)) for m in parsed if m]
    assert keys == sorted(keys)
    assert [(k[0], k[1], k[3]) for k in keys] == [(p, line, c) for p, line, c, _s in EXPECTED]


def test_json_keeps_its_documented_key_order() -> None:
    r = invoke("lint", "warn/spec002.sh", *SELECT, "--output-format", "json")
    doc = json.loads(r.stdout)
    assert list(doc) == ["schema_version", "tool", "sglang_version", "files", "summary"]
    assert list(doc["files"][0]) == ["path", "error", "notes", "commands", "findings"]
    assert list(doc["files"][0]["findings"][0]) == ["code", "severity", "message", "location", "fix", "evidence", "command"]
    doc_md = (ROOT / "docs" / "json-schema.md").read_text()
    for key in doc["summary"]:
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
