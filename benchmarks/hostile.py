"""Hostile inputs by class, each run as its own ``kdacheck`` process and measured: wall time
and peak memory (the child's ``ru_maxrss``), exit code, and the line that says why.

The same cases are the tests of ``tests/test_hostile_budgets.py`` (one factory: ``CASES``);
this script prints the table for docs/robustness.md:

    python benchmarks/hostile.py [--markdown]
    python benchmarks/hostile.py --corpus [--markdown]

``--corpus`` times instead, in one process, the in-process corpus of ``tests/test_hostile.py``
(every file of ``tests/data/hostile/`` and the big generated inputs), the best of three lints
each: the "well under 2 s" of docs/robustness.md. The tests hold no wall-clock limit (they
count work, or compare two sizes); the numbers live here and in docs/robustness.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KIMI = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 2"
SPEC = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
TIME_LIMIT_S = 2.0  # what docs/robustness.md promises per case
MEMORY_LIMIT_MB = 300


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    setup: Callable[[Path], tuple[list[str], str | None]]  # -> (argv after `kdacheck`, stdin file or None)
    codes: tuple[int, ...]
    says: str  # a part of the output that explains the result


def _repo(tmp: Path) -> Path:
    (tmp / ".git").mkdir(exist_ok=True)
    return tmp


def _config_outside(tmp: Path) -> tuple[list[str], str | None]:
    _repo(tmp)
    outside = tmp.parent / f"{tmp.name}-outside.yaml"  # a real YAML beside the repository, never to be read
    outside.write_text("model-path: /etc/passwd\n")
    (tmp / "run.sh").write_text(f"{KIMI} --config {outside}\n")
    return ["lint", "run.sh", "--output-format", "github"], None


def _config_passwd(tmp: Path) -> tuple[list[str], str | None]:
    _repo(tmp)
    (tmp / "run.sh").write_text(f"{KIMI} --config /etc/passwd\n")
    return ["lint", "run.sh", "--output-format", "github"], None


def _newline_name(tmp: Path) -> tuple[list[str], str | None]:
    (tmp / "x\n::error file=a.sh::pwned\x1b]0;t\x07.sh").write_text(f"{KIMI} --tp-size 3\n")
    return ["lint", "."], None


def _config_named_many_times(tmp: Path) -> tuple[list[str], str | None]:
    _repo(tmp)
    (tmp / "args.yaml").write_text("# padding\n" * 90_000 + "tp-size: 2\nmodel-path: moonshotai/Kimi-Linear-48B-A3B-Instruct\n")
    (tmp / "run.sh").write_text(f"python -m sglang.launch_server --config args.yaml {SPEC}\n" * 1000)
    return ["lint", "run.sh", "--output-format", "concise"], None


def _stdin_zero(tmp: Path) -> tuple[list[str], str | None]:
    return ["lint", "-"], "/dev/zero"


def _model_symlink_dev_zero(tmp: Path) -> tuple[list[str], str | None]:
    (tmp / "model").mkdir()
    (tmp / "model" / "config.json").symlink_to("/dev/zero")
    return ["lint", "--model", str(tmp / "model" / "config.json"), "--cmd", KIMI], None


def _model_fifo(tmp: Path) -> tuple[list[str], str | None]:
    (tmp / "model").mkdir()
    os.mkfifo(tmp / "model" / "config.json")
    return ["lint", "--model", str(tmp / "model"), "--cmd", KIMI], None


def _max_file_size(size: int, stdin: bool = False) -> Callable[[Path], tuple[list[str], str | None]]:
    def setup(tmp: Path) -> tuple[list[str], str | None]:
        (tmp / "kdacheck.toml").write_text(f"max-file-size = {size}\n")
        (tmp / "run.sh").write_text(f"{KIMI} {SPEC}\n")
        return (["lint", "-", "--stdin-filename", "run.sh"], str(tmp / "run.sh")) if stdin else (["lint", "run.sh"], None)

    return setup


def _gitignore_backtracking(tmp: Path) -> tuple[list[str], str | None]:
    _repo(tmp)
    (tmp / ".gitignore").write_text("****************x\n[z-a]\n[!]\n")
    (tmp / ("a" * 35 + ".sh")).write_text(f"{KIMI} {SPEC}\n")
    return ["lint", "."], None


def _model_field(field: str, value: object, tp: int = 2) -> Callable[[Path], tuple[list[str], str | None]]:
    def setup(tmp: Path) -> tuple[list[str], str | None]:
        data = json.loads((ROOT / "tests/data/models/kimi-linear-48b/config.json").read_text())
        node = data
        *parents, last = field.split(".")
        for p in parents:
            node = node[p]
        node[last] = value
        (tmp / "config.json").write_text(json.dumps(data))
        return ["lint", "--model", str(tmp / "config.json"), "--cmd", f"{KIMI} --tp-size {tp} {SPEC}"], None

    return setup


def _run_every_option_at_its_limit(tmp: Path) -> tuple[list[str], str | None]:
    return ["run", "--device", "cpu", "--steps", "64", "--topk", "64", "--draft-tokens", "1024", "--batch", "4096"], None


def _run_args_wide(tmp: Path) -> tuple[list[str], str | None]:
    (tmp / "run.sh").write_text("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct "
                                "--speculative-algorithm EAGLE --speculative-num-steps 19999 --speculative-eagle-topk 1 "
                                "--speculative-num-draft-tokens 20000\n")
    return ["run", "--args", "run.sh", "--device", "cpu"], None


def _adaptive_deep(tmp: Path) -> tuple[list[str], str | None]:
    _repo(tmp)
    (tmp / "adaptive.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp / "big.json").write_text('{"1": {"candidate_steps": [' + "9" * 4000 + "]}}")
    (tmp / "run.sh").write_text(f"{KIMI} --speculative-algorithm EAGLE --speculative-adaptive --speculative-adaptive-config adaptive.json\n"
                                f"{KIMI} --speculative-algorithm EAGLE --speculative-adaptive --speculative-adaptive-config big.json\n")
    return ["lint", "run.sh"], None


CASES = [
    Case("config-outside", "`--config` naming a YAML outside the repository (github format)", _config_outside, (2,), "outside the repository"),
    # SGLang's merger refuses the name before it opens anything (ARG011); kdacheck reads nothing either
    Case("config-passwd", "`--config /etc/passwd` in a launch script (github format)", _config_passwd, (1,), "Config file must be YAML format"),
    Case("newline-name", "a file name holding a newline, `::error` and an OSC sequence", _newline_name, (1,), "KDA007"),
    Case("config-1000-times", "a 0.9 MB `--config` named by 1,000 launch lines", _config_named_many_times, (0, 1), "1000 launch commands"),
    Case("stdin-dev-zero", "`kdacheck lint - < /dev/zero`", _stdin_zero, (2,), "over the"),
    Case("model-dev-zero", "a model config.json that is a symlink to /dev/zero", _model_symlink_dev_zero, (2,), "regular file"),
    Case("model-fifo", "a model folder whose config.json is a FIFO", _model_fifo, (0, 1, 2), "config.json"),
    Case("max-file-size-2**62", "`max-file-size = 2**62` in kdacheck.toml", _max_file_size(2**62), (2,), "ceiling"),
    Case("max-file-size-1GiB", "`max-file-size = 2**30` (the ceiling), a small file", _max_file_size(2**30), (0, 1), "Checked 1 file"),
    Case("max-file-size-1GiB-stdin", "`max-file-size = 2**30`, the file on standard input", _max_file_size(2**30, stdin=True), (0, 1), "Checked 1 file"),
    Case("gitignore-backtracking", "`****************x` in .gitignore beside a 35-character name", _gitignore_backtracking, (0, 1), "Checked 1 file"),
    Case("layers-1e15", "`num_hidden_layers: 10**15` in config.json", _model_field("num_hidden_layers", 10**15), (2,), "num_hidden_layers"),
    Case("heads-1e15+1", "`num_heads: 10**15+1` with `--tp-size 2`", _model_field("linear_attn_config.num_heads", 10**15 + 1), (2,), "num_heads"),
    Case("heads-string", "`num_heads: \"32\"` (a string)", _model_field("linear_attn_config.num_heads", "32"), (2,), "num_heads"),
    Case("layers-nan", "`num_hidden_layers: NaN`", _model_field("num_hidden_layers", float("nan")), (2,), "num_hidden_layers"),
    Case("kda-layers-null", "`kda_layers: null`", _model_field("linear_attn_config.kda_layers", None), (2,), "kda_layers"),
    Case("run-at-every-limit", "`kdacheck run` with every option at its limit (~hours of work)", _run_every_option_at_its_limit, (2,), "over the budget"),
    Case("run-args-d-20000", "`kdacheck run --args` on a launch with D = 20,000", _run_args_wide, (2,), "must be between"),
    Case("adaptive-deep", "`--speculative-adaptive-config`: 100,000-deep JSON, a 4,000-digit number", _adaptive_deep, (0, 1), "candidate steps"),
]
CASES_BY_NAME = {c.name: c for c in CASES}


@dataclass
class Measured:
    case: Case
    code: int
    seconds: float
    peak_mb: float
    output: str


# A small launcher starts kdacheck and reports its rusage: a child forked straight from a big
# process (pytest with torch loaded) inherits that process's peak in ru_maxrss on Linux.
_LAUNCHER = """
import json, os, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[2:])
_pid, status, usage = os.wait4(p.pid, 0)
p.returncode = 0
with open(sys.argv[1], "w") as fh:
    json.dump({"code": os.waitstatus_to_exitcode(status), "seconds": time.perf_counter() - t0, "peak_kb": usage.ru_maxrss}, fh)
"""


def measure(case: Case, tmp: Path) -> Measured:
    argv, stdin = case.setup(tmp)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"}
    env.pop("GITHUB_ACTIONS", None)
    report = tmp.parent / f".{tmp.name}-rusage.json"
    with tempfile.TemporaryFile() as out, open(stdin or os.devnull, "rb") as inp:
        subprocess.run([sys.executable, "-c", _LAUNCHER, str(report), sys.executable, "-m", "kdacheck", *argv], cwd=tmp, stdin=inp,
                       stdout=out, stderr=subprocess.STDOUT, env=env, timeout=120, check=False)
        out.seek(0)
        text = out.read(1 << 20).decode("utf-8", "replace")
    got = json.loads(report.read_text())
    report.unlink()
    return Measured(case, got["code"], got["seconds"], got["peak_kb"] / 1024, text)


def _generated() -> dict[str, str]:
    """The big inputs of tests/test_hostile.py, as (name -> shell or YAML text)."""
    line = "python -m sglang.launch_server --tp-size 2 --dp-size 2 --speculative-num-steps 3\n"
    return {
        "50 MB script.sh": line * (50 * 1024 * 1024 // len(line) + 1),
        "200,000 flags.sh": "python -m sglang.launch_server " + " ".join(["--enable-metrics"] * 200_000) + "\n",
        "20,000 repeated flags.sh": "python -m sglang.launch_server " + " ".join(["--enable-metrics"] * 20_000) + "\n",
        "200,000 YAML keys.yaml": "".join(f"key-{i}: {i}\n" for i in range(200_000)),
        "5,000 unknown flags.sh": "python -m sglang.launch_server " + " ".join(f"--no-such-flag-{i} 1" for i in range(5_000)) + "\n",
        "5,000 launch lines.sh": "python -m sglang.launch_server --tp-size 2\n" * 5000,
    }


def corpus() -> int:
    import time

    sys.path.insert(0, str(ROOT))
    from kdacheck.flags import NEWEST
    from kdacheck.lint import Options, lint_path

    rows = []
    with tempfile.TemporaryDirectory() as d:
        files = sorted((ROOT / "tests" / "data" / "hostile").iterdir())
        for name, text in _generated().items():
            path = Path(d) / name.replace(" ", "-").replace(",", "")
            path.write_text(text)
            files.append(path)
        for path in files:
            best = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                result = lint_path(str(path), Options(version=NEWEST))
                best = min(best, time.perf_counter() - t0)
            outcome = (result.error or f"{len(result.findings)} findings")[:90]
            rows.append((path.name, best, outcome))
            print(f"{path.name:<36} {best:6.2f} s  {outcome}", file=sys.stderr)
    if "--markdown" in sys.argv:
        print("| input | best of 3 | result |")
        print("|---|---:|---|")
        for name, best, outcome in rows:
            print(f"| `{name}` | {best:.2f} s | {outcome.replace('|', chr(92) + '|')} |")
    return 0


def main() -> int:
    if "--corpus" in sys.argv:
        return corpus()
    rows = []
    for case in CASES:
        with tempfile.TemporaryDirectory() as d:
            m = measure(case, Path(d))
        ok = m.code in case.codes and case.says in m.output
        rows.append((case, m, ok))
        print(f"{case.name:<24} rc={m.code} {m.seconds:6.2f} s {m.peak_mb:7.1f} MB {'ok' if ok else 'UNEXPECTED'}", file=sys.stderr)
    if "--markdown" in sys.argv:
        print("| input | result | exit | time | peak memory |")
        print("|---|---|---:|---:|---:|")
        for case, m, _ok in rows:
            line = next((ln.strip() for ln in m.output.splitlines() if case.says in ln), "").replace("|", "\\|")
            print(f"| {case.what} | {line[:150]} | {m.code} | {m.seconds:.2f} s | {m.peak_mb:.0f} MB |")
    return 0 if all(ok for _c, _m, ok in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
