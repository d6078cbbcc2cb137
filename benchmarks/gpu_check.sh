#!/usr/bin/env bash
# One prepared check for a lent GPU machine (an H200 image: its own python3 with torch, triton
# and pytest; no package index). Finishes within 8 minutes: every part has a time budget, a
# part that overruns is stopped and recorded, and the later parts still run.
#
#   bash benchmarks/gpu_check.sh             # results under ${OUT:-./gpu-out}
#   bash benchmarks/gpu_check.sh --dry-run   # print the plan and the budgets; run nothing
#
# Nothing is installed from an index. kdacheck runs from a copy of this source tree laid out
# as the installed package (kernels/ as kdacheck/kernels), so neither PYTHONPATH nor the
# working directory can shadow it; wheels carried in .whl/ (typer, fla-core, ...) are unpacked
# beside it with --no-index --no-deps. $OUT/steps.tsv records each part's exit status and time;
# the script's exit status is the number of failed parts.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DRY=0
[ "${1:-}" = "--dry-run" ] && DRY=1
PY="${PYTHON:-$(command -v python3 || command -v python || echo python3)}"
TOTAL_BUDGET=480

# name:seconds, in order; the sum must stay within TOTAL_BUDGET (the dry run checks it)
PARTS=(
    "prepare:20"          # copy the tree as the installed layout, unpack carried wheels
    "device:15"           # nvidia-smi; python, torch, triton, fla versions; the device
    "kernel-tests-cuda:130"  # pytest tests/kernels with KDACHECK_TEST_DEVICE=cuda (compiled)
    "registers:45"        # registers and spills of every kernel, compiled for sm_90 by this Triton
    "run-chain-tp4:30"    # kdacheck run --device cuda at Kimi-Linear tp 4 shapes, chain
    "run-tree-tp4:30"     # ... tree (steps 4, topk 8)
    "run-mamba2:30"       # ... Nemotron-H (Mamba2 verify)
    "benchmarks:120"      # benchmarks/kernels.py --device cuda: kernel times, copy floor, fla peer
    "memcheck:60"         # compute-sanitizer memcheck on one small verify and one gather, if present
)

budget_of() { local p; for p in "${PARTS[@]}"; do [ "${p%%:*}" = "$1" ] && echo "${p##*:}"; done; }
SUM=0; for p in "${PARTS[@]}"; do SUM=$((SUM + ${p##*:})); done

if [ "$DRY" = 1 ]; then
    echo "gpu_check plan (python: $PY; output: ${OUT:-./gpu-out})"
    for p in "${PARTS[@]}"; do printf '  %-20s %4s s\n' "${p%%:*}" "${p##*:}"; done
    printf '  %-20s %4s s (budget %s s)\n' "total" "$SUM" "$TOTAL_BUDGET"
    [ -d "$ROOT/.whl" ] && echo "  carried wheels: $(ls "$ROOT/.whl" | tr '\n' ' ')"
    [ "$SUM" -le "$TOTAL_BUDGET" ] || { echo "over budget"; exit 1; }
    exit 0
fi

OUT="${OUT:-./gpu-out}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
LOG="$OUT/gpu_check.log"
exec > >(tee -a "$LOG") 2>&1
STEPS="$OUT/steps.tsv"
printf 'step\trc\tseconds\tbudget\n' > "$STEPS"
FAILED=0
T0=$SECONDS

step() {  # step NAME CMD...: run within the part's budget, time, record
    local name="$1"; shift
    local limit t=$SECONDS rc
    limit="$(budget_of "$name")"
    echo
    echo "=== [$((SECONDS - T0)) s] $name (budget ${limit} s): $*"
    if [ "$(type -t "$1")" = function ]; then  # timeout runs programs: give it a bash
        timeout --kill-after=5 "$limit" bash -c "set -o pipefail; $(declare -f "$1"); \"\$@\"" _ "$@"
    else
        timeout --kill-after=5 "$limit" "$@"
    fi
    rc=$?
    printf '%s\t%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - t))" "$limit" >> "$STEPS"
    echo "=== $name: rc=$rc in $((SECONDS - t)) s"
    if [ "$rc" -ne 0 ]; then FAILED=$((FAILED + 1)); fi
    return 0
}

echo "=== kdacheck gpu_check $(date -Is) from $ROOT, output in $OUT, python $PY"
git -C "$ROOT" log --oneline -1 2>/dev/null || true

SRC="$(mktemp -d)/kdacheck-src"
export PY ROOT OUT SRC PIP_DISABLE_PIP_VERSION_CHECK=1
prepare() {
    mkdir -p "$SRC/_deps"
    cp -r "$ROOT/kdacheck" "$ROOT/tests" "$ROOT/benchmarks" "$ROOT/examples" "$ROOT/pyproject.toml" "$SRC/"
    rm -rf "$SRC/kdacheck/kernels" && cp -r "$ROOT/kernels" "$SRC/kdacheck/kernels"
    if [ -d "$ROOT/.whl" ]; then
        "$PY" -m pip install --no-index --no-deps --target "$SRC/_deps" "$ROOT"/.whl/*.whl || return 1
    fi
    ls "$SRC" "$SRC/kdacheck/kernels"
}
step prepare prepare
export PYTHONPATH="$SRC:$SRC/_deps"
cd "$SRC" || exit 1

step device "$PY" - <<'EOF'
import importlib, platform, subprocess, sys
subprocess.run(["nvidia-smi"], check=False)
print("python", platform.python_version(), sys.executable)
for name in ("torch", "triton", "fla", "pytest", "typer", "rich", "yaml", "kdacheck", "kdacheck.kernels"):
    try:
        m = importlib.import_module(name)
        print(name, getattr(m, "__version__", "?"), getattr(m, "__file__", ""))
    except Exception as exc:
        print(name, "NOT AVAILABLE:", type(exc).__name__, exc)
import torch
print("cuda available:", torch.cuda.is_available(), "| torch cuda:", torch.version.cuda)
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("device:", p.name, f"sm_{p.major}{p.minor}", f"{p.total_memory / 2**30:.1f} GiB")
sys.exit(0 if torch.cuda.is_available() else 1)
EOF

unset TRITON_INTERPRET
export KDACHECK_TEST_DEVICE=cuda
step kernel-tests-cuda "$PY" -m pytest tests/kernels -q -rs -p no:cacheprovider --junitxml="$OUT/kernel-tests-cuda.xml"
unset KDACHECK_TEST_DEVICE
step registers "$PY" -m pytest tests/kernels/test_harness.py -q -s -p no:cacheprovider -k compile_for_sm90

run_to() {  # run_to NAME ARGS...: kdacheck run on the GPU, report kept as $OUT/NAME.txt
    local name="$1"; shift
    "$PY" -m kdacheck run --device cuda "$@" 2>&1 | tee "$OUT/$name.txt"
}
step run-chain-tp4 run_to run-chain-tp4 --steps 3 --topk 1 --batch 48 --tp 4
step run-tree-tp4 run_to run-tree-tp4 --steps 4 --topk 8 --batch 48 --tp 4
step run-mamba2 run_to run-mamba2 --model nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --steps 3 --topk 1 --batch 48 --tp 2

bench() {
    "$PY" benchmarks/kernels.py --device cuda --json "$OUT/kernels.json" --markdown \
        --max-seconds 100 > "$OUT/kernels.md"
}
step benchmarks bench
cat "$OUT/kernels.md" 2>/dev/null || true

memcheck() {
    if ! command -v compute-sanitizer >/dev/null; then echo "compute-sanitizer is not on this image: skipped"; return 0; fi
    compute-sanitizer --tool memcheck --error-exitcode 9 "$PY" -m kdacheck run --device cuda --steps 2 --topk 1 --batch 4 \
        --tp 8 2>&1 | tail -40
}
step memcheck memcheck

echo
echo "=== done in $((SECONDS - T0)) s (budget $TOTAL_BUDGET s); $FAILED part(s) failed"
column -t "$STEPS" 2>/dev/null || cat "$STEPS"
ls -l "$OUT"
exit "$FAILED"
