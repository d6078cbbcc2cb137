"""Arguments a shell launch reads from a file (`$(cat FILE)`), shell arithmetic, placeholders:
read as the shell reads them, confined to the repository, bounded; never run."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdacheck.flags import NEWEST
from kdacheck.lint import Options, lint_path
from kdacheck.readers import arith
from tests.helpers import codes, lint_ok

LAUNCH = "python3 -m sglang.launch_server"
ARGS = "--model-path Qwen/Qwen3-Next-80B-A3B-Instruct\n--tp-size 4 --speculative-algorithm EAGLE --speculative-eagle-topk 2\n"


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _lint(path: Path):  # type: ignore[no-untyped-def]
    return lint_path(str(path), Options(version=NEWEST, offline=True))


@pytest.mark.parametrize("form", ["$(cat args.txt)", "$(< args.txt)", "`cat args.txt`"])
def test_an_args_file_is_read_and_its_findings_placed_in_it(tmp_path: Path, form: str) -> None:
    repo = _repo(tmp_path, {"args.txt": ARGS, "run.sh": f"{LAUNCH} {form}\n"})
    r = _lint(repo / "run.sh")
    assert r.error is None and "ARG009" not in codes(r)
    spec = next(f for f in r.findings if f.code == "SPEC001")
    assert spec.location is not None and (Path(spec.location.path).name, spec.location.line, spec.location.col) == ("args.txt", 2, 43)
    assert r.resolved[0].v("tp_size") == 4


def test_quoted_substitution_is_one_argument_as_the_shell_gives_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"args.txt": ARGS, "run.sh": f'{LAUNCH} "$(cat args.txt)"\n'})
    r = _lint(repo / "run.sh")
    assert "ARG001" in codes(r)  # SGLang's parser gets one word holding every flag


@pytest.mark.parametrize(("name", "why"), [("../outside.txt", "outside the repository"), ("missing.txt", "no such file")])
def test_an_args_file_not_read_is_named_and_never_passes(tmp_path: Path, name: str, why: str) -> None:
    (tmp_path / "outside.txt").write_text("--tp-size 2\n")
    repo = _repo(tmp_path / "repo", {"run.sh": f"{LAUNCH} --model-path m $(cat {name})\n"})
    r = _lint(repo / "run.sh")
    arg009 = [f for f in r.findings if f.code == "ARG009"]
    assert arg009 and why in arg009[0].message


def test_an_args_file_link_out_and_a_big_one_are_not_read(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("--api-key s3cret\n")
    repo = _repo(tmp_path / "repo", {"big.txt": "--tp-size 2 " * 10_000, "run.sh": f"{LAUNCH} $(cat link.txt) $(cat big.txt)\n"})
    (repo / "link.txt").symlink_to(tmp_path / "secret.txt")
    r = _lint(repo / "run.sh")
    messages = " ".join(f.message for f in r.findings if f.code == "ARG009")
    assert "s3cret" not in " ".join(f.message for f in r.findings) and "outside the repository" in messages


def test_many_args_files_are_refused_by_name(tmp_path: Path) -> None:
    files = {f"a{i}.txt": "--tp-size 1\n" for i in range(80)}
    subs = " ".join(f"$(cat a{i}.txt)" for i in range(80))
    repo = _repo(tmp_path, {**files, "run.sh": f"{LAUNCH} {subs}\n"})
    r = _lint(repo / "run.sh")
    assert r.error is not None and "more than 64 files read by `$(cat ...)`" in r.error


@pytest.mark.parametrize(("expr", "values", "value"), [
    (" A * 4 ", {"A": "2"}, 8), ("(1+2)*3-7/2", {}, 6), ("-7/2", {}, -3), ("-7%3", {}, -1), ("${N}+$N+N", {"N": "1"}, 3),
    ("010+0x10", {}, 24),
])
def test_arithmetic_as_bash_evaluates_it(expr: str, values: dict[str, str], value: int) -> None:
    assert arith.evaluate(expr, values) == (value, "")


@pytest.mark.parametrize(("expr", "why"), [("B+1", "unset"), ("1<<2", "not evaluated"), ("1/0", "division by zero"),
                                           ("(" * 40 + "1" + ")" * 40, "nested"), ("1" * 2000, "characters"),
                                           ("2*" * 70 + "2", "64 bits"), ("A", "not a number")])
def test_arithmetic_not_known_is_unknown_with_its_reason(expr: str, why: str) -> None:
    value, reason = arith.evaluate(expr, {"A": "x"})
    assert value is None and why in reason


def test_arithmetic_in_a_launch_gives_the_value() -> None:
    r = lint_ok(f"N=2\nTP=$(( N * 2 ))\n{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size $TP\n")
    assert r.resolved[0].v("tp_size") == 4 and r.resolved[0]["tp_size"].origin == "user"
    unknown = lint_ok(f"TP=$(( M * 2 ))\n{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size $TP\n")
    assert unknown.resolved[0]["tp_size"].origin == "unknown"


def test_a_placeholder_is_one_unknown_word_not_a_redirection() -> None:
    r = lint_ok(f"{LAUNCH} --model-path <GLM-5.2-FP8 MTP weights> --tp 8 --speculative-algorithm EAGLE "
                "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4\n")
    assert not {"ARG001", "SPEC001"} & set(codes(r)), [f.message for f in r.findings]
    cfg = r.resolved[0]
    assert cfg.v("tp_size") == 8 and "placeholder" in " ".join(cfg.cmd.notes)
    redirect = lint_ok(f"{LAUNCH} --model-path m --tp 2 <in.txt >out.txt\n")
    assert redirect.resolved[0].v("tp_size") == 2 and not [t for t in redirect.resolved[0].cmd.tokens if "in.txt" in t.text]


@pytest.mark.parametrize("form", [f"xargs {LAUNCH} < args.txt", f"cat args.txt | xargs {LAUNCH}",
                                  f"xargs -a args.txt {LAUNCH}", f"xargs --arg-file=args.txt {LAUNCH}"])
def test_xargs_appends_the_file_as_xargs_splits_it(tmp_path: Path, form: str) -> None:
    args = ARGS + "--served-model-name 'my model' --api-key \"a b\"\n"
    repo = _repo(tmp_path, {"args.txt": args, "run.sh": f"{form}\n"})
    r = _lint(repo / "run.sh")
    assert r.error is None and not {"ARG001", "ARG009"} & set(codes(r)), [f.message for f in r.findings]
    spec = next(f for f in r.findings if f.code == "SPEC001")
    assert spec.location is not None and (Path(spec.location.path).name, spec.location.line) == ("args.txt", 2)
    assert r.resolved[0].v("tp_size") == 4
    assert r.resolved[0].parsed.given["served_model_name"].value == "my model"  # xargs's quotes, not the shell's


def test_xargs_not_read_is_said(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo", {"args.txt": ARGS + "'unclosed\n", "ok.txt": ARGS})
    (tmp_path / "outside.txt").write_text(ARGS)
    cases = {f"xargs -n 2 {LAUNCH} < ok.txt": "runs the command several times",
             f"xargs -0 {LAUNCH} < ok.txt": "splits its input otherwise",
             f"xargs {LAUNCH} < ../outside.txt": "outside the repository",
             f"xargs {LAUNCH} < missing.txt": "no such file",
             f"xargs {LAUNCH} < args.txt": "unmatched ' quote",
             f"producer | xargs {LAUNCH}": "not a file named here"}
    for line, why in cases.items():
        (repo / "run.sh").write_text(line + "\n")
        r = _lint(repo / "run.sh")
        unread = [f.message for f in r.findings if f.code == "ARG009"]
        assert unread and why in unread[0], (line, unread)


def test_words_the_shell_would_glob_are_unknown(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"args.txt": "--model-path /models/*/qwen --tp-size 4\n", "run.sh": f"{LAUNCH} $(cat args.txt)\n"})
    r = _lint(repo / "run.sh")
    assert r.resolved[0].v("tp_size") == 4
    assert any("would be globbed" in n for n in r.notes), r.notes


def test_at_file_is_not_read_by_sglang() -> None:
    """SGLang's parser sets no fromfile_prefix_chars (0.5.23 srt/server_args.py:679): `@args.txt`
    is a literal word it refuses, said so."""
    r = lint_ok(f"{LAUNCH} --model-path m @args.txt\n")
    f = next(f for f in r.findings if f.code == "ARG001")
    assert "does not read `@FILE`" in f.message and "--config" in (f.fix or "")


def test_hostile_xargs_input_is_bounded(tmp_path: Path) -> None:
    from kdacheck.readers import argsfiles, bounds

    big = "a " * (argsfiles.MAX_BYTES // 2 + 10)
    repo = _repo(tmp_path, {"big.txt": big, "quotes.txt": "'x' " * 5000 + "--tp-size 2\n"})
    (repo / "run.sh").write_text(f"xargs {LAUNCH} < big.txt\n")
    r = _lint(repo / "run.sh")
    assert r.error is not None or "ARG009" in codes(r)  # over the byte cap: refused or named unread, never read past it
    argsfiles.start(str(repo), str(repo))
    budget = bounds.start("run.sh")
    words, _why = argsfiles.xargs_words("quotes.txt", "run.sh:1")
    assert words is not None and len(words) == 5002 and budget.nodes >= 5002
