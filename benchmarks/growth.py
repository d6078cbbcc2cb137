"""How the cost of one file grows with its input, construct by construct: every expansion
kdacheck reads (shell words, arrays, Dockerfile scopes, Compose and Kubernetes substitution,
YAML aliases and merge keys, env maps) at 1x, 2x and 4x its input, timed (best of several, in
this process, as CPU time: another process on the machine does not stretch it) and its peak memory measured (tracemalloc), and the same construct pushed past its
bound, where the file is refused by name (exit 2) within the same memory.

The constructs are the tests of ``tests/test_growth.py`` (one registry: ``CONSTRUCTS``); the
tests compare two timings as a ratio (4x the input: at most ``MAX_RATIO_4X`` the time, where a
quadratic construct takes 16x) and hold the peak under ``PEAK_LIMIT_MB``, never a wall-clock
limit. This script prints the table for docs/robustness.md:

    python benchmarks/growth.py [--markdown] [NAME ...]
"""

from __future__ import annotations

import gc
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 2"
MAX_RATIO_4X = 6.5  # linear is 4; quadratic 16
PEAK_LIMIT_MB = 200  # tracemalloc peak of one file's lint, the documented per-file bound

Files = dict[str, str]  # relative path -> text; the first one is linted


@dataclass(frozen=True)
class Construct:
    name: str
    what: str
    make: Callable[[int], Files]  # n -> files, n in (1, 2, 4) x `base`
    base: int  # the scale of 1x: large enough that a run takes tens of milliseconds
    refused: str | None = None  # at these scales the file is past a bound: exit 2 saying this


def _shell_words(size: int) -> Callable[[int], Files]:
    def make(n: int) -> Files:
        return {"run.sh": "X=" + "a" * size + "\n" + f'{LAUNCH} --served-model-name "{"$X" * n}"\n'}
    return make


def _shell_splice(size: int, times: int) -> Callable[[int], Files]:
    """``A`` of ``size`` x n elements, spliced ``times`` times into ``B``."""
    def make(n: int) -> Files:
        return {"run.sh": "A=(" + " x" * (size * n) + ")\nB=(" + ' "${A[@]}"' * times + f")\n{LAUNCH}\n"}
    return make


def _shell_nested_defaults(n: int) -> Files:
    return {"run.sh": f"{LAUNCH} --served-model-name " + "${A:-" * n + "x" + "}" * n + "\n"}


def _shell_bash_c_scripts(n: int) -> Files:
    """n ``bash -c`` scripts (each a scope of its own), each word 90 KB of a 1 KB ``$X``."""
    script = f"bash -c 'echo \"{'$X' * 90}\" # sglang.launch_server'\n"
    return {"run.sh": "X=" + "a" * 1_000 + "\n" + script * n + f"{LAUNCH}\n"}


def _dockerfile(body: str) -> Files:
    """A Dockerfile whose image is a launch: ``body``, then ``CMD`` the launch."""
    return {"Dockerfile": f"FROM x AS s0\n{body}CMD {LAUNCH}\n"}


def _docker_env_lines(n: int) -> Files:
    return _dockerfile("".join(f"ENV V{i}=v{i}\n" for i in range(n)))


def _docker_chain(env_per_stage: int, root_env: int) -> Callable[[int], Files]:
    """``n`` stages each built FROM the one before (``FROM s0 AS s1``, ...), each with ENV lines."""
    def make(n: int) -> Files:
        root = "".join(f"ENV R{i}=r{i}\n" for i in range(root_env))
        return _dockerfile(root + "".join(f"FROM s{i} AS s{i + 1}\n" + "".join(
            f"ENV S{i}_{j}=$S{i}_{j}x\n" for j in range(env_per_stage)) for i in range(n)))
    return make


def _docker_stages(n: int) -> Files:
    return _dockerfile("FROM x\n" * n)


def _docker_shell_forms(n: int) -> Files:
    scope = "".join(f"ENV V{i}=v{i}\n" for i in range(2_000))
    return _dockerfile(scope + "".join(f"RUN echo $V{i % 2_000} && true\nCMD echo $V{i % 2_000}\n" for i in range(n)))


def _docker_env_refs(size: int, lines: int) -> Callable[[int], Files]:
    """``lines`` lines ``ENV Bk=$A$A…``, each one word of ``n`` references to A of ``size`` characters."""
    def make(n: int) -> Files:
        return _dockerfile("ENV A=" + "a" * size + "\n" + "".join(f"ENV B{k}=" + "$A" * n + "\n" for k in range(lines)))
    return make


def _docker_exec_words(n: int) -> Files:
    return {"Dockerfile": 'FROM x\nCMD ["python", "-m", "sglang.launch_server", "--tp-size", "2"' + ', "--x", "y"' * n + "]\n"}


def _docker_script_word(n: int) -> Files:
    return {"Dockerfile": f'FROM x\nCMD ["sh", "-c", "{LAUNCH} ' + "\\\\\\n" * n + '--x y"]\n'}


def _blank_lines(n: int) -> Files:
    return {"run.sh": "\n" * n + LAUNCH + "\n"}


def _compose_refs(size: int, per_item: int) -> Callable[[int], Files]:
    """n Compose list items of `${A}` x ``per_item``, A of ``size`` characters, in a 0.9 MB `.env`."""
    def make(n: int) -> Files:
        filler = "".join(f"B{i}={'b' * 80}\n" for i in range(max(0, 900_000 - size) // 90))
        items = ", ".join([f'"{"${A}" * per_item}"'] * n)
        return {"compose.yaml": f"services:\n  s:\n    command: [python, -m, sglang.launch_server, --model-path, "
                                f"moonshotai/Kimi-Linear-48B-A3B-Instruct, --lora-paths, {items}]\n",
                ".env": f"A={'a' * size}\n{filler}"}
    return make


def _pod_args_refs(size: int, per_item: int) -> Callable[[int], Files]:
    """n Kubernetes `args` items of `$(A)` x ``per_item``, A of ``size`` characters."""
    def make(n: int) -> Files:
        items = ", ".join([f'"{"$(A)" * per_item}"'] * n)
        return {"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n"
                            f"      env:\n        - {{name: A, value: {'a' * size}}}\n"
                            "      command: [python, -m, sglang.launch_server]\n"
                            f"      args: [--model-path, moonshotai/Kimi-Linear-48B-A3B-Instruct, --lora-paths, {items}]\n"}
    return make


def _workflow_env_alias(n: int) -> Files:
    """n steps with `env: *e` (a 200-entry map) in jobs of 100, every tenth a launch."""
    env = "".join(f"    K{i}: v{i}\n" for i in range(200))
    jobs = "".join(f"  j{j}:\n    runs-on: x\n    steps:\n" + "".join(
        f"      - env: *e\n        run: {LAUNCH if i % 10 == 0 else f'echo {i}'}\n" for i in range(100)) for j in range(n // 100))
    return {"wf.yaml": f"on: push\nx-env: &e\n{env}jobs:\n{jobs}"}


def _pod_env_alias(n: int) -> Files:
    """n launching containers with `env: *e`, one 200-entry env list."""
    env = "".join(f"        - {{name: K{i}, value: v{i}}}\n" for i in range(200))
    more = "".join(f"    - name: c{i}\n      env: *e\n      command: [python, -m, sglang.launch_server, --model-path, "
                   "moonshotai/Kimi-Linear-48B-A3B-Instruct]\n" for i in range(n))
    return {"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      env: &e\n"
                        f"{env}      command: [sleep, '1']\n{more}"}


def _compose_merge(n: int) -> Files:
    """n Compose services, each `<<: *base` (2,000 keys) and its own command."""
    base = "x-base: &base\n  image: lmsysorg/sglang:v0.5.3\n" + "".join(f"  x{i}: {i}\n" for i in range(2_000))
    return {"compose.yaml": base + "services:\n" + "".join(f"  s{i}:\n    <<: *base\n    command: {LAUNCH}\n" for i in range(n))}


def _config_many_launches(n: int) -> Files:
    """One 20,000-item --config (0.4 MB) named by n launch lines."""
    items = "".join(f"  - d{i}.example.com\n" for i in range(20_000))
    return {"run.sh": f"{LAUNCH} --config args.yaml\n" * n,
            "args.yaml": f"allowed-media-domains:\n{items}"}


CONSTRUCTS: list[Construct] = [
    # --- shell ---
    Construct("shell-words", '`"$X$X…"` in one word, X of 10 B', _shell_words(10), 2_000),
    Construct("shell-words-over", '`"$X$X…"` in one word, X of 100 KB (past 100,000 characters)',
              _shell_words(100_000), 500, "characters"),
    Construct("shell-array-splice", '`B=("${A[@]}" x 3)`, A of 4,000 x n elements', _shell_splice(4_000, 3), 1),
    Construct("shell-array-splice-over", '`B=("${A[@]}" …)` x 1,000 x n, A of 40,000 (past 50,000 elements)',
              lambda n: _shell_splice(40_000, 1_000 * n)(1), 1, "grows past 50,000 elements"),
    Construct("shell-nested-defaults", "`${A:-${A:-…}}` nested n deep (past 200 levels)",
              _shell_nested_defaults, 1_000, "nested more than 200 levels deep"),
    Construct("shell-bash-c-budget", "n `bash -c` scripts, each making a 90 KB word (past the file's 8,000,000 characters)",
              _shell_bash_c_scripts, 100, "the expansions of"),
    # --- dockerfile ---
    Construct("dockerfile-env-lines", "ENV lines, each read over the stage's scope", _docker_env_lines, 5_000),
    Construct("dockerfile-stage-chain", "stages `FROM s0 AS s1`, `FROM s1 AS s2`, ... each with 2 ENV lines",
              _docker_chain(2, 0), 1_000),
    Construct("dockerfile-stage-chain-over", "the same chain over 20,000 ENV lines (each 32 stages flattened, charged)",
              _docker_chain(0, 20_000), 4_000, "pieces"),
    Construct("dockerfile-stages-over", "`FROM x` lines (past 10,000 stages)", _docker_stages, 12_000, "stages"),
    Construct("dockerfile-shell-forms", "RUN and CMD shell forms over 2,000 ENV variables", _docker_shell_forms, 5_000),
    Construct("dockerfile-env-refs", "8 lines `ENV Bk=$A$A…`, each one word, A of 12 B", _docker_env_refs(12, 8), 2_000),
    Construct("dockerfile-env-refs-over", "`ENV B=$A$A…` in one word, A of 100 KB (past 100,000 characters)",
              _docker_env_refs(100_000, 1), 100, "characters"),
    Construct("dockerfile-exec-words", "exec-form CMD words", _docker_exec_words, 10_000),
    Construct("dockerfile-script-word", "continued lines of a script in one exec-form word (`sh -c`)", _docker_script_word, 50_000),
    Construct("dockerfile-sniff-blank-lines", "blank lines before a launch in run.sh (is it a Dockerfile?)", _blank_lines, 10_000),
    # --- yaml ---
    Construct("yaml-compose-refs", "n Compose list items of `${A}` x 10, A of 50 B, a 0.9 MB `.env`",
              _compose_refs(50, 10), 1_000),
    Construct("yaml-compose-refs-over", "`${A}` x 1,000 in n Compose list items, A of 0.9 MB (past 1 MiB an item)",
              _compose_refs(900_000, 1_000), 1, "over 1,048,576 characters"),
    Construct("yaml-k8s-args-refs", "n Kubernetes `args` items of `$(A)` x 10, A of 50 B", _pod_args_refs(50, 10), 1_500),
    Construct("yaml-k8s-args-refs-over", "`$(A)` x n in one Kubernetes `args` item (past 10,000 references)",
              lambda n: _pod_args_refs(10, n)(1), 30_000, "more than 10,000 variable references"),
    Construct("yaml-workflow-env-alias", "n workflow steps with `env: *e` (200 entries), every tenth a launch",
              _workflow_env_alias, 500),
    Construct("yaml-pod-env-alias", "n launching Pod containers with `env: *e` (200 entries)", _pod_env_alias, 100),
    Construct("yaml-compose-merge", "n Compose services with `<<: *base`, base of 2,000 keys", _compose_merge, 200),
    Construct("yaml-config-launches", "one 20,000-item --config named by n launch lines", _config_many_launches, 4),
]
BY_NAME = {c.name: c for c in CONSTRUCTS}


@dataclass
class Measured:
    seconds: float
    peak_mb: float
    error: str | None


def _write(files: Files, tmp: Path) -> Path:
    (tmp / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        target = tmp / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return tmp / next(iter(files))


def measure(files: Files, repeat: int = 3) -> Measured:
    """Lint the first of ``files`` in a fresh repository: the best CPU time of ``repeat`` runs
    (``time.process_time``: a busy machine's other processes do not count; the cyclic collector
    off while timed, its full passes growing with the heap the test process holds, not with the
    input), then one run under tracemalloc for the peak."""
    sys.path.insert(0, str(ROOT))
    from kdacheck.flags import NEWEST
    from kdacheck.lint import Options, lint_path

    with tempfile.TemporaryDirectory() as d:
        path = _write(files, Path(d))
        best, error = float("inf"), None
        for _ in range(repeat):
            gc.collect()
            gc.disable()  # the collector's full passes scale with the live heap, not with kdacheck's work
            try:
                t0 = time.process_time()
                error = lint_path(str(path), Options(version=NEWEST)).error
                best = min(best, time.process_time() - t0)
            finally:
                gc.enable()
        tracemalloc.start()
        try:
            lint_path(str(path), Options(version=NEWEST))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return Measured(best, peak / 2**20, error)


def growth(c: Construct, repeat: int = 3) -> list[Measured]:
    return [measure(c.make(c.base * k), repeat) for k in (1, 2, 4)]


def main() -> int:
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    rows = []
    for c in [BY_NAME[n] for n in names] if names else CONSTRUCTS:
        ms = growth(c)
        rows.append((c, ms))
        print(f"{c.name:<24} " + "  ".join(f"{m.seconds * 1000:7.1f} ms {m.peak_mb:6.1f} MB" for m in ms)
              + f"   x4/x1 {ms[2].seconds / ms[0].seconds:4.1f}   {(ms[2].error or 'read')[:80]}", file=sys.stderr)
    if "--markdown" in sys.argv:
        print("| construct | 1x | 2x | 4x | 4x/1x | result |")
        print("|---|---:|---:|---:|---:|---|")
        for c, ms in rows:
            cells = " | ".join(f"{m.seconds * 1000:.0f} ms, {m.peak_mb:.0f} MB" for m in ms)
            print(f"| `{c.name}`: {c.what} | {cells} | {ms[2].seconds / ms[0].seconds:.1f} | {'exit 2' if c.refused else 'read'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
