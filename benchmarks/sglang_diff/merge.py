#!/usr/bin/env python3
"""Merge generated cases with oracle results into a golden / holdout file.

    python benchmarks/sglang_diff/merge.py --cases cases.jsonl --results results.jsonl \
        --sglang-version 0.5.23 --seed 1 --out tests/data/sglang-golden/0.5.23.jsonl \
        [--stats stats.json]

Each output line is the case merged with its result, plus "sglang_version" and
"seed". harness_error cases are left out (their count is printed), and so is
the run-dependent "elapsed_s".  Prints refusal statistics (per exception type
and raising place) as JSON on stdout.
"""
import argparse
import collections
import json


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--cases", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--sglang-version", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--stats")
    a = p.parse_args(argv)
    cases = [json.loads(l) for l in open(a.cases) if l.strip()]
    results = {}
    for l in open(a.results):
        if l.strip():
            r = json.loads(l)
            results[r["id"]] = r
    verdicts = collections.Counter()
    by_exc = collections.Counter()
    by_place = collections.Counter()
    by_both = collections.Counter()
    harness = []
    n_out = 0
    with open(a.out, "w") as f:
        for c in cases:
            r = dict(results[c["id"]])
            r.pop("elapsed_s", None)
            verdicts[r["verdict"]] += 1
            if r["verdict"] == "harness_error":
                harness.append({"id": c["id"], "exception": r.get("exception"), "message": r.get("message", "")[:200]})
                continue
            if r["verdict"] == "refused":
                ra = r.get("raised_at") or {}
                place = f"{ra.get('file')}:{ra.get('function')}"
                by_exc[r["exception"]] += 1
                by_place[place] += 1
                by_both[f"{r['exception']} @ {place}"] += 1
            rec = {**c, **{k: v for k, v in r.items() if k != "id"},
                   "sglang_version": a.sglang_version, "seed": a.seed}
            f.write(json.dumps(rec, sort_keys=False, separators=(",", ":")) + "\n")
            n_out += 1
    stats = {
        "sglang_version": a.sglang_version, "seed": a.seed, "cases": len(cases),
        "written": n_out, "verdicts": dict(verdicts),
        "refused_by_exception": dict(by_exc.most_common()),
        "refused_by_place": dict(by_place.most_common()),
        "refused_by_exception_and_place": dict(by_both.most_common()),
        "harness_errors": harness,
    }
    if a.stats:
        with open(a.stats, "w") as f:
            json.dump(stats, f, indent=1)
    print(json.dumps(stats, indent=1))


if __name__ == "__main__":
    main()
