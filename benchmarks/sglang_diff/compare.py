"""kdacheck against SGLang's recorded verdicts: totals, confusion matrix, mismatch classes, JSON.

    python benchmarks/sglang_diff/compare.py --sglang-version 0.5.23 [--cases FILE.jsonl] [--json OUT]

``--cases`` defaults to the golden file (tests/data/sglang-golden/VERSION.jsonl); pass a holdout
(``HOLDOUT=1 regen.sh``) to measure on cases kdacheck was never tuned on. Runs in kdacheck's own
environment: SGLang is not needed here, only its recorded results.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import sglang_golden  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sglang-version", required=True)
    ap.add_argument("--cases", type=Path, help="a JSONL of cases with SGLang's results (default: the golden)")
    ap.add_argument("--json", type=Path, help="write the comparison as JSON here")
    ap.add_argument("--by-family", action="store_true", help="also print the table per family (generate.py's kind) and model")
    args = ap.parse_args()
    rows = ([json.loads(line) for line in args.cases.read_text(encoding="utf-8").splitlines() if line.strip()]
            if args.cases is not None else sglang_golden.load(args.sglang_version))
    sglang_golden.load = lambda _version: rows  # type: ignore[assignment]
    c = sglang_golden.compare(args.sglang_version)
    if args.by_family:
        by_family(args.sglang_version, rows)
    classes = Counter(
        (m["sglang"] or "starts", (m["raised_at"] or {}).get("function"), ", ".join(m["kdacheck"]) or "clean") for m in c.mismatches
    )
    print(f"SGLang {c.version}: {c.cases} cases, {c.post_resolution} set aside (errors SGLang raises after its argument pipeline)")
    print("confusion (SGLang → kdacheck):")
    for (sg, ours), n in sorted(c.confusion.items()):
        print(f"  {sg:8} → {ours:5}  {n}")
    print(f"verdict agreement {c.verdict_agreement:.1%}; cause agreement {c.cause_agreement:.1%}")
    print("fields (equal / compared):")
    for name in c.field_total:
        print(f"  {name:32} {c.field_agreement(name):7.1%}  of {c.field_total[name]}")
    print("mismatch classes (SGLang exception, raising function, kdacheck errors):")
    for (sg, fn, ours), n in classes.most_common():
        print(f"  {n:4}  {sg} {fn or ''} → {ours}")
    if args.json:
        args.json.write_text(json.dumps({
            "sglang_version": c.version, "cases": c.cases, "post_resolution": c.post_resolution,
            "confusion": {f"{a}->{b}": n for (a, b), n in c.confusion.items()},
            "verdict_agreement": c.verdict_agreement, "cause_agreement": c.cause_agreement,
            "fields": {n: {"equal": c.field_equal[n], "total": c.field_total[n]} for n in c.field_total},
            "mismatches": c.mismatches,
        }, indent=2) + "\n")
    return 0


def by_family(version: str, rows: list[dict]) -> None:
    """Per family (the generator's ``kind``: dense, kda, gdn, mamba, dsa) and per model: verdict
    agreement, SGLang-starts-kdacheck-errors, and page_size / attention_backend /
    mem_fraction_static agreement on the cases both accept."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from generate import MODELS  # noqa: PLC0415

    groups: dict[str, list[dict]] = {}
    for r in rows:
        kind = MODELS.get(r["model"], {}).get("kind", "?")
        groups.setdefault(f"{kind}", []).append(r)
        groups.setdefault(f"{kind} / {r['model']}", []).append(r)
    print(f"{'family / model':34} {'cases':>5} {'verdict':>8} {'starts→err':>10} {'page':>7} {'backend':>8} {'mfs':>7}")
    for name in sorted(groups):
        sub = groups[name]
        sglang_golden.load = lambda _version, sub=sub: sub  # type: ignore[assignment]
        c = sglang_golden.compare(version)
        counted = max(1, c.cases - c.post_resolution)
        print(f"{name:34} {c.cases:5} {c.verdict_agreement:8.1%} {c.confusion[('starts', 'error')] / counted:10.1%} "
              f"{c.field_agreement('page_size'):7.1%} {c.field_agreement('attention_backend'):8.1%} "
              f"{c.field_agreement('mem_fraction_static'):7.1%}")


if __name__ == "__main__":
    sys.exit(main())
