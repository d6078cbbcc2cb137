"""What kdacheck writes on a stranger's pull request (``-o FILE``, ``lint --fix``): never
outside the tree, never through a link, never a corrupt file (docs/robustness.md, "Writes").

Each case runs kdacheck as a process beside an "outside" folder whose every file is hashed
before and after: the pull request may point links at it, it must not change.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck import confine, fix, writes
from tests.helpers import tree_state

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct"
ABBREVIATED = f"{LAUNCH} --tp 2\n"  # ARG003: --fix respells it
FIXED = f"{LAUNCH} --tp-size 2\n"
BOM = b"\xef\xbb\xbf"


def _kdacheck(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "kdacheck", *args], cwd=cwd, input=stdin, capture_output=True,
                          timeout=300, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    (r / "run.sh").write_text(ABBREVIATED)
    return r


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    o = tmp_path / "outside"
    o.mkdir()
    (o / "x.sh").write_text(ABBREVIATED)
    (o / "gl-code-quality.json").write_text("{}\n")
    return o


# --- -o FILE ------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["gl-code-quality.json", "missing.json"])  # a live link, a dangling one
def test_output_file_onto_a_committed_link_is_refused(repo: Path, outside: Path, target: str) -> None:
    (repo / "report.json").symlink_to(Path("..") / "outside" / target)
    before = tree_state(outside)
    p = _kdacheck("lint", "run.sh", "--output-format", "gitlab", "-o", "report.json", cwd=repo)
    assert p.returncode == 2, p.stderr
    assert b"report.json: a symbolic link: not written" in p.stderr
    assert tree_state(outside) == before and (repo / "report.json").is_symlink()


def test_output_file_through_a_linked_folder_or_outside_is_refused(repo: Path, outside: Path) -> None:
    (repo / "reports").symlink_to(outside)
    before = tree_state(outside)
    p = _kdacheck("lint", "run.sh", "-o", "reports/r.txt", cwd=repo)
    assert p.returncode == 2 and b"reports is a symbolic link" in p.stderr
    p = _kdacheck("lint", "run.sh", "-o", str(outside / "r.txt"), cwd=repo)
    assert p.returncode == 2 and b"outside the repository" in p.stderr
    assert tree_state(outside) == before
    # named by the user, outside, with --allow-outside: written (a new file, nothing else)
    assert _kdacheck("lint", "run.sh", "-o", str(outside / "r.txt"), "--allow-outside", cwd=repo).returncode == 0
    assert set(tree_state(outside)) - set(before) == {"r.txt"} and (outside / "r.txt").read_text().startswith("run.sh")


def test_output_file_replaces_a_regular_file_keeping_its_mode(repo: Path) -> None:
    out = repo / "report.txt"
    out.write_text("old\n")
    out.chmod(0o640)
    assert _kdacheck("lint", "run.sh", "-o", "report.txt", cwd=repo).returncode == 0
    assert out.read_text().startswith("run.sh") and out.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in repo.iterdir() if p.name.startswith(".kdacheck-")] == []  # no temporary file left


# --- --fix through links ------------------------------------------------------------------------


def _refused(p: subprocess.CompletedProcess[bytes], link: bytes, allow_outside: bool) -> None:
    """Refused by name, exit 2: unread (kdacheck.confine) without --allow-outside; read but
    never written (kdacheck.writes) with it."""
    assert p.returncode == 2, p.stderr
    if allow_outside:
        assert link + b" is a symbolic link: not written" in p.stderr, p.stderr
    else:
        assert b"outside the repository" in p.stdout + p.stderr, p.stdout + p.stderr


@pytest.mark.parametrize("allow_outside", [False, True], ids=["confined", "allow-outside"])
@pytest.mark.parametrize("args", [["deploy/**/*.sh"], ["deploy"], ["deploy/linked/x.sh"]], ids=["glob", "walk", "named"])
def test_fix_through_a_linked_folder_writes_nothing_outside(repo: Path, outside: Path, args: list[str], allow_outside: bool) -> None:
    (repo / "deploy").mkdir()
    (repo / "deploy" / "a.sh").write_text(ABBREVIATED)
    (repo / "deploy" / "linked").symlink_to(outside)
    before = tree_state(outside)
    p = _kdacheck("lint", *args, "--fix", *(["--allow-outside"] if allow_outside else []), cwd=repo)
    assert tree_state(outside) == before, p.stderr
    if b"linked/x.sh" in p.stdout + p.stderr:  # reached (a glob, a named file): refused by name, exit 2
        _refused(p, b"deploy/linked", allow_outside)
    if args != ["deploy/linked/x.sh"]:
        assert (repo / "deploy" / "a.sh").read_text() == FIXED  # the tree's own file is fixed


@pytest.mark.parametrize("allow_outside", [False, True], ids=["confined", "allow-outside"])
def test_fix_of_a_folder_the_pull_request_made_a_link(repo: Path, outside: Path, allow_outside: bool) -> None:
    (repo / "deploy").symlink_to(outside)
    before = tree_state(outside)
    p = _kdacheck("lint", "deploy", "--fix", *(["--allow-outside"] if allow_outside else []), cwd=repo)
    assert tree_state(outside) == before, p.stderr
    if b"deploy/x.sh" in p.stdout + p.stderr:
        _refused(p, b"deploy", allow_outside)


def test_fix_of_a_file_outside_the_working_directorys_repository(repo: Path, outside: Path) -> None:
    before = tree_state(outside)
    p = _kdacheck("lint", str(outside / "x.sh"), "--fix", "--allow-outside", cwd=repo)
    assert p.returncode == 2 and b"outside the repository" in p.stderr
    assert tree_state(outside) == before


# --- standard input -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", [None, "run.sh"])
def test_fix_of_standard_input_prints_the_fixed_text_and_touches_no_file(repo: Path, outside: Path, name: str | None) -> None:
    before, before_repo = tree_state(outside), tree_state(repo)
    source = BOM + ABBREVIATED.replace("\n", "\r\n").encode()
    p = _kdacheck("lint", "-", *(["--stdin-filename", name] if name else []), "--fix", cwd=repo, stdin=source)
    assert p.returncode == 0, p.stderr
    assert p.stdout == BOM + FIXED.replace("\n", "\r\n").encode()  # the fixed text only, its BOM and CRLF kept
    assert b"applied 1 fix" in p.stderr and b"Checked 1 file" in p.stderr  # the report goes to stderr
    assert tree_state(repo) == before_repo and tree_state(outside) == before


def test_fix_of_standard_input_with_other_paths_is_refused(repo: Path) -> None:
    p = _kdacheck("lint", "-", "run.sh", "--fix", cwd=repo, stdin=ABBREVIATED.encode())
    assert p.returncode == 2 and b"standard input alone" in p.stderr
    assert (repo / "run.sh").read_text() == ABBREVIATED


# --- never a corrupt file -----------------------------------------------------------------------


def test_two_concurrent_fix_runs_leave_each_file_original_or_fixed(repo: Path) -> None:
    (repo / "run.sh").unlink()
    names = [f"deploy/d{i // 20}/run{i:03}.sh" for i in range(200)]
    for n in names:
        (repo / n).parent.mkdir(parents=True, exist_ok=True)
        (repo / n).write_text(f"# {n}\n{ABBREVIATED}")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    procs = [subprocess.Popen([sys.executable, "-m", "kdacheck", "lint", ".", "--fix", "-q"], cwd=repo, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (_out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert b"Traceback" not in err and b"internal error" not in err
    for n in names:
        text = (repo / n).read_text()
        assert text in (f"# {n}\n{ABBREVIATED}", f"# {n}\n{FIXED}"), (n, text)
        assert text == f"# {n}\n{FIXED}"  # and the second pass of either run fixed what the other left
    assert not [p for p in repo.rglob(".kdacheck-*")]


def test_a_file_changed_since_it_was_read_is_not_written(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    f = repo / "run.sh"
    digest = writes.sha256(f.read_bytes())
    f.write_text("# edited meanwhile\n" + ABBREVIATED)
    with pytest.raises(writes.Changed, match="file changed since it was read, not fixed"):
        writes.replace("run.sh", FIXED.encode(), confine.repository_root("."), expect=digest)
    assert f.read_text() == "# edited meanwhile\n" + ABBREVIATED
    assert [p.name for p in repo.iterdir() if p.name.startswith(".kdacheck-")] == []
    # planned from bytes the lint did not see: not fixed, counted, the file left alone
    outcome = fix.gather([], False, {os.path.abspath("run.sh"): {digest}}, confine.repository_root("."))
    assert outcome.files == {}


def test_fix_keeps_owner_mode_bom_and_crlf(repo: Path) -> None:
    f = repo / "run.sh"
    f.write_bytes(BOM + b"# two GPUs\r\n" + ABBREVIATED.replace("\n", "\r\n").encode())
    f.chmod(0o640)
    if os.geteuid() == 0:  # as root: another user's file stays theirs
        os.chown(f, 1234, 1234)
    st = f.stat()
    p = _kdacheck("lint", "run.sh", "--fix", cwd=repo)
    assert b"applied 1 fix" in p.stderr, p.stderr
    assert f.read_bytes() == BOM + b"# two GPUs\r\n" + FIXED.replace("\n", "\r\n").encode()
    now = f.stat()
    assert (now.st_uid, now.st_gid, now.st_mode) == (st.st_uid, st.st_gid, st.st_mode)
    assert now.st_mode & 0o7777 == 0o640


BREAKS = {"lone CR": "\r", "form feed": "\f", "U+2028": "\u2028", "NEL": "\x85", "vertical tab": "\v"}


@pytest.mark.parametrize("brk", list(BREAKS.values()), ids=list(BREAKS))
def test_odd_line_breaks_in_a_comment_move_no_fix(repo: Path, brk: str) -> None:
    # The launch after the comment is already fixed at the column of the one below it: an edit
    # placed by str.splitlines' lines landed there and, matched as a prefix, grew
    # `--tp-size-size-size-size` over four passes.
    f = repo / "run.sh"
    f.write_text(f"# one{brk}two\n{FIXED}{ABBREVIATED}", newline="")
    p = _kdacheck("lint", "run.sh", "--fix", cwd=repo)
    assert f.read_bytes().decode() == f"# one{brk}two\n{FIXED}{FIXED}", p.stderr
    assert p.stderr.count(b"applied 1 fix") == 1
    assert _kdacheck("lint", "run.sh", "--diff", cwd=repo).returncode == 0  # nothing left, nothing repeated


@pytest.mark.parametrize("brk", ["\r", "\u2028"], ids=["lone CR", "U+2028"])
def test_a_yaml_config_key_after_an_odd_line_break_is_fixed_in_place(repo: Path, brk: str) -> None:
    # PyYAML ends a line at a lone CR or U+2028 too: its line numbers are placed by its rules
    f = repo / "cfg.yaml"
    f.write_text(f"model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct  # one{brk}# two\ntp_size: 2\n", newline="")
    _kdacheck("lint", "cfg.yaml", "--fix", cwd=repo)
    assert f.read_bytes().decode() == f"model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct  # one{brk}# two\ntp-size: 2\n"


def test_diff_shows_terminal_escapes_escaped(repo: Path) -> None:
    (repo / "run.sh").write_text(f"# \x1b]0;pwned\x07 \x1b[2J\r\u202e\n\t# indented\n{ABBREVIATED}", newline="")
    p = _kdacheck("lint", "run.sh", "--diff", cwd=repo)
    assert p.returncode == 1, p.stderr
    assert b" # \\x1b]0;pwned\\x07 \\x1b[2J\\x0d\\u202e\n" in p.stdout  # a context line: escaped too
    assert not any(c in p.stdout for c in (b"\x1b", b"\x07", b"\r", "\u202e".encode()))
    assert b" \t# indented\n" in p.stdout  # a tab is indentation a patch keeps: shown as it is


# --- --fix on Dockerfiles and YAML lists (flags added in the launch's own style) ----------------------

SPEC001_EXEC = ('FROM lmsysorg/sglang:v0.5.23\n'
                'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct", \\\n'
                '     "--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "5"]\n')
SPEC001_FIXED = SPEC001_EXEC.replace('"5"]', '"5", "--speculative-num-steps", "4"]')


@pytest.mark.parametrize("allow_outside", [False, True], ids=["confined", "allow-outside"])
@pytest.mark.parametrize("args", [["."], ["Dockerfile"]], ids=["walk", "named"])
def test_fix_of_a_dockerfile_linked_out_of_the_tree_writes_nothing_outside(repo: Path, outside: Path, args: list[str],
                                                                            allow_outside: bool) -> None:
    (repo / "run.sh").unlink()
    (outside / "Dockerfile").write_text(SPEC001_EXEC)
    (repo / "Dockerfile").symlink_to(Path("..") / "outside" / "Dockerfile")
    before = tree_state(outside)
    p = _kdacheck("lint", *args, "--fix", *(["--allow-outside"] if allow_outside else []), cwd=repo)
    assert tree_state(outside) == before, p.stderr
    assert (repo / "Dockerfile").is_symlink()
    assert p.returncode == 2, p.stderr
    if allow_outside:  # read, never written through the link
        assert b"Dockerfile: a symbolic link: not written" in p.stderr, p.stderr
    else:  # refused by name, unread
        assert b"outside the repository" in p.stdout + p.stderr, p.stdout + p.stderr
    d = _kdacheck("lint", *args, "--diff", "--allow-outside", cwd=repo)
    assert d.returncode == 2 and b"a symbolic link: not written" in d.stderr and tree_state(outside) == before


ANCHORED = {
    "compose.yaml": ("x-launch: &launch [python3, -m, sglang.launch_server, --model-path, moonshotai/Kimi-Linear-48B-A3B-Instruct,\n"
                     "  --speculative-algorithm, EAGLE, --speculative-eagle-topk, '1', --speculative-num-draft-tokens, '5']\n"
                     "services:\n  a:\n    command: *launch\n  b:\n    command: *launch\n    ports: ['30001:30000']\n"),
    "deploy.yaml": ("apiVersion: v1\nkind: Pod\nmetadata: {name: two}\nspec:\n  containers:\n"
                    "    - name: a\n      command: &cmd\n        - python3\n        - -m\n        - sglang.launch_server\n"
                    "        - --model-path\n        - moonshotai/Kimi-Linear-48B-A3B-Instruct\n        - --speculative-algorithm\n"
                    "        - EAGLE\n        - --speculative-eagle-topk\n        - '1'\n        - --speculative-num-draft-tokens\n"
                    "        - '5'\n    - name: b\n      command: *cmd\n"),
}


@pytest.mark.parametrize("name", sorted(ANCHORED))
def test_a_yaml_edit_inside_an_anchor_that_aliases_share_is_not_applied(repo: Path, name: str) -> None:
    """The launch list is an anchored node (`&launch`) that another service or container names
    by alias: a new item there would change both. Not fixable, not written, said once."""
    f = repo / name
    f.write_text(ANCHORED[name])
    d = _kdacheck("lint", name, "--diff", cwd=repo)
    assert d.returncode == 0 and d.stdout == b"", d.stderr
    assert b"would apply 0 fixes" in d.stderr and d.stderr.count(b"inside a YAML anchor that aliases share") == 1, d.stderr
    p = _kdacheck("lint", name, "--fix", cwd=repo)
    assert f.read_text() == ANCHORED[name] and b"applied 0 fixes" in p.stderr
    concise = _kdacheck("lint", name, "--select", "SPEC001", "--output-format", "concise", cwd=repo).stdout
    assert concise.count(b"SPEC001") == 2 and b"[*]" not in concise  # both launches found, neither fixable


K8S_BLOCK = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: kimi\nspec:\n  containers:\n    - name: sglang\n"
             "      args:\n        - --model-path\n        - moonshotai/Kimi-Linear-48B-A3B-Instruct\n"
             "        - --speculative-algorithm\n        - EAGLE\n        - --speculative-eagle-topk\n        - \"1\"\n"
             "        - --speculative-num-draft-tokens\n        - \"5\"  # five\n"
             "      command: [python3, -m, sglang.launch_server]\n")


@pytest.mark.parametrize(("name", "text", "fixed"), [
    ("Dockerfile", SPEC001_EXEC, SPEC001_FIXED),
    ("pod.yaml", K8S_BLOCK.replace("      command: [python3, -m, sglang.launch_server]\n", ""), None),
], ids=["dockerfile", "kubernetes-block-list"])
def test_added_flags_keep_crlf_and_bom(repo: Path, name: str, text: str, fixed: str | None) -> None:
    if fixed is None:  # a Kubernetes block list: the new items are new lines, ended as the file ends them
        text = text.replace("      args:\n", "      command: [python3, -m, sglang.launch_server]\n      args:\n")
        fixed = text.replace('        - "5"  # five\n', '        - "5"  # five\n        - "--speculative-num-steps"\n        - "4"\n')
    f = repo / name
    f.write_bytes(BOM + text.replace("\n", "\r\n").encode())
    p = _kdacheck("lint", name, "--fix", cwd=repo)
    assert b"applied 1 fix" in p.stderr, p.stderr
    assert f.read_bytes() == BOM + fixed.replace("\n", "\r\n").encode()


def test_a_dockerfile_changed_between_read_and_write_is_not_written(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Planned from the bytes the lint read; the file edited before the write: left as it is now,
    reported as changed (kdacheck.writes compares the sha256 under the rename)."""
    from kdacheck.flags import NEWEST
    from kdacheck.lint import Options, lint_text

    monkeypatch.chdir(repo)
    f = repo / "Dockerfile"
    f.write_text(SPEC001_EXEC)
    digest = writes.sha256(f.read_bytes())
    findings = [x for x in lint_text(SPEC001_EXEC, "Dockerfile", Options(version=NEWEST)).findings if x.edits]
    assert [x.code for x in findings] == ["SPEC001"] and findings[0].fixable
    root = confine.repository_root(".")
    outcome = fix.gather(findings, False, {os.path.abspath("Dockerfile"): {digest}}, root)
    assert outcome.files["Dockerfile"][1] == SPEC001_FIXED
    f.write_text(SPEC001_EXEC + "EXPOSE 30000\n")  # between the plan and the write
    fix.write(outcome, root)
    assert f.read_text() == SPEC001_EXEC + "EXPOSE 30000\n"
    assert "Dockerfile" in outcome.changed and outcome.applied == 0 and outcome.files == {}
    assert [p.name for p in repo.iterdir() if p.name.startswith(".kdacheck-")] == []
    # and planned when the bytes already differ from what was read: not planned at all
    again = fix.gather(findings, False, {os.path.abspath("Dockerfile"): {digest}}, root)
    assert again.files == {} and "Dockerfile" in again.changed


def test_a_file_reached_through_a_link_inside_the_tree_is_not_marked_fixable(repo: Path) -> None:
    """The marker means what --fix does: a file under a linked folder (even one pointing inside
    the repository) is read, but never written, so its findings carry no `[*]`."""
    (repo / "real").mkdir()
    (repo / "run.sh").rename(repo / "real" / "run.sh")
    (repo / "alias").symlink_to("real")
    direct = _kdacheck("lint", "real/run.sh", "--select", "ARG003", "--output-format", "concise", cwd=repo).stdout
    linked = _kdacheck("lint", "alias/run.sh", "--select", "ARG003", "--output-format", "concise", cwd=repo).stdout
    assert b"[*] ARG003" in direct and b"[*] 1 fixable with --fix." in direct
    assert b"ARG003" in linked and b"[*]" not in linked
    p = _kdacheck("lint", "alias/run.sh", "--fix", cwd=repo)
    assert p.returncode == 2 and b"alias is a symbolic link" in p.stderr and (repo / "real" / "run.sh").read_text() == ABBREVIATED


def test_the_anchor_guard_on_text_libyaml_cannot_encode_holds_every_edit() -> None:
    """A lone surrogate (from a text handed in, never from a decoded file) in a YAML with an
    anchor: the guard cannot parse it, so it holds every edit back, and nothing raises."""
    from kdacheck.findings import Edit, Finding, Location, Severity

    text = "model-path: &m moonshotai/Kimi-Linear-48B-A3B-Instruct  # \ud800\ntp: 2\n"
    assert fix.shared_spans(text, "c.yaml") == [(0, len(text))]
    loc = Location("c.yaml", 2, 1)
    f = Finding("ARG003", Severity.INFO, "abbreviation", loc, edits=(Edit(loc, "tp", "tp-size"),))
    assert fix.plan([f], False, {"c.yaml": text}).applied == 0
    assert not fix.mark([f], lambda _p: text)[0].fixable
