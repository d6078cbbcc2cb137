#!/usr/bin/env bash
# Regenerate the SGLang goldens (and, with HOLDOUT=1, the holdout files).
#   bash benchmarks/sglang_diff/regen.sh 0.5.23          # golden: seed 1, n 600
#   HOLDOUT=1 bash benchmarks/sglang_diff/regen.sh 0.5.23 # holdout: seed 2, n 1200
# Needs the oracle venv $ORACLE_ROOT/venv-<ver> (build_venv.sh).
set -euo pipefail
VER=${1:?sglang version}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROOT=${ORACLE_ROOT:-/work/oracle}
PY=$ROOT/venv-$VER/bin/python
WORK=${WORK:-$ROOT/runs}
mkdir -p "$WORK"
if [ "${HOLDOUT:-0}" = 1 ]; then
  SEED=${SEED:-2}; N=${N:-1200}; OUT=${OUT:-/work/notes/holdout-$VER.jsonl}
else
  SEED=${SEED:-1}; N=${N:-600}; OUT=${OUT:-$REPO/tests/data/sglang-golden/$VER.jsonl}
fi
mkdir -p "$(dirname "$OUT")"
CASES=$WORK/cases-$VER-s$SEED-n$N.jsonl
RES=$WORK/results-$VER-s$SEED-n$N.jsonl
python3 "$HERE/generate.py" --n "$N" --seed "$SEED" --sglang-version "$VER" --out "$CASES"
"$PY" "$HERE/oracle.py" --sglang-version "$VER" --in "$CASES" --out "$RES" --jobs "${JOBS:-2}"
python3 "$HERE/merge.py" --cases "$CASES" --results "$RES" --sglang-version "$VER" --seed "$SEED" \
  --out "$OUT" --stats "$WORK/stats-$VER-s$SEED-n$N.json" > /dev/null
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(json.dumps({k: s[k] for k in ('sglang_version','seed','cases','written','verdicts')}))" "$WORK/stats-$VER-s$SEED-n$N.json"
ls -la "$OUT"
