"""Fuzz targets for two readers of untrusted files: the gitignore glob matcher, checked against
git itself, and the model ``config.json`` reader, fed hostile field values.

- Globs: random ``.gitignore`` lines over a random tree; the files ``discover.walk`` lints must
  be exactly the ones ``git ls-files --others --exclude-standard`` lists (git's wildmatch is
  the oracle), the matcher is linear (no backtracking: tests/test_hostile_budgets.py counts its steps). The
  lines hold control characters (form feed, vertical tab, a lone CR, U+2028, U+0085, NUL, a
  BOM), POSIX classes (``[[:digit:]]``, malformed ones too), lines over 4,096 characters and
  CRLF endings; the names hold what those classes tell apart (a digit, a space, a tab, a form
  feed, a CR, a non-ASCII letter).
- Model configs: every field of a real config.json (Kimi-Linear's, Qwen3-Next's,
  Nemotron-H's) replaced by hostile JSON (strings, NaN, infinities, lists, null, huge and
  negative numbers, deep nesting, missing keys); reading gives a Model or an ``InputError``
  naming the file, never another exception.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kdacheck import discover, model_config
from kdacheck.findings import InputError

pytestmark = pytest.mark.slow  # Hypothesis, with git as the oracle (python -m pytest -q -m 'not slow' skips them)

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "data" / "models"
GIT = shutil.which("git")

# --- globs against git ---------------------------------------------------------------------

_PART = st.text(alphabet="abc", min_size=1, max_size=3)
_NAME = st.text(alphabet="abc1:[ \f\r\té", min_size=1, max_size=3)  # names POSIX classes and control characters can tell apart
_PATHS = st.lists(st.lists(_PART, min_size=0, max_size=2).map(lambda ds: "/".join([*ds, ""])), min_size=1, max_size=6)
_POSIX = st.sampled_from([f"[[:{c}:]]" for c in ("alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
                                                  "space", "upper", "xdigit", "nope")] + ["[[:digit]", "[![:alpha:]]", "[[:space:]-z]"])
_CONTROL = st.sampled_from(["\f", "\v", "\r", "\u2028", "\u0085", "\x00", "\ufeff"])
_PATTERN = st.lists(st.one_of(st.text(alphabet="abc1*?[]!-/^\\ #:", min_size=1, max_size=4), _POSIX, _CONTROL),
                    min_size=1, max_size=4).map("".join)
# A line over 4,096 characters: once cut to its first 4,096 (``*`` and spaces: everything)
_LONG = st.builds(lambda head, pad, n, tail: head + pad * n + tail, st.sampled_from(["*", "a", "**/", "[[:alpha:]]"]),
                  st.sampled_from([" ", "*", "a", "?"]), st.integers(4090, 5000), st.sampled_from(["", "a", "x", "*", "/"]))
_LINE_END = st.sampled_from(["\n", "\r\n", "\r\r\n", " \r\n"])


def _git_unignored(repo: Path) -> set[str]:
    out = subprocess.run([GIT or "git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=repo, capture_output=True, check=True, timeout=60)
    return {p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p.endswith(".sh")}


@pytest.mark.skipif(GIT is None, reason="git is not installed")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(folders=_PATHS, names=st.lists(_NAME, min_size=1, max_size=3), lines=st.lists(st.one_of(_PATTERN, _PATTERN, _LONG), min_size=1, max_size=3),
       end=_LINE_END)
def test_gitignore_globs_match_what_git_ignores(folders: list[str], names: list[str], lines: list[str], end: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        repo = Path(d)
        subprocess.run([GIT or "git", "init", "-q", str(repo)], check=True, timeout=60)
        (repo / ".gitignore").write_bytes(end.join(lines).encode() + end.encode())
        for folder in folders:
            for name in names:
                f = repo / folder / f"{name}.sh"
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text("x\n")
        discover.reset()
        ours = {os.path.relpath(p, repo).replace(os.sep, "/") for p in discover.walk(str(repo))}
        assert ours == _git_unignored(repo), lines


def test_git_oracle_agrees_on_known_lines(tmp_path: Path) -> None:
    """The harness itself: a line git and kdacheck both read the same way, and one they differ
    on if the matcher were a naive fnmatch (``*`` crossing ``/``)."""
    if GIT is None:
        pytest.skip("git is not installed")
    subprocess.run([GIT, "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("/a*b.sh\n")
    for p in ("ab.sh", "a/b.sh", "axb.sh"):
        (tmp_path / p).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / p).write_text("x\n")
    discover.reset()
    ours = {os.path.relpath(p, tmp_path) for p in discover.walk(str(tmp_path))}
    assert ours == _git_unignored(tmp_path) == {"a/b.sh"}


KNOWN = [
    (b"# build outputs\x0cdeploy/\n", ["deploy/a.sh", "b.sh"]),  # a form feed is not a line break to git
    (b"# old\rdeploy/\n# x\xe2\x80\xa8deploy/\n# y\xc2\x85deploy/\n", ["deploy/a.sh"]),  # lone CR, U+2028, U+0085
    (b"a.sh\r\nb.sh\r\r\nc.sh \r\nd.sh\r \n", ["a.sh", "b.sh", "b.sh\r", "c.sh", "d.sh", "d.sh\r"]),  # one CR dropped
    (b"*" + b" " * 4999 + b"x\n", ["a.sh", "b/c.sh"]),  # 5,000 characters: once cut to ``*``
    (b"[[:digit:]]*.sh\n!1k.sh\n", ["1a.sh", "a1.sh", "1k.sh"]),
    (b"[[:space:]]*\n", [" a.sh", "\ta.sh", "\x0ca.sh", "\x0ba.sh", "\ra.sh", "a.sh"]),  # git's space: no VT, no FF
    (b"[[:punct:]]*\n[[:nope:]]\n", ["-a.sh", "_a.sh", "a.sh", "~a.sh"]),
    (b"x[[:digit]\n", ["x1.sh", "x[.sh", "xd.sh"]),
    (b"[z-a]*\n", ["z.sh", "a.sh", "m.sh"]),  # a reversed range: no range, but ``z`` itself
    (b"**/b*\nx/**/c.sh\n", ["ab.sh", "b.sh", "q/b.sh", "x/yc.sh", "x/c.sh", "x/y/c.sh"]),
    (b"***/q.sh\na**/b.sh\n", ["q.sh", "w/q.sh", "wq.sh", "ab.sh", "axb.sh", "ax/b.sh", "a/b.sh"]),
    (b"a.sh\\\ne\\\\ \nf\x00zz\n", ["a.sh", "e\\", "e\\ ", "f"]),  # trailing backslash; escaped backslash; NUL
    (b"x?.sh\n", ["x\u00e9.sh", "xa.sh"]),  # ``?`` is one byte, as in git
    (b"\xef\xbb\xbfa.sh\n", ["a.sh"]),  # a BOM
]


@pytest.mark.skipif(GIT is None, reason="git is not installed")
@pytest.mark.parametrize(("data", "names"), KNOWN, ids=range(len(KNOWN)))
def test_known_lines_agree_with_git(data: bytes, names: list[str], tmp_path: Path) -> None:
    subprocess.run([GIT or "git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    (tmp_path / ".gitignore").write_bytes(data)
    for n in names:
        f = tmp_path / (n if n.endswith(".sh") else n + ".sh")
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("x\n")
    discover.reset()
    ours = {os.path.relpath(p, tmp_path) for p in discover.walk(str(tmp_path))}
    assert ours == _git_unignored(tmp_path)


# --- hostile model config.json -------------------------------------------------------------

_HOSTILE = st.one_of(
    st.none(), st.booleans(), st.text(max_size=20), st.just(float("nan")), st.just(float("inf")), st.just(-float("inf")),
    st.integers(min_value=-(10**30), max_value=10**30), st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.integers(-3, 3), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.integers(1, 200).map(lambda n: json.loads("[" * n + "]" * n)),
)


def _configs() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name in ("kimi-linear-48b", "qwen3-next-80b", "nemotron-3-nano", "deepseek-v3.2"):
        out.append((name, json.loads((MODELS / name / "config.json").read_text())))
    return out


CONFIGS = _configs()


def _keys(doc: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    keys = []
    for k, v in doc.items():
        keys.append((*prefix, k))
        if isinstance(v, dict):
            keys += _keys(v, (*prefix, k))
    return keys


@st.composite
def _hostile_config(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name, base = draw(st.sampled_from(CONFIGS))
    doc = json.loads(json.dumps(base))
    keys = _keys(doc)
    for path in draw(st.lists(st.sampled_from(keys), min_size=1, max_size=4, unique=True)):
        node = doc
        for k in path[:-1]:
            node = node.get(k) if isinstance(node, dict) else None
        if not isinstance(node, dict) or path[-1] not in node:
            continue
        if draw(st.booleans()) and draw(st.booleans()):
            del node[path[-1]]
        else:
            node[path[-1]] = draw(_HOSTILE)
    return name, doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=_hostile_config())
def test_hostile_model_config_is_a_model_or_an_input_error(case: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    name, doc = case
    f = tmp_path / "config.json"
    f.write_text(json.dumps(doc))  # NaN and Infinity as Python's json writes them
    try:
        model = model_config.read(f, name)
    except InputError as e:
        assert str(f) in str(e) and "internal" not in str(e)
    else:
        assert model.num_layers > 0 and model.linear_layers >= 0 and model.params >= 0
