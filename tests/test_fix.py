"""``kdacheck lint --fix`` and ``--diff``: the findings' edits, applied to the files as written."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

if TYPE_CHECKING:
    from kdacheck.findings import Finding

ROOT = Path(__file__).resolve().parent.parent
ERRORS = ROOT / "examples" / "errors"
FIXABLE = ["ARG003-abbreviations.sh", "ARG005-deprecated-spelling.yaml", "ARG006-underscore-keys.yaml",
           "SPEC001-draft-tokens-without-steps.sh", "SPEC001-qwen3-next.Dockerfile",
           "SPEC002-chain-draft-tokens.sh"]


def _kdacheck(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "kdacheck", *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def _codes(path: Path, cwd: Path) -> set[str]:
    doc = json.loads(_kdacheck("lint", str(path), "--output-format", "json", cwd=cwd).stdout)
    return {f["code"] for file in doc["files"] for f in file["findings"] if not f["message"].startswith("could not be checked")}


@pytest.mark.parametrize("name", FIXABLE)
def test_fix_leaves_the_file_clean_of_its_code_and_unchanged_elsewhere(name: str, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    f = tmp_path / name
    shutil.copy(ERRORS / name, f)
    os.chmod(f, 0o755)
    code = name.split("-", 1)[0]
    before = f.read_text()
    assert code in _codes(f, tmp_path)

    d = _kdacheck("lint", name, "--diff", cwd=tmp_path)
    assert d.returncode == 1, d.stderr
    assert f.read_text() == before  # --diff writes nothing

    p = _kdacheck("lint", name, "--fix", cwd=tmp_path)
    after = f.read_text()
    assert code not in _codes(f, tmp_path), p.stdout
    assert os.stat(f).st_mode & 0o777 == 0o755
    # only the changed lines differ: comments, quoting and layout are kept
    changed = [ln for ln in difflib.ndiff(before.splitlines(), after.splitlines()) if ln.startswith(("-", "+"))]
    assert changed and len(changed) <= 4, changed
    assert len(before.splitlines()) == len(after.splitlines())
    # --diff printed the same change the fix made
    patch = [ln[1:] for ln in d.stdout.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert patch == [ln[2:] for ln in changed if ln.startswith("+")]
    assert _kdacheck("lint", name, "--diff", cwd=tmp_path).returncode == 0  # nothing left to fix


def test_json_carries_the_edits_with_their_applicability(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 2 --tp-sise 2\n")
    doc = json.loads(_kdacheck("lint", "run.sh", "--output-format", "json", cwd=tmp_path).stdout)
    edits = {f["code"]: f["edits"] for f in doc["files"][0]["findings"] if f["edits"]}
    assert edits["ARG003"] == [{"location": {"path": "run.sh", "line": 1, "column": 85}, "old": "--tp", "new": "--tp-size", "applicability": "safe"}]
    assert edits["ARG001"][0]["new"] == "--tp-size" and edits["ARG001"][0]["applicability"] == "unsafe"


def test_unsafe_fixes_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    f = tmp_path / "run.sh"
    f.write_text("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tensor-paralel-size 2\n")
    p = _kdacheck("lint", "run.sh", "--fix", cwd=tmp_path)
    assert "--tensor-paralel-size" in f.read_text() and "more with --unsafe-fixes" in p.stderr
    _kdacheck("lint", "run.sh", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "--tensor-parallel-size 2" in f.read_text()


def test_kubernetes_quoted_args_and_crlf_keep_their_form(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    k8s = tmp_path / "dep.yaml"
    k8s.write_bytes(b'apiVersion: apps/v1\r\nkind: Deployment\r\nmetadata:\r\n  name: kimi\r\nspec:\r\n  template:\r\n    spec:\r\n'
                    b'      containers:\r\n        - name: sglang\r\n          command: ["python3", "-m", "sglang.launch_server",'
                    b' "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct", "--tp", "2"]  # two GPUs\r\n')
    _kdacheck("lint", "dep.yaml", "--fix", cwd=tmp_path)
    assert k8s.read_bytes().endswith(b'"--tp-size", "2"]  # two GPUs\r\n')
    assert b"\r\n" in k8s.read_bytes() and b"\n" not in k8s.read_bytes().replace(b"\r\n", b"")


def test_a_config_outside_the_tree_is_never_written(tmp_path: Path) -> None:
    outside = tmp_path / "shared.yaml"
    outside.write_text("tp_size: 2\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "run.sh").write_text(f"python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --config {outside}\n")
    _kdacheck("lint", "run.sh", "--fix", "--allow-outside", cwd=repo)
    assert outside.read_text() == "tp_size: 2\n"


def _edit_at(line: int, col: int) -> Finding:
    from kdacheck.findings import Edit, Finding, Location, Severity

    loc = Location("f.sh", line, col)
    return Finding("ARG003", Severity.INFO, "abbreviation", loc, edits=(Edit(loc, "--tp", "--tp-size"),))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["--tp", "--tp-size", " ", "2", "#", "\n", "\r\n", "\r", "\f", "\v", "\x85", "\u2028", '"', "x"]),
                max_size=30),
       st.integers(1, 12), st.integers(1, 30))
def test_an_edit_replaces_only_a_whole_old_word_and_never_twice(parts: list[str], line: int, col: int) -> None:
    """Wherever an edit points, in text with any line breaks: the text is unchanged, or its old
    word (not a prefix of a longer one) became the new one and nothing else moved; applied again
    to its own result, it changes nothing (no `--tp-size-size`)."""
    from kdacheck import fix

    before = "".join(parts)
    out = fix.plan([_edit_at(line, col)], False, {"f.sh": before})
    after = out.files.get("f.sh", (before, before))[1]
    if after != before:
        at = [s for s in range(len(before)) if before.startswith("--tp", s) and after == before[:s] + "--tp-size" + before[s + 4:]]
        assert any(s + 4 == len(before) or before[s + 4] not in "-_.abcdefghijklmnopqrstuvwxyz0123456789" for s in at), (before, after)
        again = fix.plan([_edit_at(line, col)], False, {"f.sh": after})
        assert "f.sh" not in again.files or "--tp-size-size" not in again.files["f.sh"][1]


_SPEC001_ARGS = ["--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct", "--speculative-algorithm", "EAGLE",
                 "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "5"]
_K8S_BLOCK = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: kimi
spec:
  template:
    spec:
      containers:
        - name: sglang
          command:
            - python3
            - -m
            - sglang.launch_server
          args:
            - --model-path
            - moonshotai/Kimi-Linear-48B-A3B-Instruct
            - --speculative-algorithm
            - EAGLE
            - --speculative-eagle-topk
            - "1"
            - --speculative-num-draft-tokens
            - "5"   # five draft tokens
          ports:
            - containerPort: 30000
"""
_K8S_FLOW = """\
apiVersion: v1
kind: Pod
metadata: {name: kimi}
spec:
  containers:
    - name: sglang
      image: lmsysorg/sglang:v0.5.23
      command: ['python3', '-m', 'sglang.launch_server', '--model-path', 'moonshotai/Kimi-Linear-48B-A3B-Instruct',
                '--speculative-algorithm', 'EAGLE', '--speculative-eagle-topk', '1', '--speculative-num-draft-tokens', '5']  # chain
      ports: [{containerPort: 30000}]
"""
_COMPOSE = """\
services:
  string-form:
    image: lmsysorg/sglang:v0.5.23
    command: python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --speculative-algorithm EAGLE --speculative-eagle-topk 1 --speculative-num-draft-tokens 5
  list-form:
    image: lmsysorg/sglang:v0.5.23
    command:
      - python3
      - -m
      - sglang.launch_server
      - --model-path
      - moonshotai/Kimi-Linear-48B-A3B-Instruct
      - --speculative-algorithm
      - EAGLE
      - --speculative-eagle-topk
      - '1'
      - --speculative-num-draft-tokens
      - '5'
    ports: ["30000:30000"]
"""
_DOCKER_EXEC = """\
FROM lmsysorg/sglang:v0.5.23
# the server
CMD ["python3", "-m", "sglang.launch_server", "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct", \\
     "--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "5"]
EXPOSE 30000
"""
_DOCKER_SHELL = """\
FROM lmsysorg/sglang:v0.5.23
ENTRYPOINT python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \\
    --speculative-algorithm EAGLE --speculative-eagle-topk 1 --speculative-num-draft-tokens 5  # five
"""
# What each fix must change: {line number in the old file: that line as it must become (None: kept,
# new lines added after it)}, and the new lines added.
ADD_CASES = {
    "deploy.yaml": (_K8S_BLOCK, {22: None}, ['            - "--speculative-num-steps"', '            - "4"']),
    "pod.yaml": (_K8S_FLOW, {9: "                '--speculative-algorithm', 'EAGLE', '--speculative-eagle-topk', '1', "
                                "'--speculative-num-draft-tokens', '5', '--speculative-num-steps', '4']  # chain"}, []),
    "compose.yaml": (_COMPOSE, {4: "    command: python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct "
                                   "--speculative-algorithm EAGLE --speculative-eagle-topk 1 --speculative-num-draft-tokens 5 "
                                   "--speculative-num-steps 4",
                                18: None}, ["      - '--speculative-num-steps'", "      - '4'"]),
    "Dockerfile": (_DOCKER_EXEC, {4: '     "--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "1", '
                                     '"--speculative-num-draft-tokens", "5", "--speculative-num-steps", "4"]'}, []),
    "serve.Dockerfile": (_DOCKER_SHELL, {3: "    --speculative-algorithm EAGLE --speculative-eagle-topk 1 "
                                            "--speculative-num-draft-tokens 5 --speculative-num-steps 4  # five"}, []),
}


def _diff_lines(before: str, after: str) -> tuple[set[str], set[str]]:
    gone, came = set(), set()
    for ln in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if ln.startswith("-") and not ln.startswith("---"):
            gone.add(ln[1:])
        elif ln.startswith("+") and not ln.startswith("+++"):
            came.add(ln[1:])
    return gone, came


@pytest.mark.parametrize("name", sorted(ADD_CASES))
def test_fix_adds_the_missing_flag_in_each_format_and_changes_only_its_lines(name: str, tmp_path: Path) -> None:
    """SPEC001's fix (SGLang 0.5.23 srt/server_args.py, _handle_speculative_decoding: topk and
    draft tokens given without steps stop at start) adds `--speculative-num-steps 4` to a
    Kubernetes manifest (block and flow lists), a Compose file (string and list forms) and a
    Dockerfile (exec and shell forms): in the launch's own style, nothing else touched."""
    text, changed_at, extra = ADD_CASES[name]
    (tmp_path / ".git").mkdir()
    f = tmp_path / name
    f.write_text(text)
    assert "SPEC001" in _codes(f, tmp_path)
    d = _kdacheck("lint", name, "--diff", cwd=tmp_path)
    assert d.returncode == 1, d.stderr
    assert f.read_text() == text  # --diff writes nothing
    would = d.stderr.split("would apply ", 1)[1].split(" fix", 1)[0]
    p = _kdacheck("lint", name, "--fix", cwd=tmp_path)
    applied = p.stderr.split("applied ", 1)[1].split(" fix", 1)[0]
    assert would == applied == str(len(changed_at)), (d.stderr, p.stderr)
    after = f.read_text()
    old_lines = text.splitlines()
    gone, came = _diff_lines(text, after)
    assert gone == {old_lines[n - 1] for n, new in changed_at.items() if new is not None}
    assert came == {new for new in changed_at.values() if new is not None} | set(extra)
    assert len(after.splitlines()) == len(old_lines) + len(extra)
    assert "SPEC001" not in _codes(f, tmp_path), p.stderr
    again = _kdacheck("lint", name, "--diff", cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == "", again.stdout  # nothing left to fix: no diff, exit 0


def test_a_flag_that_cannot_be_added_as_written_is_not_fixable_and_diff_exits_0(tmp_path: Path) -> None:
    """The last word is `$DRAFT` (ENV, expanded by the shell): its text is not the word written,
    so no edit is applied, --diff shows nothing and exits 0, and the summary says why once."""
    (tmp_path / ".git").mkdir()
    f = tmp_path / "Dockerfile"
    text = _DOCKER_SHELL.replace("FROM lmsysorg/sglang:v0.5.23\n", "FROM lmsysorg/sglang:v0.5.23\nENV DRAFT=5\n").replace(
        "draft-tokens 5", "draft-tokens $DRAFT")
    f.write_text(text)
    d = _kdacheck("lint", "Dockerfile", "--diff", cwd=tmp_path)
    assert d.returncode == 0 and d.stdout == "" and "would apply 0 fixes" in d.stderr, d.stderr
    assert "1 not applicable to the text as written" in d.stderr
    p = _kdacheck("lint", "Dockerfile", "--fix", cwd=tmp_path)
    assert f.read_text() == text and "applied 0 fixes" in p.stderr


def test_the_fixable_marker_in_text_json_and_sarif(tmp_path: Path) -> None:
    """`[*]` before the code and `[*] N fixable with --fix.` in the text formats, `fixable` in JSON,
    SARIF `fixes` (schema-valid) only where --fix writes: the exec-form Dockerfile's SPEC001 is
    fixable, the one whose last word is `$DRAFT` is not."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "Dockerfile").write_text(_DOCKER_EXEC)
    (tmp_path / "b" / "Dockerfile").write_text(_DOCKER_SHELL.replace("FROM lmsysorg/sglang:v0.5.23\n", "FROM lmsysorg/sglang:v0.5.23\nENV DRAFT=5\n")
                                               .replace("draft-tokens 5", "draft-tokens $DRAFT"))
    concise = _kdacheck("lint", ".", "--select", "SPEC001", "--output-format", "concise", cwd=tmp_path).stdout.splitlines()
    concise = [ln for ln in concise if ": note: model " not in ln]  # where each launch's model came from
    assert concise == [
        "a/Dockerfile:4:42: [*] SPEC001 [error] `--speculative-eagle-topk` and `--speculative-num-draft-tokens` given without "
        "`--speculative-num-steps`: SGLang stops at start with a bare AssertionError",
        "b/Dockerfile:4:35: SPEC001 [error] `--speculative-eagle-topk` and `--speculative-num-draft-tokens` given without "
        "`--speculative-num-steps`: SGLang stops at start with a bare AssertionError",
        "Checked 2 files, 2 launch commands, 2 errors, 0 warnings, 0 info.",
        "[*] 1 fixable with --fix.",
    ]
    full = _kdacheck("lint", "b", "--select", "SPEC001", cwd=tmp_path).stdout
    assert "fix: add `--speculative-num-steps 4` (--fix cannot apply it to the text as written)" in full and "[*]" not in full
    doc = json.loads(_kdacheck("lint", ".", "--select", "SPEC001", "--output-format", "json", cwd=tmp_path).stdout)
    assert [(f["path"], [x["fixable"] for x in f["findings"]]) for f in doc["files"]] == [("a/Dockerfile", [True]), ("b/Dockerfile", [False])]
    sarif = json.loads(_kdacheck("lint", ".", "--select", "SPEC001", "--output-format", "sarif", cwd=tmp_path).stdout)
    results = sarif["runs"][0]["results"]
    assert [("fixes" in r) for r in results] == [True, False]
    (change,) = results[0]["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "a/Dockerfile"
    # the insertion after `"5"` on line 4: an empty region there, the new items as its content
    line4 = _DOCKER_EXEC.splitlines()[3]
    col = line4.index('"5"]') + 4
    assert change["replacements"] == [{"deletedRegion": {"startLine": 4, "startColumn": col, "endLine": 4, "endColumn": col},
                                       "insertedContent": {"text": ', "--speculative-num-steps", "4"'}}]
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    assert not list(jsonschema.Draft4Validator(schema).iter_errors(sarif))


@pytest.mark.parametrize("name", ["Dockerfile", "compose.yaml"])
def test_fix_of_standard_input_applies_the_same_additions(name: str, tmp_path: Path) -> None:
    """`--fix -` edits the text given exactly as `--fix FILE` edits the file."""
    (tmp_path / ".git").mkdir()
    text, _changed, _extra = ADD_CASES[name]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "-", "--fix", "--stdin-filename", name], cwd=tmp_path,
                       input=text, capture_output=True, text=True, timeout=120, env=env)
    (tmp_path / name).write_text(text)
    _kdacheck("lint", name, "--fix", cwd=tmp_path)
    assert p.stdout == (tmp_path / name).read_text() != text, p.stderr


@pytest.mark.parametrize(("text", "why"), [
    ('FROM x\nENTRYPOINT ["sh", "-c", "python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct '
     '--speculative-algorithm EAGLE --speculative-eagle-topk 1 --speculative-num-draft-tokens 5"]\n',
     "the launch is a script inside one exec-form word"),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n    - name: s\n      command:\n"
     "        - python3\n        - -m\n        - sglang.launch_server\n        - --model-path\n"
     "        - moonshotai/Kimi-Linear-48B-A3B-Instruct\n        - --speculative-algorithm\n        - EAGLE\n"
     "        - --speculative-eagle-topk\n        - '1'\n        - --speculative-num-draft-tokens\n        - |\n          5\n",
     "the last item of the launch's list spans lines"),
], ids=["script-in-exec-word", "block-scalar-item"])
def test_a_flag_the_reader_cannot_add_to_says_why_with_its_fix(text: str, why: str, tmp_path: Path) -> None:
    from kdacheck.flags import NEWEST
    from tests.helpers import lint

    name = "Dockerfile" if text.startswith("FROM") else "pod.yaml"
    (spec,) = [f for f in lint(text, path=name, version=NEWEST).findings if f.code == "SPEC001"]
    assert spec.fix == f"add `--speculative-num-steps 4` (--fix cannot write it here: {why})"
    assert not spec.edits and not spec.fixable


_WORDS = ["python3", "-m", "sglang.launch_server", "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct",
          "--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "5"]


def _item(word: str, style: str) -> str:
    if style == "double":
        return json.dumps(word)
    if style == "single":
        return f"'{word}'"
    return word if not word.isdigit() else json.dumps(word)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["plain", "single", "double"]), min_size=len(_WORDS), max_size=len(_WORDS)),
       st.sampled_from(["block", "flow", "flow-wrapped"]), st.sampled_from(["", "  # five", "   #five"]),
       st.sampled_from(["\n", "\r\n"]), st.integers(0, 3), st.sampled_from(["kubernetes", "compose"]))
def test_an_added_flag_reads_back_as_the_launch_plus_the_flag(styles: list[str], layout: str, comment: str, brk: str,
                                                               indent: int, kind: str) -> None:
    """However a launch list is written (block or flow, each item plain or quoted, a comment after
    the last, CRLF, any indentation), SPEC001's fix adds exactly `--speculative-num-steps 4` as two
    more items of the same list: read back, the launch is the old one plus those two words, the
    YAML is still valid, and nothing else in the document changed."""
    import yaml

    from kdacheck import fix
    from kdacheck.flags import NEWEST
    from kdacheck.readers import read_text
    from tests.helpers import lint

    items = [_item(w, s) for w, s in zip(_WORDS, styles, strict=True)]
    key = "      " if kind == "kubernetes" else "    "  # the indentation of `command:`
    at = key + " " * indent  # block items at or below it
    if layout == "block":
        lst = "\n" + "".join(f"{at}- {it}\n" for it in items[:-1]) + f"{at}- {items[-1]}{comment}\n"
    elif layout == "flow":
        lst = " [" + ", ".join(items) + "]" + comment + "\n"
    else:
        lst = " [" + ", ".join(items[:6]) + ",\n" + at + "  " + ", ".join(items[6:]) + "]" + comment + "\n"
    if kind == "kubernetes":
        head = f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n    - name: s\n{key}image: x\n{key}command:"
        tail = f"{key}ports: [{{containerPort: 30000}}]\n"
    else:
        head = f"services:\n  s:\n{key}image: x\n{key}command:"
        tail = f"{key}ports: ['30000:30000']\n"
    text = (head + lst + tail).replace("\n", brk)
    before_doc = yaml.safe_load(text)
    name = "pod.yaml" if kind == "kubernetes" else "compose.yaml"
    r = lint(text, path=name, version=NEWEST)
    spec = [f for f in r.findings if f.code == "SPEC001"]
    assert r.error is None and len(spec) == 1, (text, r.error)
    out = fix.plan(spec, False, {name: text})
    assert out.applied == 1, (text, out)
    after = out.files[name][1]
    (old,) = read_text(text, name)
    (new,) = read_text(after, name)
    assert [t.text for t in new.tokens] == [t.text for t in old.tokens] + ["--speculative-num-steps", "4"], after
    after_doc = yaml.safe_load(after)
    path = ["spec", "containers", 0, "command"] if kind == "kubernetes" else ["services", "s", "command"]
    got, want = after_doc, before_doc
    for key in path[:-1]:
        got, want = got[key], want[key]
    assert got.pop(path[-1]) == [*want.pop(path[-1]), "--speculative-num-steps", "4"]
    assert after_doc == before_doc  # nothing else changed
    assert ("\r\n" in after) == (brk == "\r\n") and ("\n" not in after.replace("\r\n", "") if brk == "\r\n" else True)
