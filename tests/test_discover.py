"""Finding the files to lint: folders, globs, .gitignore, relevance; suppression comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdacheck import config, discover, lint
from kdacheck.discover import Candidate
from kdacheck.flags import NEWEST
from kdacheck.gitignore import compile_pattern, ignored
from kdacheck.lint import Options, lint_text
from kdacheck.readers import relevance

CI = Path(__file__).resolve().parent / "data" / "ci"


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "expected"),
    [
        ("*.yaml", "a/b/c.yaml", False, True),
        ("/c.yaml", "a/c.yaml", False, False),
        ("/c.yaml", "c.yaml", False, True),
        ("build/", "x/build", True, True),
        ("build/", "x/build", False, False),  # dir/ matches folders only
        ("a/**/z.sh", "a/q/r/z.sh", False, True),
        ("a/**/z.sh", "a/z.sh", False, True),
        ("**/foo", "x/y/foo", False, True),
        ("doc/*.txt", "doc/x/y.txt", False, False),  # * does not cross /
        ("f[0-9].sh", "f3.sh", False, True),
        ("f[!0-9].sh", "f3.sh", False, False),
        ("\\#literal", "#literal", False, True),
        ("# comment", "# comment", False, False),
    ],
)
def test_gitignore_patterns(pattern: str, path: str, is_dir: bool, expected: bool) -> None:
    p = compile_pattern(pattern, "/r")
    assert ignored("/r/" + path, is_dir, [p] if p else []) is expected


def test_negation_last_match_wins() -> None:
    pats = [p for p in (compile_pattern("*.yaml", "/r"), compile_pattern("!keep.yaml", "/r")) if p]
    assert not ignored("/r/keep.yaml", False, pats)
    assert ignored("/r/other.yaml", False, pats)


def test_folder_walk_skips_hidden_gitignored_and_irrelevant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("out/\n!keep/\n")
    for rel in ("a/run.sh", "out/gen.yaml", ".hidden/x.yaml", "a/.venv/y.yaml", "a/b/c.yml", "node_modules/z.yaml", "a/readme.md"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("tp-size: 2\n")
    (tmp_path / "a" / "b" / ".gitignore").write_text("/c.yml\n")
    monkeypatch.chdir(tmp_path)
    assert discover.collect(["."]) == ["a/run.sh"]
    # explicitly named files are always linted, ignored or not
    assert discover.collect(["out/gen.yaml", "a/b/c.yml"]) == ["a/b/c.yml", "out/gen.yaml"]
    # gitignore files above the folder named still apply
    assert discover.collect(["a/b"]) == []


def test_globs_dedup_and_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CI)
    got = discover.collect(["warn/spec002.sh", "**/*.yaml", "./warn/spec002.sh", "errors", "-"])
    assert got == [
        "errors/bad-flags.yaml",
        "k8s/deploy.yaml",
        "other/values.yaml",
        "other/workflow.yaml",
        "warn/spec002.sh",
        "-",
    ]
    cands = {c.path: c.explicit for c in discover.discover(["errors", "other/values.yaml"])}
    assert cands == {"errors/bad-flags.yaml": False, "other/values.yaml": True}


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("ci.yaml", "name: ci\non: [push]\njobs:\n  a:\n    runs-on: x\n", False),
        ("values.yaml", "replicaCount: 2\nmodel: kimi\nport: 30000\nimage: {tag: x}\n", False),
        ("config.yaml", "model-path: x\n", True),
        ("config.yaml", "tp_size: 4\n", True),
        ("config.yaml", "model: x\nport: 1\n", True),
        ("deploy.yaml", "apiVersion: v1\nkind: Pod\nspec: {containers: [{command: [python3, -m, sglang.launch_server]}]}\n", True),
        ("other.yaml", "apiVersion: v1\nkind: ConfigMap\ndata: {a: b}\n", False),
        ("broken.yaml", "tp-size: [\n", True),
        ("broken.yaml", "{{ .Values.x }}: [\n", False),
        ("run.sh", "#!/bin/sh\npython -m sglang.launch_server --tp 2\n", True),
        ("build.sh", "#!/bin/sh\nmake all\n", False),
        ("requirements.txt", "pyyaml\n", False),
    ],
)
def test_relevance_of_folder_found_files(name: str, text: str, expected: bool) -> None:
    assert relevance.relevant(name, text) is expected


def test_lint_many_skips_irrelevant_folder_files_not_named_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CI)
    opts = Options(version=NEWEST)
    cands = discover.discover(["other", "other/values.yaml"])
    results = lint.lint_many(cands, lambda _p: opts)
    assert [r.path for r in results] == ["other/values.yaml"]


def test_parallel_reading_gives_the_same_results(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CI)
    opts = Options(version=NEWEST)
    cands = [*discover.discover(["."]), Candidate("missing.sh", True)]
    one = lint.lint_many(cands, lambda _p: opts, workers=1)
    many = lint.lint_many(cands, lambda _p: opts, workers=4)
    assert [(r.path, r.error, r.findings) for r in one] == [(r.path, r.error, r.findings) for r in many]
    assert one[-1].error is not None  # unreadable files are reported, in order


SCRIPT = """\
#!/bin/bash
# kdacheck: ignore[SPEC002]
python -m sglang.launch_server \\
  --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \\
  --speculative-algorithm EAGLE \\
  --speculative-num-steps 3 \\
  --speculative-eagle-topk 1 \\
  --speculative-num-draft-tokens 6 \\
  --bogus-flag 1
python -m sglang.launch_server --bogus-two 2  # kdacheck: ignore[ARG001,KDA001]
"""


def codes_at(text: str, path: str = "run.sh") -> tuple[list[tuple[int, str]], list[tuple[int, str]], int]:
    from kdacheck.rules import select_rules

    r = lint_text(text, path, Options(version=NEWEST, rules=select_rules(["ARG001", "SPEC002", "KDA001"], None)), ".")
    return [(f.location.line, f.code) for f in r.findings], r.unused_suppressions, r.suppressed


def test_suppression_above_a_continued_command_applies_to_the_whole_command() -> None:
    found, unused, n = codes_at(SCRIPT)
    assert found == [(9, "ARG001")]  # SPEC002 (line 8) suppressed by the comment above the command
    assert n == 2  # SPEC002 and the trailing ARG001 on line 10
    assert unused == [(10, "KDA001")]


def test_suppression_on_the_line_or_above_in_yaml() -> None:
    text = (
        "model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct\n"
        "# kdacheck: ignore[ARG001]\n"
        "bogus-one: 1\n"
        "bogus-two: 2  # kdacheck: ignore[ARG]\n"
        "bogus-three: 3\n"
        "tp-size: 1  # kdacheck: ignore[SPEC002, NOPE1]\n"
    )
    found, unused, n = codes_at(text, "c.yaml")
    assert found == [(5, "ARG001")] and n == 2
    assert unused == [(6, "SPEC002"), (6, "NOPE1")]


def test_unused_suppression_notes_reach_the_summary() -> None:
    from kdacheck.report import summary, summary_line

    r = lint_text("tp-size: 1  # kdacheck: ignore[ARG001]\n", "c.yaml", Options(version=NEWEST), ".")
    assert any("unused suppression" in n for n in r.notes)
    assert summary([r])["unused_suppressions"] == 1
    assert "1 unused suppression" in summary_line([r])


def test_file_level_suppression_and_malformed_directives() -> None:
    text = (
        "# kdacheck: ignore-file[ARG001]\n"
        "model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct\n"
        "bogus-one: 1\n"
        "bogus-two: 2  # kdacheck: ignore(SPEC002)\n"
        "bogus-three: 3\n"
    )
    found, unused, n = codes_at(text, "c.yaml")
    assert found == [] and n == 3 and unused == []
    r = lint_text(text, "c.yaml", Options(version=NEWEST), ".")
    (note,) = [x for x in r.notes if "not a directive" in x]
    assert note.startswith("c.yaml:4:")
    # an ignore-file that silences nothing is reported like any unused suppression
    _found, unused, _n = codes_at("# kdacheck: ignore-file[KDA001]\nmodel-path: m\n", "c.yaml")
    assert unused == [(1, "KDA001")]


def test_folder_walks_find_dockerfiles_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Docker's and Podman's build-file names (``Dockerfile``, ``Containerfile``, ``*.Dockerfile``,
    ``Dockerfile.*``), .gitignore respected; a Dockerfile that never starts SGLang is skipped."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("ignored/\n")
    launch = 'FROM lmsysorg/sglang:v0.5.23\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", "m"]\n'
    for rel in ("Dockerfile", "a/Containerfile", "a/serve.Dockerfile", "b/Dockerfile.cuda", "ignored/Dockerfile",
                "c/.Dockerfile", "c/Dockerfilex", "c/notes.dockerfile.md", "c/dockerfile.py", "c/Dockerfile.j2"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(launch)
    monkeypatch.chdir(tmp_path)
    assert discover.collect(["."]) == ["Dockerfile", "a/Containerfile", "a/serve.Dockerfile", "b/Dockerfile.cuda"]
    assert relevance.relevant("Dockerfile", launch)
    assert not relevance.relevant("Dockerfile", "FROM python:3.12\nENTRYPOINT [\"kdacheck\"]\nCMD [\"lint\", \".\"]\n")
    # an SGLang image that starts a script: not linted, counted once in the summary
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "Dockerfile").write_text('FROM lmsysorg/sglang:v0.5.23\nCOPY start.sh /\nENTRYPOINT ["/start.sh"]\n')
    (tmp_path / "d" / "other.Dockerfile").write_text("FROM python:3.12\nCMD [\"python3\"]\n")  # no SGLang: not counted
    results = lint.lint_many(discover.discover(["d"]), lambda _p: Options(version=NEWEST))
    assert list(results) == [] and results.skipped == {"non-launch Dockerfile": 1}


def test_lint_of_a_folder_holding_only_a_dockerfile_checks_it(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    (tmp_path / ".git").mkdir()
    (tmp_path / "Dockerfile").write_text(
        "FROM lmsysorg/sglang:v0.5.23\n"
        'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct", \\\n'
        '     "--speculative-algorithm", "EAGLE", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "5"]\n')
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", ".", "--output-format", "json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 1, p.stderr
    (f,) = json.loads(p.stdout)["files"]
    spec = [x for x in f["findings"] if x["code"] == "SPEC001"]
    # on the token: line 3, the opening quote of "--speculative-eagle-topk" (SPEC001 points at the topk)
    assert f["path"] == "Dockerfile" and [(x["location"]["line"], x["location"]["column"]) for x in spec] == [(3, 42)]


def test_a_glob_chooses_files_as_the_walk_of_its_folder_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A Helm values.yaml, an ignored file and an excluded one: the walk skips them, so the glob does.
    monkeypatch.chdir(tmp_path)
    deploy = tmp_path / "deploy"
    (deploy / "chart").mkdir(parents=True)
    (deploy / "chart" / "values.yaml").write_text((CI / "other" / "values.yaml").read_text())
    (deploy / "gen").mkdir()
    (deploy / "gen" / "x.yaml").write_text("model-path: m\ntp-size: 3\n")
    (deploy / ".gitignore").write_text("gen/\n")
    (deploy / "legacy.yaml").write_text("model-path: m\ntp-size: 3\n")
    (deploy / "config.yaml").write_text("model-path: m\ntp-size: 2\n")
    exclude = [p for p in [compile_pattern("legacy.yaml", str(tmp_path))] if p is not None]
    walked = {c.path: c.explicit for c in discover.discover(["deploy"], exclude)}
    globbed = {c.path: c.explicit for c in discover.discover(["deploy/**/*.yaml"], exclude)}
    assert globbed == {p: e for p, e in walked.items() if p.endswith(".yaml")} == {
        "deploy/chart/values.yaml": False, "deploy/config.yaml": False}
    # a file named as it is is always linted
    assert discover.discover(["deploy/chart/values.yaml"]) == [Candidate("deploy/chart/values.yaml", True)]


def test_a_glob_and_a_walk_give_the_same_exit_code_and_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from kdacheck.cli import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "deploy" / "chart").mkdir(parents=True)
    (tmp_path / "deploy" / "chart" / "values.yaml").write_text((CI / "other" / "values.yaml").read_text())
    (tmp_path / "deploy" / "bad.yaml").write_text((CI / "errors" / "bad-flags.yaml").read_text())
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str]:
        r = runner.invoke(app, ["lint", *args, "--output-format", "concise"], env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
        return r.exit_code, next(ln for ln in r.stdout.splitlines() if ln.startswith("Checked "))

    assert run("deploy/**/*.yaml") == run("deploy/") and run("deploy/")[0] == 1
    assert run("deploy/chart/values.yaml")[0] == 2  # named: linted whatever it holds
    nothing = runner.invoke(app, ["lint", "deploy/chart/*.yaml", "--strict"], env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    assert nothing.exit_code == 2 and "no SGLang launch command found in deploy/chart/*.yaml" in nothing.output


def test_force_exclude_skips_named_files_that_exclude_excludes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`exclude = ["legacy/"]`: `kdacheck lint legacy/old.sh` lints it; with --force-exclude (the
    pre-commit hook's) it is skipped, as the walk skips it; a file outside `exclude` is linted."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "kdacheck.toml").write_text('exclude = ["legacy/", "*.gen.sh"]\n')
    (tmp_path / "legacy" / "deep").mkdir(parents=True)
    launch = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --speculative-num-steps 3\n"
    for name in ("legacy/deep/old.sh", "new.sh", "x.gen.sh"):
        (tmp_path / name).write_text(launch)
    monkeypatch.chdir(tmp_path)
    named = ["legacy/deep/old.sh", "new.sh", "x.gen.sh"]

    def linted(force: bool) -> list[str]:
        run = lint.LintRun(named, None, config.Overrides(), force_exclude=force)
        return [r.path for r in run.lint()]

    assert linted(False) == ["legacy/deep/old.sh", "new.sh", "x.gen.sh"]
    assert linted(True) == ["new.sh"]
