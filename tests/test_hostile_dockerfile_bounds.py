"""Hostile Dockerfiles against the reader's bounds (kdacheck/readers/dockerfile.py).

An ``ENV``/``ARG`` line reads its stage's scope through instead of copying it, a stage shares
its parent's ``ENV`` (copy on write, a deep chain flattened and charged), the shell reader gets
the image's ``ENV`` uncopied, and every limit of the file (lines, stages, exec-form words, the
per-file budget) is exit 2 naming the file, the line and the limit. Each case stays under
200 MB of peak memory (tracemalloc) and never ends in "internal error".
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest

from kdacheck.flags import NEWEST
from kdacheck.lint import Options, lint_text
from kdacheck.readers import bounds, dockerfile, kinds, read_text
from kdacheck.results import FileResult
from tests.test_hostile import assert_linear

LAUNCH = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 2"
PEAK_MB = 200


def _lint(text: str, name: str = "Dockerfile") -> tuple[FileResult, float]:
    """The lint of ``text`` and its tracemalloc peak in MB."""
    tracemalloc.start()
    try:
        result = lint_text(text, name, Options(version=NEWEST))
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    assert not (result.error or "").startswith("internal error"), result.error
    assert peak < PEAK_MB, peak
    return result, peak


def _refused(text: str, *says: str) -> str:
    """The message of ``text``'s refusal, which says each of ``says``."""
    result, _peak = _lint(text)
    assert result.error is not None, "read, not refused"
    for s in says:
        assert s in result.error, result.error
    return result.error


def _texts(text: str) -> list[tuple[str, bool]]:
    (cmd,) = read_text(text, "Dockerfile")
    return [(t.text, bool(t.unknown)) for t in cmd.tokens]


def _env_lines(n: int) -> str:
    return "FROM x\n" + "".join(f"ENV V{i}=v{i}\n" for i in range(n)) + f"CMD {LAUNCH} --served-model-name $V{n - 1}\n"


# --- ENV/ARG lines read their scope through ------------------------------------------------------


def test_forty_thousand_env_lines_cost_linear_time_within_the_memory_bound() -> None:
    # before: each ENV line copied the whole scope: 10x the lines took 100x the time, and
    # 40,000 lines (0.7 MB) took 97 s under tracemalloc
    assert_linear(_env_lines, 4_000, "Dockerfile")
    result, _peak = _lint(_env_lines(40_000))
    assert result.error is None, result.error
    (cfg,) = result.resolved
    assert cfg.cmd.tokens[-1].text == "v39999"


def test_each_env_and_arg_entry_is_charged_to_the_file_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_FILE_NODES", 10_000)
    text = "FROM x\n" + "".join(f"ENV A{i}=1 B{i}=2 C{i}=3\n" for i in range(2_000)) + f"CMD {LAUNCH}\n"
    error = _refused(text, "Dockerfile:", ": ENV", "10,000 pieces")
    assert error.startswith("Dockerfile:1668: ENV"), error  # 2 scopes x 3 entries a line: the 1,667th line is the last
    args = "ARG X\nFROM x\n" + "".join(f"ARG A{i}=1 B{i}=2 C{i}=3\n" for i in range(4_000)) + f"CMD {LAUNCH}\n"
    assert _refused(args, "10,000 pieces").startswith("Dockerfile:3335: ARG")  # 2 before, then 3 a line


def test_an_env_line_substitutes_from_its_scope_as_it_stood_before_the_line() -> None:
    """Docker's build-time substitution, kept through the read-through scope (a guard of the
    change: it held before it too)."""
    text = ("FROM x\nARG U\nENV A=1\nENV A=2 B=$A C=${U:-d} D=$U E=$NEVER\n"
            "CMD python -m sglang.launch_server --a $A --b $B --c $C --d $D --e \"$E\"\n")
    assert _texts(text) == [("--a", False), ("2", False), ("--b", False), ("1", False), ("--c", False), ("d", False),
                            ("--d", False), ("$D", True), ("--e", False), ("", False)]


def test_an_expansion_limit_inside_env_names_the_file_and_line() -> None:
    # before: "more than 10,000 shell expansions", with no file nor line
    text = "FROM x\nENV A=a\nENV B=" + "$A" * 10_001 + f"\nCMD {LAUNCH}\n"
    assert _refused(text).startswith("Dockerfile:3"), "no place"


# --- stages share their parent's ENV -------------------------------------------------------------


def _chain(stages: int, env_per_stage: int, root_env: int = 0) -> str:
    root = "FROM x AS s0\n" + "".join(f"ENV R{i}=r{i}\n" for i in range(root_env))
    body = "".join(f"FROM s{i} AS s{i + 1}\n" + "".join(f"ENV S{i}_{j}=$S{i}_{j}x\n" for j in range(env_per_stage))
                   for i in range(stages))
    return root + body + f"CMD {LAUNCH}\n"


def test_a_chain_of_stages_inherits_each_value_through_the_flattened_layers() -> None:
    """100 stages (flattened every ``MAX_LAYERS``): a value set at the root, one overridden on
    the way, one made unknown (an ARG without default) and one set empty, all as Docker has them
    (a guard of the flattening: it held before it too)."""
    lines = ["FROM x AS s0", "ENV ROOT=r X=0 GONE=g EMPTY=e"]
    for i in range(1, 101):
        lines.append(f"FROM s{i - 1} AS s{i}")
        lines.append(f"ENV X={i} V{i}=$X")  # $X: the parent's X, as the line stood before it
        if i == 40:
            lines += ["ARG NODEFAULT", "ENV GONE=$NODEFAULT EMPTY=$NOTHING"]
    lines.append("CMD python -m sglang.launch_server --a $ROOT --b $X --c $V77 --d $GONE --e \"$EMPTY\" --f $V1")
    assert _texts("\n".join(lines) + "\n") == [
        ("--a", False), ("r", False), ("--b", False), ("100", False), ("--c", False), ("76", False),
        ("--d", False), ("$GONE", True), ("--e", False), ("", False), ("--f", False), ("0", False)]


def test_thousands_of_chained_stages_with_env_are_read_within_the_memory_bound() -> None:
    result, _peak = _lint(_chain(3_000, 2, root_env=2_000))  # before: two copies of the whole ENV per stage
    assert result.error is None, result.error


def test_chained_stages_over_a_big_env_are_refused_by_the_budget_not_copied() -> None:
    # 1.3 MB: 20,000 ENV lines, then 60,000 stages each built FROM the one before; before: two
    # copies of the 20,000 variables per stage, kept: 4 GB, then "internal error ... MemoryError"
    text = _chain(60_000, 0, root_env=20_000)
    assert len(text) > 1_300_000
    error = _refused(text, "FROM", "the ENV of 32 stages built one FROM another, copied", "2,000,000 pieces")
    assert error.startswith("Dockerfile:"), error


# --- the shell reader gets the image's ENV uncopied ----------------------------------------------


@pytest.mark.parametrize("cmd", [f"CMD {LAUNCH} --x $TP", f'CMD ["sh", "-c", "{LAUNCH} --x $TP"]'])
def test_the_runtime_env_reaches_the_shell_reader_uncopied(cmd: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []
    real = dockerfile.read_shell

    def spy(text: str, path: str, env: dict[str, str] | None = None, *rest: object) -> object:
        seen.append(env)
        return real(text, path, env, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(dockerfile, "read_shell", spy)
    text = "FROM x\n" + "".join(f"ENV V{i}={i}\n" for i in range(1_000)) + f"ENV TP=2\n{cmd}\n"
    assert _texts(text)[-2:] == [("--x", False), ("2", False)]
    (env,) = seen
    assert not isinstance(env, dict), "the scope was copied into a dict"


# --- each limit of the file: exit 2 naming the file, the line and the limit -----------------------


def test_more_lines_than_max_lines_is_refused_naming_the_line_and_the_limit() -> None:
    text = "FROM x\n" + "\n" * dockerfile.MAX_LINES + f"CMD {LAUNCH}\n"
    error = _refused(text, f"Dockerfile:{dockerfile.MAX_LINES + 1}: ", "more than 200,000 lines", "(the limit is 200,000)")
    assert error.startswith("Dockerfile:200001: "), error


def test_more_exec_form_words_than_max_words_is_refused_naming_the_line_and_the_limit() -> None:
    # before: not JSON to the reader, so read as the shell form
    words = '", "'.join(["--x"] * dockerfile.MAX_WORDS)
    text = f'FROM x\nRUN true\nCMD ["python", "-m", "sglang.launch_server", "{words}"]\n'
    _refused(text, "Dockerfile:3: CMD in exec form has 100,003 words (the limit is 100,000)")
    shell = f'FROM x\nSHELL ["/bin/sh", "{words}"]\nCMD {LAUNCH}\n'
    _refused(shell, "Dockerfile:2: SHELL in exec form has 100,001 words (the limit is 100,000)")


def test_more_stages_than_max_stages_is_refused_naming_the_line_and_the_limit() -> None:
    text = "FROM x\n" * dockerfile.MAX_STAGES + f"FROM x\nCMD {LAUNCH}\n"
    _refused(text, "Dockerfile:10001: FROM: more than 10,000 stages in one Dockerfile (the limit is 10,000)")
    result, _peak = _lint("FROM x\n" * dockerfile.MAX_STAGES + f"CMD {LAUNCH}\n")
    assert result.error is None, result.error


def test_an_arg_repeated_in_from_is_charged_before_it_is_built() -> None:
    # before: 1,000 copies of a 100,000-character ARG made one 100 MB image name
    text = "ARG A=" + "a" * 100_000 + "\nFROM " + "$A" * 1_000 + f"\nCMD {LAUNCH}\n"
    _refused(text, "Dockerfile:2: FROM: the expansions of Dockerfile make more than 8,000,000 characters")


# --- memory per character: places computed when a token needs them --------------------------------


@pytest.mark.parametrize(("make", "size"), [
    (lambda n: "FROM x\n" + ("RUN " + "x" * 1000 + "\n") * (n // 1000) + f"CMD {LAUNCH}\n", 9_000_000),
    (lambda n: 'FROM x\nCMD ["python", "-m", "sglang.launch_server", ' + ", ".join(['"--y' + "y" * 996 + '"'] * (n // 1000)) + "]\n",
     9_000_000),
    (lambda n: f'FROM x\nCMD ["sh", "-c", "{LAUNCH} --x ' + "\\\\\\n" * (n // 4) + '--tp-size 4"]\n', 1_000_000),
], ids=["run-lines", "exec-words", "script-word"])
def test_a_big_dockerfile_takes_a_few_bytes_of_memory_per_byte(make: Callable[[int], str], size: int) -> None:
    # before: a file offset kept per character (and per character of every exec word), and the
    # regular expression that found an exec word's end kept its backtracking state per
    # character: 45 to 60 bytes of memory per byte of input, 400 MB for 9 MB
    text = make(size)
    result, peak = _lint(text)
    assert peak < 10 * len(text) / 2**20, peak
    assert result.error is None, result.error


def test_a_script_word_places_its_tokens_after_escapes() -> None:
    """A guard of the places now computed per token (it held before too)."""
    text = 'FROM x\nENTRYPOINT ["sh", "-c", "echo \\"a\\"\\n\\u0070ython -m sglang.launch_server \\\\\\n  --tp 2"]\n'
    (cmd,) = read_text(text, "Dockerfile")
    at = {t.text: (t.loc.line, t.loc.col) for t in cmd.tokens}
    line = text.split("\n")[1]
    assert at["--tp"] == (2, line.index("--tp") + 1) and at["2"] == (2, line.index("2\"]") + 1)


# --- telling a Dockerfile from another file ------------------------------------------------------


def test_telling_a_dockerfile_costs_linear_time_over_blank_lines() -> None:
    # before: `^\s*FROM` rescanned every blank line after each line start: 40,000 blank lines
    # took 2 s, 200,000 took about a minute, for any file read (a run.sh)
    assert_linear(lambda n: "\n" * n + LAUNCH + "\n", 5_000, "run.sh")
    assert not kinds.is_dockerfile("run.sh", "\n" * 200_000 + LAUNCH + "\n")
    assert kinds.is_dockerfile("x.txt", "\n\n  FROM x\n\n\tCMD y\n")
