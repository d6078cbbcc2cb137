"""Fuzz targets for two readers of untrusted files: the gitignore glob matcher, checked against
git itself, and the model ``config.json`` reader, fed hostile field values.

- Globs: random ``.gitignore`` lines over a random tree; the files ``discover.walk`` lints must
  be exactly the ones ``git ls-files --others --exclude-standard`` lists (git's wildmatch is
  the oracle). The matcher is linear (no backtracking): tests/test_hostile_budgets.py counts
  its steps, where a per-example deadline would fail on a loaded machine.
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
_PATHS = st.lists(st.lists(_PART, min_size=0, max_size=2).map(lambda ds: "/".join([*ds, ""])), min_size=1, max_size=6)
_PATTERN = st.text(alphabet="abc*?[]!-/^\\ #", min_size=1, max_size=10)


def _git_unignored(repo: Path) -> set[str]:
    out = subprocess.run([GIT or "git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=repo, capture_output=True, check=True, timeout=60)
    return {p for p in out.stdout.decode().split("\0") if p.endswith(".sh")}


@pytest.mark.skipif(GIT is None, reason="git is not installed")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(folders=_PATHS, names=st.lists(_PART, min_size=1, max_size=3), lines=st.lists(_PATTERN, min_size=1, max_size=3))
def test_gitignore_globs_match_what_git_ignores(folders: list[str], names: list[str], lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as d:
        repo = Path(d)
        subprocess.run([GIT or "git", "init", "-q", str(repo)], check=True, timeout=60)
        (repo / ".gitignore").write_text("\n".join(lines) + "\n")
        for folder in folders:
            for name in names:
                f = repo / folder / f"{name}.sh"
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text("x\n")
        discover._gitignore.cache_clear()
        discover.git_root.cache_clear()
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
    discover._gitignore.cache_clear()
    ours = {os.path.relpath(p, tmp_path) for p in discover.walk(str(tmp_path))}
    assert ours == _git_unignored(tmp_path) == {"a/b.sh"}


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
