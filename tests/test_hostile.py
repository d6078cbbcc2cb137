"""Hostile inputs: kdacheck reads files from repositories it does not control.

Each one is handled with the right exit code and a clear message, never a traceback, never
executing anything; the big ones in work that grows linearly with the input (an operation count
or a ratio of two sizes, never a wall-clock limit: ``benchmarks/hostile.py --corpus`` times
them, docs/robustness.md has the numbers). The corpus is in tests/data/hostile/;
the big ones (50 MB, 200k flags) and the file-system oddities (symlink loops, FIFOs,
unreadable files) are made in tmp_path.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kdacheck.cli import app
from kdacheck.flags import NEWEST
from kdacheck.lint import Options, lint_path, lint_text

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"
MARKER = "kdacheck-pwned"  # what the !!python payloads would create in the working directory

runner = CliRunner()


def invoke(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    r = runner.invoke(app, ["lint", "--output-format", "concise", *args], input=input, env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    assert "internal error" not in r.output
    return r


def _best_of(n: int, fn: Callable[[], object]) -> float:
    """The least CPU time of this process over ``n`` calls (process time, not the wall clock:
    other jobs on a busy machine do not count)."""
    best = float("inf")
    for _ in range(n):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def assert_linear(make: Callable[[int], str], small: int, name: str = "x.sh") -> None:
    """Linting ``make(10 * small)`` costs at most 3x the linear share of linting ``make(small)``
    (a ratio of two CPU times of this process, the best of three each: quadratic work is 10x over)."""
    texts = {n: make(n) for n in (small, 10 * small)}
    opts = Options(version=NEWEST)
    lint_text(texts[small], name, opts)  # caches warm
    t_small, t_big = (_best_of(3, lambda n=n: lint_text(texts[n], name, opts)) for n in (small, 10 * small))
    assert t_big < 30 * t_small, f"{t_big:.3f} s for 10x the input of {t_small:.3f} s"


# (file, exit code, text the output must contain)
CASES = [
    ("billion-laughs.yaml", 2, "alias-expanding"),
    ("billion-laughs-json-flag.yaml", 2, "alias-expanding"),
    ("laughs-k8s.yaml", 2, "alias-expanding"),
    ("python-object-apply.yaml", 2, "YAML tag `!!python/object/apply:os.system` is not allowed"),
    ("python-object-new.yaml", 2, "`!!python/object/new:os.system` is not allowed"),
    ("python-name.yaml", 2, "`!!python/name:os.system` is not allowed"),
    ("python-object-k8s.yaml", 2, "python-object-k8s.yaml:7:16: YAML tag"),
    ("bad-standard-tag.yaml", 2, "is not a valid !!int value"),
    ("duplicate-keys.yaml", 1, "`--tp-size` is given more than once (first at "),
    ("deep-flow.yaml", 2, "nesting depth"),
    ("deep-block.yaml", 2, "nested deeper than 64 levels"),
    ("binary.yaml", 2, "binary file"),
    ("nul-bytes.sh", 2, "binary file"),
    ("invalid-utf8.yaml", 2, "not UTF-8 text"),
    ("empty.yaml", 2, "no SGLang launch command found"),  # a named file with nothing to check is not a pass
    ("only-comments.sh", 2, "no SGLang launch command found"),
    ("unbalanced-quote.sh", 2, 'unterminated " quote'),
    ("invalid-yaml.yaml", 2, "invalid YAML"),
    ("not-a-mapping.yaml", 2, "must be a mapping of flag names to values"),
    ("counts-zero-negative.sh", 1, "`--tp-size` must be at least 1, got 0"),
    ("nan-inf.sh", 1, "'nan' is not a finite number"),
    ("huge-ints.sh", 1, "out of range for a 64-bit integer"),
    ("json-non-objects.sh", 1, "must hold a JSON object, not list"),
    ("json-deep.sh", 1, "JSON nested too deeply"),
    ("json-huge-number.sh", 1, "out of range for a 64-bit integer"),
    ("unicode.sh", 1, "unrecognized argument"),
    ("terminal-escapes.sh", 1, "`--x\\x1b[2J\\x1b[31m`"),
]


@pytest.mark.parametrize(("name", "code", "text"), CASES, ids=[c[0] for c in CASES])
def test_hostile_file(name: str, code: int, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # where a payload would write its marker
    r = invoke(str(HOSTILE / name))
    assert r.exit_code == code, r.output
    assert text in r.output, r.output
    assert not (tmp_path / MARKER).exists()


@pytest.mark.parametrize("fmt", ["full", "concise", "github"])
def test_terminal_escapes_never_reach_the_terminal(fmt: str) -> None:
    r = runner.invoke(app, ["lint", "--output-format", fmt, str(HOSTILE / "terminal-escapes.sh")], env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    assert r.exit_code == 1, r.output
    assert "\x1b" not in r.output and "\x07" not in r.output
    assert "\\x1b" in r.output


def test_line_100_is_not_an_emoji(tmp_path: Path) -> None:
    p = tmp_path / "l.sh"
    p.write_text("python -m sglang.launch_server \\\n" + "  --tp-size 2 \\\n" * 98 + "  --tp-sizee 2 --a:x:b 1\n")
    r = runner.invoke(app, ["lint", str(p)], env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    assert f"{p}:100:3: ARG001" in r.output
    assert "`--a:x:b`" in r.output


def test_every_corpus_file_has_a_case() -> None:
    assert sorted(p.name for p in HOSTILE.iterdir()) == sorted(c[0] for c in CASES)


def test_duplicate_key_says_the_last_one_applies() -> None:
    r = invoke(str(HOSTILE / "duplicate-keys.yaml"))
    assert "the last one applies, so tp_size = 8" in r.output


def test_zero_and_negative_counts_each_get_an_arg004_with_a_place() -> None:
    r = invoke(str(HOSTILE / "counts-zero-negative.sh"))
    for flag, value in (("--tp-size", 0), ("--dp-size", -2), ("--pp-size", 0)):
        assert f"`{flag}` must be at least 1, got {value}" in r.output, flag
    # SGLang 0.5.23 keeps --max-running-requests 0 and starts (tests/data/sglang-golden)
    assert "`--max-running-requests` must be" not in r.output
    assert "counts-zero-negative.sh:2:13: ARG004" in r.output


def test_python_tags_are_never_executed_even_through_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evil.yaml").write_text((HOSTILE / "python-object-apply.yaml").read_text())
    (tmp_path / "launch.sh").write_text("python -m sglang.launch_server --config evil.yaml --tp-size 2\n")
    r = invoke(str(tmp_path / "launch.sh"))
    assert r.exit_code == 2
    assert "is not allowed" in r.output
    assert not (tmp_path / MARKER).exists()


def test_python_tag_in_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = invoke("-", input="apiVersion: v1\nkind: Pod\nx: !!python/object/apply:os.system [touch kdacheck-pwned]\n")
    assert r.exit_code == 2
    assert not (tmp_path / MARKER).exists()


def test_fifty_megabytes_is_refused_from_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.sh"
    line = "python -m sglang.launch_server --tp-size 2 --dp-size 2 --speculative-num-steps 3\n"
    with big.open("w") as f:
        f.write(line * (50 * 1024 * 1024 // len(line) + 1))
    r = invoke(str(big))
    assert r.exit_code == 2
    assert "byte limit" in r.output


def test_max_bytes_is_configurable(tmp_path: Path) -> None:
    p = tmp_path / "small.sh"
    p.write_text("python -m sglang.launch_server --tp-size 2\n")
    assert "byte limit" in (lint_path(str(p), Options(version=NEWEST, max_bytes=10)).error or "")
    assert lint_path(str(p), Options(version=NEWEST)).error is None


def test_config_file_over_the_limit(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("tp-size: 2\n" + "# padding\n" * 100)
    result = lint_text("python -m sglang.launch_server --config c.yaml\n", "<cmd>", Options(version=NEWEST, max_bytes=100), str(tmp_path))
    assert "byte limit" in (result.error or "")


def test_two_hundred_thousand_flags_in_a_script(tmp_path: Path) -> None:
    p = tmp_path / "many.sh"
    p.write_text("python -m sglang.launch_server " + " ".join(["--enable-metrics"] * 200_000) + "\n")
    r = invoke(str(p))
    assert r.exit_code == 2
    assert "more than 50,000 shell words" in r.output


@pytest.mark.slow
def test_twenty_thousand_repeated_flags_are_linted(tmp_path: Path) -> None:
    p = tmp_path / "repeat.sh"
    p.write_text("python -m sglang.launch_server " + " ".join(["--enable-metrics"] * 20_000) + "\n")
    r = invoke(str(p))
    assert r.exit_code == 1  # ARG008, once per repetition
    assert "ARG008" in r.output


def test_repeated_flags_cost_linear_work() -> None:
    assert_linear(lambda n: "python -m sglang.launch_server " + " ".join(["--enable-metrics"] * n) + "\n", 1_000)


def test_two_hundred_thousand_yaml_keys(tmp_path: Path) -> None:
    p = tmp_path / "many.yaml"
    p.write_text("".join(f"key-{i}: {i}\n" for i in range(200_000)))
    r = invoke(str(p))
    assert r.exit_code == 2
    assert "YAML too large" in r.output


def test_thousands_of_unknown_flags_stay_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At most MAX_SUGGESTIONS difflib look-ups per command (~3 ms each), however many unknown
    flags: counted, and the rest of the work linear in the flags."""
    import difflib

    from kdacheck import args

    looked_up: list[str] = []
    real = difflib.get_close_matches
    monkeypatch.setattr(difflib, "get_close_matches", lambda word, *a, **k: looked_up.append(word) or real(word, *a, **k))
    args._close_matches.cache_clear()
    p = tmp_path / "unknown.sh"
    p.write_text("python -m sglang.launch_server " + " ".join(f"--no-such-flag-{i} 1" for i in range(5_000)) + "\n")
    r = invoke(str(p))
    assert r.exit_code == 1
    assert "did you mean" in r.output or "unrecognized argument" in r.output
    assert 0 < len(looked_up) <= args.MAX_SUGGESTIONS, len(looked_up)
    monkeypatch.undo()
    assert_linear(lambda n: "python -m sglang.launch_server " + " ".join(f"--no-such-flag-{i} 1" for i in range(n)) + "\n", 500)


def test_many_launch_commands_in_one_file(tmp_path: Path) -> None:
    p = tmp_path / "many-launches.sh"
    p.write_text("python -m sglang.launch_server --tp-size 2\n" * 5000)
    r = invoke(str(p))
    assert r.exit_code == 2
    assert "launch commands in one file" in r.output


def test_symlink_to_itself(tmp_path: Path) -> None:
    loop = tmp_path / "loop.yaml"
    os.symlink("loop.yaml", loop)
    r = invoke(str(loop))
    assert r.exit_code == 2
    assert "symbolic link loop" in r.output


def test_symlinked_folder_loop_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "launch.sh").write_text("python -m sglang.launch_server --tp-size 2\n")
    os.symlink("..", tmp_path / "a" / "up")
    r = invoke(str(tmp_path))
    assert r.exit_code == 0, r.output


def test_directory_given_as_a_file(tmp_path: Path) -> None:
    d = tmp_path / "conf.yaml"
    d.mkdir()
    assert "is a directory" in (lint_path(str(d), Options(version=NEWEST)).error or "")
    result = lint_text(f"python -m sglang.launch_server --config {d}\n", "<cmd>", Options(version=NEWEST), str(tmp_path))
    assert result.error is None
    assert any("not found" in n for n in result.notes)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_named_pipe_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    r = invoke(str(fifo))
    assert r.exit_code == 2
    assert "not a regular file" in r.output


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(tmp_path: Path) -> None:
    p = tmp_path / "secret.sh"
    p.write_text("python -m sglang.launch_server --tp-size 2\n")
    p.chmod(0)
    try:
        r = invoke(str(p))
    finally:
        p.chmod(0o644)
    assert r.exit_code == 2
    assert "permission denied" in r.output


def test_unreadable_file_simulated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "secret.sh"
    p.write_text("python -m sglang.launch_server --tp-size 2\n")

    def denied(*_a: object, **_k: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", denied)
    assert "permission denied" in (lint_path(str(p), Options(version=NEWEST)).error or "")


def test_missing_file() -> None:
    r = invoke("/nonexistent/launch.sh")
    assert r.exit_code == 2


def test_internal_error_in_one_file_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kdacheck.lint as lintmod

    def boom(*_a: object, **_k: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(lintmod, "lint_launch", boom)
    p = tmp_path / "x.sh"
    p.write_text("python -m sglang.launch_server --tp-size 2\n")
    r = runner.invoke(app, ["lint", str(p)], env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    assert r.exit_code == 2
    assert "internal error while checking" in r.output
    assert "ZeroDivisionError" in r.output


def test_last_resort_handler(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import kdacheck.cli as climod
    from kdacheck.main import main

    def boom() -> None:
        raise RuntimeError("something unexpected")

    monkeypatch.setattr(climod, "app", boom)
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "kdacheck: internal error: RuntimeError: something unexpected" in err
    assert "report it" in err
    assert "Traceback" not in err


def test_keyboard_interrupt_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    import kdacheck.cli as climod
    from kdacheck.main import main

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(climod, "app", interrupted)
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 130


def test_pure_python_yaml_loader_is_protected_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without libyaml, PyYAML's composer recurses: the streaming pre-check refuses first."""
    import yaml

    from kdacheck.readers import yamlfiles

    monkeypatch.setattr(yamlfiles, "LOADER", yaml.SafeLoader)
    monkeypatch.setattr(yamlfiles, "_last", None)
    for text, message in (
        ("[" * 100_000 + "]" * 100_000, "nested deeper than 64 levels"),
        ((HOSTILE / "billion-laughs.yaml").read_text(), "alias-expanding"),
        ((HOSTILE / "python-object-apply.yaml").read_text(), "is not allowed"),
    ):
        result = lint_text(text, "x.yaml", Options(version=NEWEST))
        assert message in (result.error or ""), result.error


def test_degenerate_geometry_with_a_gpu_does_not_divide_by_zero() -> None:
    """Found by benchmarks/fuzz.py: tp above the head count made the per-request state 0 bytes,
    and SGLang's memory solve divided by it (ZeroDivisionError) when a GPU was given."""
    kimi = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --speculative-algorithm EAGLE"
    for extra in ("--tp-size 114629", "--mamba-full-memory-ratio -1", "--speculative-num-steps 1 --speculative-eagle-topk 2 --speculative-num-draft-tokens -1", "--mem-fraction-static -0.5"):
        r = invoke("--gpu", "l40s", "--cmd", f"{kimi} {extra}")
        assert r.exit_code in (0, 1), r.output


@pytest.mark.parametrize("cmd", [b"model-path: x\xff\ntp-size: 4",  # a --config text: was an internal error
                                 b"python -m sglang.launch_server --model-path x\xff --tp-size 4",
                                 b"python -m sglang.launch_server --model-path x\xed\xa0\x80"])  # an encoded surrogate
def test_cmd_with_bytes_that_are_not_utf8_is_refused_by_name(cmd: bytes, tmp_path: Path) -> None:
    """argv reaches Python with undecodable bytes as lone surrogates: ``--cmd`` is read as a
    file's bytes are (UTF-8, else "not UTF-8 text", exit 2), never an internal error."""
    import subprocess

    p = subprocess.run([os.fsencode(sys.executable), b"-m", b"kdacheck", b"lint", b"--cmd", cmd], cwd=tmp_path,
                       capture_output=True, timeout=60, env={**os.environ, "NO_COLOR": "1"})
    out = (p.stdout + p.stderr).decode("utf-8")  # what reached the terminal is UTF-8
    assert p.returncode == 2, out
    assert "--cmd: not UTF-8 text (byte " in out and "internal error" not in out, out
