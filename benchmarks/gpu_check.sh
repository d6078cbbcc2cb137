#!/usr/bin/env bash
# One prepared check for a GPU machine (written for an H200, x86-64; Python 3.12 likely; torch
# may or may not be installed; usually no network). Typical run: about 5 minutes; every step
# has a timeout, so even a stuck step leaves the rest (worst case about 14 minutes).
#
#   bash benchmarks/gpu_check.sh            # writes everything under ${OUT:-./gpu-out}
#
# Steps (each one is logged and its exit status recorded in $OUT/steps.tsv; a failing step
# does not stop the later ones, the script's own exit status is the number of failed steps):
#   1. nvidia-smi, Python/pip versions;
#   2. install kdacheck with its run+test extras: from wheels in .whl/ when that folder is
#      present (pip --no-index --find-links .whl), else from the index; a preinstalled torch is
#      kept (the venv sees the system site-packages); if that fails, kdacheck alone (--no-deps)
#      on whatever is installed;
#   3. the kernel tests on CUDA (KDACHECK_TEST_DEVICE=cuda: compiled Triton, no interpreter);
#   4. `kdacheck run` at full Kimi-Linear shapes (chain and tree) and on the HiSparse example;
#   5. benchmarks/kernels.py --device cuda (all sizes, capped at --max-seconds) -> kernels.json
#      and kernels.md (markdown tables ready for docs/performance.md).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${OUT:-./gpu-out}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
LOG="$OUT/gpu_check.log"
exec > >(tee -a "$LOG") 2>&1
STEPS="$OUT/steps.tsv"
printf 'step\trc\tseconds\n' > "$STEPS"
FAILED=0
T0=$SECONDS

step() {  # step NAME TIMEOUT_S CMD...: run, time, record
    local name="$1" limit="$2"; shift 2
    local t=$SECONDS rc
    echo
    echo "=== [$((SECONDS - T0)) s] $name: $*"
    if [ "$(type -t "$1")" = function ]; then  # timeout runs programs: give it a bash
        timeout --kill-after=10 "$limit" bash -c "set -o pipefail; $(declare -f "$1"); \"\$@\"" _ "$@"
    else
        timeout --kill-after=10 "$limit" "$@"
    fi
    rc=$?
    printf '%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - t))" >> "$STEPS"
    echo "=== $name: rc=$rc in $((SECONDS - t)) s"
    if [ "$rc" -ne 0 ]; then FAILED=$((FAILED + 1)); fi
    return 0
}

echo "=== kdacheck gpu_check $(date -Is) in $ROOT, output in $OUT"
git -C "$ROOT" log --oneline -1 2>/dev/null || true
step nvidia-smi 30 nvidia-smi
PY="${PYTHON:-$(command -v python3 || command -v python)}"
echo "system python: $PY ($("$PY" --version 2>&1))"

# ---- 2. environment: a venv that sees the system site-packages (keeps a preinstalled torch).
# KDACHECK_GPU_CHECK_SKIP_INSTALL=1 uses $PYTHON (or python3) as it is.
VENV="${KDACHECK_GPU_VENV:-/tmp/kdacheck-gpu-venv}"
if [ -z "${KDACHECK_GPU_CHECK_SKIP_INSTALL:-}" ]; then
    if [ ! -x "$VENV/bin/python" ]; then
        "$PY" -m venv --system-site-packages "$VENV" || echo "venv creation failed: using $PY"
    fi
    if [ -x "$VENV/bin/python" ]; then PY="$VENV/bin/python"; fi
fi
export PY ROOT OUT PIP_DISABLE_PIP_VERSION_CHECK=1
install() {
    if [ -d "$ROOT/.whl" ]; then
        echo "installing from the wheels in .whl/ (no index)"
        "$PY" -m pip install --no-index --find-links "$ROOT/.whl" -e ".[run,test]" && return 0
        echo "wheels incomplete: trying the index too"
        "$PY" -m pip install --find-links "$ROOT/.whl" -e ".[run,test]" && return 0
    else
        "$PY" -m pip install -e ".[run,test]" && return 0
    fi
    echo "full install failed: installing kdacheck alone on what is already there"
    "$PY" -m pip install --no-deps --no-build-isolation -e . || true
    return 1
}
if [ -z "${KDACHECK_GPU_CHECK_SKIP_INSTALL:-}" ]; then step install 150 install; fi
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
step versions 60 "$PY" - <<'EOF'
import importlib, platform, sys
print("python", platform.python_version(), sys.executable)
for name in ("torch", "triton", "fla", "pytest", "kdacheck"):
    try:
        m = importlib.import_module(name)
        print(name, getattr(m, "__version__", "?"))
    except Exception as exc:
        print(name, "NOT AVAILABLE:", type(exc).__name__, exc)
import torch
print("cuda available:", torch.cuda.is_available(), "| torch cuda:", torch.version.cuda)
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("device:", p.name, f"sm_{p.major}{p.minor}", f"{p.total_memory / 2**30:.1f} GiB")
sys.exit(0 if torch.cuda.is_available() else 1)
EOF

# ---- 3. kernel tests on CUDA (the interpreter-only tests are skipped in this mode)
export KDACHECK_TEST_DEVICE=cuda
unset TRITON_INTERPRET
step kernel-tests-cuda 120 "$PY" -m pytest tests/kernels -q -rs -p no:cacheprovider \
    --junitxml="$OUT/kernel-tests-cuda.xml"
unset KDACHECK_TEST_DEVICE

# ---- 4. kdacheck run at full shapes (each report also kept as $OUT/NAME.txt)
run_to() {  # run_to NAME ARGS...
    local name="$1"; shift
    "$PY" -m kdacheck run --device cuda "$@" 2>&1 | tee "$OUT/$name.txt"
}
step run-chain-tp4 75 run_to run-chain-tp4 --steps 3 --topk 1 --batch 48 --tp 4
step run-tree-tp4 75 run_to run-tree-tp4 --steps 4 --topk 8 --batch 48 --tp 4
step run-hisparse 75 run_to run-hisparse --args examples/clean/deepseek-v32-hisparse-eagle.yaml

# ---- 5. benchmarks (sizes not started within --max-seconds are recorded as skipped)
bench() {
    "$PY" benchmarks/kernels.py --device cuda --json "$OUT/kernels.json" --markdown \
        --max-seconds 200 > "$OUT/kernels.md"
}
step benchmarks 260 bench
cat "$OUT/kernels.md" 2>/dev/null || true

echo
echo "=== done in $((SECONDS - T0)) s; $FAILED step(s) failed"
column -t "$STEPS" 2>/dev/null || cat "$STEPS"
ls -l "$OUT"
exit "$FAILED"
