"""The options people type without reading the help, as ruff, shellcheck and hadolint have them."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KDA007 = str(ROOT / "examples" / "errors" / "KDA007-tp3.sh")
ARG003 = str(ROOT / "examples" / "errors" / "ARG003-abbreviations.sh")
SPEC002 = str(ROOT / "examples" / "errors" / "SPEC002-chain-draft-tokens.sh")


def _kdacheck(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, fastpath: bool = True) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    e.pop("GITHUB_ACTIONS", None)
    e.pop("NO_COLOR", None) if "NO_COLOR" not in (env or {}) else None
    if not fastpath:
        e["KDACHECK_NO_FASTPATH"] = "1"
    return subprocess.run([sys.executable, "-m", "kdacheck", *args], cwd=cwd or ROOT, capture_output=True, text=True, timeout=120, env=e)


@pytest.mark.parametrize("fastpath", [True, False], ids=["fastpath", "typer"])
def test_quiet_prints_only_failing_findings(fastpath: bool) -> None:
    p = _kdacheck("lint", SPEC002, ARG003, "-q", fastpath=fastpath)
    assert p.returncode == 1
    assert "SPEC002" in p.stdout and "KDA009" not in p.stdout and "MEM001" not in p.stdout and "facts:" not in p.stdout
    assert "ARG003 " not in p.stdout  # a note (info): below the threshold


def test_statistics_counts_per_rule() -> None:
    p = _kdacheck("lint", ARG003, KDA007, "--statistics")
    lines = p.stdout.splitlines()
    assert "2  ARG003    [info]  full-flag-names" in lines
    assert lines[-1].endswith("findings in 2 files")
    doc = json.loads(_kdacheck("lint", ARG003, "--statistics", "--output-format", "json").stdout)
    assert {"code": "ARG003", "name": "full-flag-names", "severity": "info", "count": 2} in doc["statistics"]["rules"]
    assert "files" in doc and "summary" in doc  # the report, with its statistics object


def test_show_settings_names_each_source(tmp_path: Path) -> None:
    (tmp_path / "kdacheck.toml").write_text('gpu = "h200"\nignore = ["MEM001"]\n[per-file-ignores]\n"legacy/*.sh" = ["ARG003"]\n')
    p = _kdacheck("lint", ".", "--show-settings", cwd=tmp_path, env={"KDACHECK_SGLANG_VERSION": "0.5.21"})
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "kdacheck.toml" in out.splitlines()[0]
    assert "0.5.21" in out and "H200" in out.upper() and "MEM001" in out and "legacy/*.sh: ARG003" in out
    iso = _kdacheck("lint", ".", "--show-settings", "--isolated", cwd=tmp_path).stdout
    assert "none (--isolated)" in iso and "legacy" not in iso


def test_per_file_ignores_from_the_settings_and_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "run.sh").write_text(Path(ARG003).read_text())
    (tmp_path / "new.sh").write_text(Path(ARG003).read_text())
    (tmp_path / "kdacheck.toml").write_text('[per-file-ignores]\n"legacy/*.sh" = ["ARG003"]\n')

    def codes(*extra: str) -> dict[str, set[str]]:
        doc = json.loads(_kdacheck("lint", ".", "--output-format", "json", *extra, cwd=tmp_path).stdout)
        return {Path(f["path"]).name: {x["code"] for x in f["findings"]} for f in doc["files"]}

    got = codes()
    assert "ARG003" not in got["run.sh"] and "ARG003" in got["new.sh"]
    got = codes("--per-file-ignores", "new.sh:ARG")
    assert "ARG003" not in got["new.sh"]
    assert "ARG003" in codes("--isolated")["run.sh"]  # --isolated: the settings file's ignores are gone
    bad = _kdacheck("lint", ".", "--per-file-ignores", "nocolon", cwd=tmp_path)
    assert bad.returncode == 2 and "GLOB:CODES" in bad.stderr


@pytest.mark.parametrize("fastpath", [True, False], ids=["fastpath", "typer"])
def test_environment_variables_choose_options(fastpath: bool) -> None:
    p = _kdacheck("lint", KDA007, env={"KDACHECK_OUTPUT_FORMAT": "concise"}, fastpath=fastpath)
    assert p.stdout.startswith(KDA007 + ":") and p.returncode == 1
    p = _kdacheck("lint", KDA007, "--output-format", "json", env={"KDACHECK_OUTPUT_FORMAT": "concise"}, fastpath=fastpath)
    json.loads(p.stdout)  # the command line wins
    bad = _kdacheck("lint", KDA007, env={"KDACHECK_OUTPUT_FORMAT": "bogus"}, fastpath=fastpath)
    assert bad.returncode == 2 and "KDACHECK_OUTPUT_FORMAT" in bad.stderr


def _on_a_terminal(*args: str, env: dict[str, str]) -> bytes:
    e = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120", **env}
    e.pop("GITHUB_ACTIONS", None)
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(sys.executable, [sys.executable, "-m", "kdacheck", *args], e)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    return out


def test_no_color_and_color_never_print_no_escape_on_a_terminal() -> None:
    assert b"\x1b[" in _on_a_terminal("lint", KDA007, env={})  # the control: a terminal is styled
    assert b"\x1b" not in _on_a_terminal("lint", KDA007, env={"NO_COLOR": "1"})
    assert b"\x1b" not in _on_a_terminal("lint", KDA007, "--color", "never", env={})
    assert b"\x1b[" in _kdacheck("lint", KDA007, "--color", "always").stdout.encode()


def test_gitlab_code_quality_report(tmp_path: Path) -> None:
    p = _kdacheck("lint", "examples/errors/KDA007-tp3.sh", "examples/errors/SPEC002-chain-draft-tokens.sh", "--output-format", "gitlab")
    issues = json.loads(p.stdout)
    assert p.returncode == 1 and isinstance(issues, list)
    for i in issues:
        assert set(i) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert i["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert not i["location"]["path"].startswith("/") and i["location"]["lines"]["begin"] >= 1
    # facts (info) left out; what could not be checked (MEM002 without --gpu) is an info issue
    assert {i["check_name"]: i["severity"] for i in issues} == {"KDA007": "critical", "SPEC002": "major", "MEM002": "info"}
    assert "could not be checked: needs --gpu" in next(i["description"] for i in issues if i["check_name"] == "MEM002")
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    fail = _kdacheck("lint", "nonexistent.sh", "--output-format", "gitlab")
    assert fail.returncode == 2 and [i["severity"] for i in json.loads(fail.stdout)] == ["blocker"]
    bad_option = _kdacheck("lint", "--cmd", "x", "--sglang-version", "9.9", "--output-format", "gitlab")
    assert bad_option.returncode == 2 and json.loads(bad_option.stdout) == []


def test_rules_one_line_each_with_its_link() -> None:
    lines = _kdacheck("rules").stdout.splitlines()
    from kdacheck.rules import all_rules

    assert len(lines) == len(all_rules())
    assert all(ln.split()[0] == r.code and ln.endswith(r.help_uri) for ln, r in zip(lines, all_rules(), strict=True))
    assert _kdacheck("rules", "--output-format", "csv").returncode == 2
