"""Long fuzz run of the lint path: ``python benchmarks/fuzz.py [--examples 10000] [--out DIR]``.

Uses the strategies of tests/test_fuzz.py (valid and mutated YAML configs, shell command
lines, Kubernetes manifests, arbitrary text), but keeps going after a failure: every input
that raises, reports an internal error, renders a malformed report or takes longer than the
deadline is saved under ``--out`` for a regression test, and the totals are printed (and
written as JSON with ``--json``).
"""

from __future__ import annotations

import argparse
import collections
import json
import platform
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.test_fuzz import check, documents, gpus, mutated  # noqa: E402

DEADLINE_S = 2.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--examples", type=int, default=10_000)
    ap.add_argument("--out", default="fuzz-failures", help="folder for failing inputs")
    ap.add_argument("--json", help="write the totals here")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    kinds = st.one_of(
        documents.map(lambda d: ("valid", d)),
        mutated().map(lambda d: ("mutated", d)),
        st.tuples(st.sampled_from(["x.yaml", "x.sh"]), st.text(max_size=400)).map(lambda d: ("text", d)),
    )
    stats: collections.Counter[str] = collections.Counter()
    failures: list[dict[str, str]] = []
    slowest = [0.0]
    out = Path(a.out)

    @settings(max_examples=a.examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=False)
    @given(kinds, gpus)
    def run(item: tuple[str, tuple[str, str]], gpu: str | None) -> None:
        kind, (name, text) = item
        stats[f"kind:{kind}"] += 1
        t0 = time.monotonic()
        try:
            code = check(name, text, gpu)
            stats[f"exit:{code}"] += 1
            problem = None
        except Exception as e:
            problem = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
        dt = time.monotonic() - t0
        slowest[0] = max(slowest[0], dt)
        if problem is None and dt > DEADLINE_S:
            problem = f"slow: {dt:.2f} s"
        if problem is not None:
            stats["failures"] += 1
            out.mkdir(parents=True, exist_ok=True)
            n = len(failures)
            (out / f"{n:04d}-{name}").write_text(text)
            (out / f"{n:04d}-{name}.error.txt").write_text(problem)
            failures.append({"name": name, "problem": problem.splitlines()[0]})

    t0 = time.monotonic()
    run()
    elapsed = time.monotonic() - t0
    total = sum(v for k, v in stats.items() if k.startswith("kind:"))
    summary = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores, Python {platform.python_version()}",
        "examples": total,
        "seconds": round(elapsed, 1),
        "per_example_ms": round(1000 * elapsed / max(total, 1), 2),
        "slowest_ms": round(1000 * slowest[0], 1),
        "stats": dict(sorted(stats.items())),
        "failures": failures[:50],
    }
    print(json.dumps(summary, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
