"""Hostile shell expansions: every word, array, default and script is bounded as it is built,
never after. Each case is refused (exit 2 naming the construct and its place) within a
tracemalloc peak, with no "internal error"; what real scripts do is still read."""

from __future__ import annotations

import tracemalloc

import pytest

from kdacheck.findings import InputError
from kdacheck.readers import bounds
from kdacheck.readers.shell import MAX_SCRIPT_DEPTH, ansi_c_decode, read_shell
from kdacheck.results import FileResult
from tests.helpers import KIMI, LAUNCH, codes, lint, lint_ok

PEAK_MB = 200
BIG = "X=" + "a" * 100_000 + "\n"  # one value at the 100,000-character cap


def _measured(text: str, path: str) -> tuple[FileResult, float]:
    """Lint ``text`` as the file ``path``: the result and the tracemalloc peak (MB)."""
    tracemalloc.start()
    try:
        result = lint(text, path=path)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    return result, peak


def _bash_c_lines(n: int, word: str) -> str:
    """n ``bash -c`` scripts (a scope each), each expanding ``word``."""
    return f"bash -c 'echo {word} # sglang.launch_server'\n" * n


# (file name, text, what the refusal says). Before the change: `word-quadratic` and
# `dockerfile-env-quadratic` ran past 60 s and hundreds of MB (each `$X` copied the whole word),
# `array-splice` reached 3.1 GB, `nested-defaults` ended in "internal error: RecursionError",
# and the others were read (no per-file budget, no splice charge, `bash -c` silently cut at 4).
REFUSED = {
    "word-quadratic": ("run.sh", BIG + f'{KIMI} --served-model-name "{"$X" * 2_000}"\n',
                       "run.sh:2:105: an expanded word of more than 100,000 characters"),
    "dockerfile-env-quadratic": ("Dockerfile", "FROM lmsysorg/sglang:v0.5.5\nENV A=" + "a" * 100_000 + "\nENV B="
                                 + "$A" * 2_000 + f"\nCMD {KIMI}\n", "Dockerfile:3:5: an expanded word of more than 100,000"),
    "default-quadratic": ("run.sh", BIG + f'{KIMI} --served-model-name "${{U:-{"$X" * 4_000}}}"\n',
                          "run.sh:2:105: an expanded word of more than 100,000 characters"),
    "array-splice": ("run.sh", "A=(" + " x" * 40_000 + ")\nB=(" + ' "${A[@]}"' * 5_000 + f")\n{KIMI}\n",
                     "run.sh:2:1: the array `B` grows past 50,000 elements; refusing"),
    "array-splices-per-file": ("run.sh", "A=(" + " x" * 40_000 + ")\n" + "".join(f'C{i}=("${{A[@]}}")\n' for i in range(60))
                               + f"{KIMI}\n", "the expansions of run.sh make more than 2,000,000 pieces"),
    "split-words-in-one-command": ("run.sh", "X='" + "a " * 50_000 + f"'\n{KIMI} --served-model-name" + " $X" * 40 + "\n",
                                   "a command of more than 50,000 words after expansion"),
    "split-words-bare-arguments": ("args.txt", "--tp-size 2\nA=('" + "a " * 49_990 + "')\n" + "$A\n" * 3,
                                   "a command of more than 50,000 words after expansion"),
    "joined-array-per-file": ("run.sh", "A=(" + " ''" * 49_000 + " $(x))\n" + f"{KIMI} --served-model-name"
                              + " a${A[*]}b" * 100 + "\n", "`${A[*]}`: the expansions of run.sh make more than 2,000,000"),
    "nested-defaults": ("run.sh", f"{KIMI} --served-model-name " + "${A:-" * 300 + "x" + "}" * 300 + "\n",
                        "run.sh:1:105: `${A:-${A:-${A:-${A:-${A:-${A:-${A:-${A:-`: nested more than 200 levels deep"),
    "bash-c-per-file": ("run.sh", "X=" + "a" * 1_000 + "\n" + _bash_c_lines(100, '"' + "$X" * 90 + '"') + f"{KIMI}\n",
                        "the expansions of run.sh make more than 8,000,000 characters"),
    "bash-c-itself": ("run.sh", "S='bash -c \"$S\" # sglang.launch_server'\nbash -c \"$S\"\n" + KIMI + "\n",
                      f"the `bash -c` script: nested more than {MAX_SCRIPT_DEPTH} levels deep"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_hostile_expansion_is_refused_as_it_grows(name: str) -> None:
    path, text, says = REFUSED[name]
    result, peak = _measured(text, path)
    assert result.error is not None and says in result.error, result.error
    assert "internal error" not in result.error
    assert peak < PEAK_MB, peak


def test_a_word_is_refused_at_the_first_piece_past_the_cap() -> None:
    """The second 100 KB `$X` passes the cap: refused there, having made one value's worth."""
    bounds.start("run.sh")
    with pytest.raises(InputError, match="an expanded word of more than 100,000"):
        read_shell(BIG + f'{LAUNCH} --served-model-name "{"$X" * 2_000}"\n', "run.sh")
    assert 100_000 < bounds.current().chars <= 200_000, bounds.current().chars  # X, then one `$X`


def test_nesting_3000_deep_is_refused_by_name_not_by_recursion() -> None:
    """The 9 KB input of the report (3,000 levels): before, "internal error: RecursionError"."""
    result = lint(f"{KIMI} --served-model-name " + "${A:-" * 3_000 + "x" + "}" * 3_000 + "\n", path="run.sh")
    assert result.error is not None and "nested more than 200 levels deep" in result.error, result.error


@pytest.mark.parametrize("script", [
    "".join(f"V=$X{'$X' * 8_999} echo\n" for _ in range(20)),  # prefixes: a scope per command
    _bash_c_lines(20, "$X" * 9_000),  # a scope per script
])
def test_expansions_are_counted_per_file_whatever_the_scopes(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """20 scopes of 9,000 expansions each, under the per-scope 10,000: the file's budget (here
    100,000) refuses them together. Before, each scope counted from zero: read."""
    monkeypatch.setattr(bounds, "MAX_FILE_NODES", 100_000)
    result = lint("X=a\n" + script + KIMI + "\n", path="run.sh")
    assert result.error is not None and "make more than 100,000 pieces" in result.error, result.error


def test_dockerfile_env_lines_share_the_files_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bounds, "MAX_FILE_NODES", 100_000)
    text = "FROM lmsysorg/sglang:v0.5.5\nENV X=a\n" + ("ENV Y=" + "$X" * 9_000 + "\n") * 20 + f"CMD {KIMI}\n"
    result = lint(text, path="Dockerfile")
    assert result.error is not None and "make more than 100,000 pieces" in result.error, result.error


def test_many_references_under_the_cap_are_read() -> None:
    result = lint_ok("X=0123456789\n" + f'{KIMI} --served-model-name "{"$X" * 9_000}"\n', path="run.sh")
    assert result.resolved[0].cmd.tokens[-1].text == "0123456789" * 9_000


def test_a_splice_under_the_cap_is_read_and_appends_cost_what_they_add() -> None:
    text = "A=(" + " --x" * 9_000 + ")\nB=(" + ' "${A[@]}"' * 5 + ")\n" + "B+=(--y)\n" * 4_000 + f'{LAUNCH} "${{B[@]}}"\n'
    bounds.start("run.sh")
    cmd = read_shell(text, "run.sh")[0]
    assert len(cmd.tokens) == 49_000 and cmd.tokens[-1].text == "--y"
    assert bounds.current().nodes < 200_000, bounds.current().nodes  # 4,000 appends: not 4,000 copies of B


def test_an_append_in_a_script_leaves_the_files_array_as_it_was() -> None:
    text = ("A=(--tp-size 2)\nbash -c 'A+=(--dp-size 2); A+=(--pp-size 2); python -m sglang.launch_server \"${A[@]}\"'\n"
            "A+=(--ep-size 2)\n" + f'{LAUNCH} "${{A[@]}}"\n')
    inner, outer = read_shell(text, "run.sh")
    assert [t.text for t in inner.tokens] == ["--tp-size", "2", "--dp-size", "2", "--pp-size", "2"]
    assert [t.text for t in outer.tokens] == ["--tp-size", "2", "--ep-size", "2"]


def test_bash_c_six_deep_is_read() -> None:
    """Before, a launch more than four `bash -c` deep was silently not read."""
    text = f"S1='{LAUNCH} --tp-size 3'\n"
    text += "".join(f"S{k}='bash -c \"$S{k - 1}\" # sglang.launch_server'\n" for k in range(2, 7))
    cmds = read_shell(text + 'bash -c "$S6"\n', "run.sh")
    assert [t.text for t in cmds[0].tokens] == ["--tp-size", "3"]


def test_ansi_c_quoting_is_read_as_bash_does() -> None:
    """`$'3'` is 3, not the unset `$3` (before: a false ARG004)."""
    assert codes(lint_ok(f"{KIMI} --tp-size $'3'\n")) == codes(lint_ok(f"{KIMI} --tp-size 3\n")) == ["KDA007"]
    cmd = read_shell(f"{LAUNCH} --served-model-name $'a\\tb' $\"c d\" x$'\\x41'\"$'\" --y\n", "run.sh")[0]
    assert [t.text for t in cmd.tokens] == ["--served-model-name", "a\tb", "c d", "xA$'", "--y"]
    assert all(t.unknown is None for t in cmd.tokens)


@pytest.mark.parametrize(("body", "text"), [
    (r"a\nb\tc", "a\nb\tc"), (r"\\ \' \" \?", "\\ ' \" ?"), (r"\a\b\e\E\f\r\v", "\a\b\x1b\x1b\f\r\v"),
    (r"\x41\x4a\x4", "AJ\x04"), (r"\101\7", "A\x07"), (r"\u00e9\U0001F600", "é\U0001F600"), (r"\cA\ca", "\x01\x01"),
    (r"\z \x", r"\z \x"), (r"a\0b", "a"), ("plain", "plain"),
])
def test_ansi_c_escapes(body: str, text: str) -> None:
    assert ansi_c_decode(body) == text


def test_an_unterminated_ansi_c_quote_is_refused() -> None:
    with pytest.raises(InputError, match=r"1:36: unterminated \$' quote"):
        read_shell(f"{LAUNCH} --x $'a\\'b\n", "run.sh")


def test_a_default_of_several_words_keeps_each_word_whole() -> None:
    """`${U:-a$B c}` is `ax c` (before: `a x c`, every piece joined with a blank)."""
    cmd = read_shell(f'B=x\n{LAUNCH} --served-model-name "${{U:-a$B c}}"\n', "run.sh")[0]
    assert cmd.tokens[-1].text == "ax c"


def test_a_value_of_blanks_splits_the_word() -> None:
    """Unquoted `a${S}b` with S=" " is two words, as in bash (before: `ab`)."""
    cmd = read_shell(f'S=" "\n{LAUNCH} --x a${{S}}b\n', "run.sh")[0]
    assert [t.text for t in cmd.tokens] == ["--x", "a", "b"]
