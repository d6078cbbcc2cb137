"""Hostile Dockerfiles: the reader (kdacheck/readers/dockerfile.py) on input built to break it.

Each gives a finding or a clear message naming the file (exit 2), never a traceback, and work
that grows linearly with the input (a ratio of two timings in one process, never a limit).
Nothing in a Dockerfile is built or run: a ``RUN`` here-document, ``SHELL``, ``ONBUILD`` are read
as text only.
"""

from __future__ import annotations

import json

import pytest

from kdacheck.flags import NEWEST
from kdacheck.lint import Options, lint_text
from tests.test_hostile import MARKER, assert_linear

LAUNCH = '["python3", "-m", "sglang.launch_server", "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct"'

CASES = {
    "unterminated exec form": "FROM x\nCMD " + LAUNCH + ", \\\n",
    "continuation at end of file": "FROM x\nCMD python3 -m sglang.launch_server --tp 2 \\",
    "only continuations": "FROM x\nCMD \\\n\\\n\\\n",
    "unterminated here-document": "FROM x\nRUN <<EOF\nCMD " + LAUNCH + "]\n",
    "bad JSON escapes": 'FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--tp", "\\ud800", "\\u00e9\\"\\\\", "\\x"]\n',
    "surrogate pair": 'FROM x\nCMD ["python3", "-m", "sglang.launch_server", "--served-model-name", "\\ud83d\\ude00", "--tp", "2"]\n',
    "nested arrays": "FROM x\nCMD " + "[" * 5000 + "]" * 5000 + "\n",
    "not strings": 'FROM x\nCMD ["python3", "-m", "sglang.launch_server", 2, null, {"a": 1}]\n',
    "escape directive twice and unknown": "# escape=`\n# escape=\\\n# syntax=x\n# nope=1\nFROM x\nCMD python3 -m sglang.launch_server --tp 2 `\n  --pp 1\n",
    "SHELL not JSON": "FROM x\nSHELL /bin/sh -c\nCMD python3 -m sglang.launch_server --tp 2\n",
    "SHELL empty": "FROM x\nSHELL []\nCMD python3 -m sglang.launch_server --tp 2\n",
    "FROM a stage of itself": "FROM base AS base\nFROM base AS base\nCMD python3 -m sglang.launch_server --tp 2\n",
    "ARG loop": "ARG A=$B\nARG B=$A\nFROM lmsysorg/sglang:${A}${B}\nENV X=$X$X$X\nCMD python3 -m sglang.launch_server --tp $X\n",
    "payload in ENV": f"FROM x\nENV P=$(touch {MARKER}) Q=`touch {MARKER}`\nCMD python3 -m sglang.launch_server --tp $P $Q\n",
    "control characters": "FROM x\nCMD python3 -m sglang.launch_server --model-path \x1b]0;pwned\x07 --tp 2\n",
    "CR only": "FROM x\rCMD python3 -m sglang.launch_server --tp 2\r",
    "ONBUILD CMD": "FROM x\nONBUILD CMD python3 -m sglang.launch_server --tp 2\n",
    "lowercase and tabs": "from x\ncmd\tpython3 -m sglang.launch_server\t--tp\t2\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_dockerfile_is_a_finding_or_a_message_never_a_crash(name: str, tmp_path: pytest.TempPathFactory,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # type: ignore[arg-type]
    r = lint_text(CASES[name], "Dockerfile", Options(version=NEWEST), explicit=True)
    assert not (r.error or "").startswith("internal error"), r.error
    if r.error:
        assert "Dockerfile" in r.error or "no SGLang launch command found" in r.error, r.error
    for f in r.findings:
        assert "\x1b" not in f.message and "\x07" not in f.message
        assert f.location.line >= 1 and f.location.col >= 1
    assert not (tmp_path / MARKER).exists()  # type: ignore[operator]


def test_tabs_and_lowercase_instructions_are_read_as_docker_reads_them() -> None:
    r = lint_text(CASES["lowercase and tabs"], "Dockerfile", Options(version=NEWEST))
    (cfg,) = r.resolved
    assert cfg.v("tp_size") == 2
    assert [(t.text, t.loc.line, t.loc.col) for t in cfg.cmd.tokens] == [("--tp", 2, 37), ("2", 2, 42)]


@pytest.mark.slow
def test_long_continuations_and_exec_forms_cost_linear_work() -> None:
    assert_linear(lambda n: "FROM x\nCMD python3 -m sglang.launch_server \\\n" + "  # c\n  --tp 2 \\\n" * n + "  --pp 1\n", 1000, "Dockerfile")
    assert_linear(lambda n: "FROM x\nCMD " + LAUNCH + ', "--tp", "2"' * n + "]\n", 2000, "Dockerfile")
    assert_linear(lambda n: "FROM x\n" + "RUN <<EOF\nCMD x\nEOF\n" * n + "CMD " + LAUNCH + "]\n", 1000, "Dockerfile")


_PIECES = ["FROM lmsysorg/sglang:v0.5.23", "FROM base AS base", "ARG TP=2", "ARG TP", "ENV TP=4 PP=$TP", "ENV X y z",
           "SHELL [\"/bin/bash\", \"-c\"]", "SHELL [\"pwsh\", \"-c\"]", "# escape=`", "# comment", "", "  ", "\\", "`",
           "RUN <<EOF", "EOF", "CMD python3 -m sglang.launch_server --tp $TP \\", "  --pp-size 2 \\", "  # inside",
           'CMD ["python3", "-m", "sglang.launch_server", "--tp", "2", \\', '     "--model-path", "m/x"]',
           'ENTRYPOINT ["python3", "-m", "sglang.launch_server"]', 'CMD ["--tp", "\\u0032", "--pp-size", "1"]',
           'ENTRYPOINT ["sh", "-c", "python3 -m sglang.launch_server --tp 2\\n  --pp-size 1"]', "cmd\tpython3 -m sglang.launch_server --tp 2"]


def _text_at(text: str, line: int, col: int) -> str:
    lines = text.split("\n")
    return lines[line - 1][col - 1:] if 1 <= line <= len(lines) else ""


@pytest.mark.slow
def test_every_plain_token_of_a_generated_dockerfile_is_where_it_says() -> None:
    """Any mix of Dockerfile pieces (continuations, directives, here-documents, SHELL, stages,
    CRLF): no crash, and each token kdacheck read from the file's own text (not an expansion)
    sits at its line:col, bare or in quotes."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from kdacheck.findings import InputError
    from kdacheck.readers import read_text

    @settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
    @given(st.lists(st.sampled_from(_PIECES), max_size=14), st.sampled_from(["\n", "\r\n"]))
    def run(pieces: list[str], brk: str) -> None:
        text = brk.join(pieces) + brk
        try:
            cmds = read_text(text, "Dockerfile")
        except InputError:
            return
        for c in cmds:
            for t in c.tokens:
                at = _text_at(text, t.loc.line, t.loc.col)
                if t.unknown or at.startswith("$") or not t.text.replace("-", "").replace("/", "").isalnum():
                    continue
                if at.startswith('"') and "\\" in at.split('"', 2)[1]:  # an exec-form word with escapes: decoded there
                    assert json.JSONDecoder().raw_decode(at)[0] == t.text, (text, t)
                    continue
                assert at.startswith((t.text, f'"{t.text}"', f"'{t.text}'")), (text, t)

    run()
