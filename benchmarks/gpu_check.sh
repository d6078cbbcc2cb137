#!/usr/bin/env bash
# One prepared check for a lent GPU machine (the H200 image: Python 3.12, torch 2.11, Triton
# 3.6.0, typer/rich/pyyaml/pytest, no fla, no package index). Its parts run in order of value,
# each within its budget (a part that overruns is stopped and recorded, the later parts still
# run), the whole plan within 6 minutes so that a rerun fits in the session's device time:
#
#   prepare   the tree copied as the installed layout, the carried wheels installed offline,
#             versions and the device ($OUT/device.json)
#   verify    correctness at the deployed sizes: Kimi-Linear tp 4 and tp 8, Qwen3-Next tp 4,
#             Nemotron-H tp 2, R = 48, chain D = 4 and tree D = 33 (benchmarks/kernels.py
#             DEPLOYED), each through kdacheck run's harness
#   fla       KDA and GDN verify against fla's fused_recurrent kernels (the carried fla-core)
#   floor     the copy floor and the verify kernels' share of it at the deployed sizes
#   gather    the HiSparse gather's plan against the PCIe floor from pinned host memory
#   memcheck  compute-sanitizer memcheck over small launches of every kernel
#
# Each part writes $OUT/<part>.json as it goes (rewritten after every row); with
# $OUT/gpu_check.log and $OUT/steps.tsv that is 8 files, the most a device call returns.
#
#   bash benchmarks/fetch_wheels.sh              # once, where pip works: .whl/ from the lock
#   bash benchmarks/gpu_check.sh                 # on the GPU machine; results under ${OUT:-./gpu-out}
#   bash benchmarks/gpu_check.sh --dry-run       # on a CPU: the plan, the wheels, every part at
#                                                # toy size in Triton's interpreter
#   bash benchmarks/gpu_check.sh --dry-run --no-wheels   # without .whl/ (a clean clone, CI)
#   bash benchmarks/gpu_check.sh --plan          # the plan and its budgets only
#
# The device call: command "bash benchmarks/gpu_check.sh", carry [".whl"] (ignored by git, so
# it travels only when carried), timeout_s 420 (the plan's 360 s and the start).
#
# Nothing is fetched. kdacheck runs from a copy of this tree laid out as the installed package
# (kernels/ as kdacheck/kernels), so neither PYTHONPATH nor the working directory can shadow
# it; the wheels in .whl/ (benchmarks/wheels.lock) go beside it with --no-index --no-deps.
# The script's exit status is the number of failed parts.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DRY=0
WHEELS=1
PLAN_ONLY=0
for arg in "$@"; do
    case "$arg" in
        --dry-run) DRY=1 ;;
        --no-wheels) WHEELS=0 ;;
        --plan) PLAN_ONLY=1 ;;
        *) echo "gpu_check.sh: unknown option $arg (--dry-run, --no-wheels, --plan)"; exit 2 ;;
    esac
done
PY="${PYTHON:-$(command -v python3 || command -v python || echo python3)}"
TOTAL_BUDGET=360
DRY_PART_LIMIT=400  # the dry run's toy parts, in the interpreter on a loaded CPU (no device time)

# name:seconds:what, in order of value; the sum must stay within TOTAL_BUDGET
PARTS=(
    "prepare:20:tree as the installed layout, carried wheels installed offline, versions, nvidia-smi"
    "verify:100:correctness at the deployed sizes (Kimi-Linear tp 4 and tp 8, Qwen3-Next, Nemotron-H; R = 48, D = 4 and 33)"
    "fla:70:verify vs fla: fused_recurrent_kda_fwd (Kimi-Linear tp 4 and tp 8), fused_recurrent_gated_delta_rule_fwd (Qwen3-Next tp 4); R = 48"
    "floor:45:copy floor and the verify kernels' share of it at the deployed sizes"
    "gather:45:HiSparse gather plan vs the PCIe floor from pinned host memory (top_k 2048, B 8 and 64)"
    "memcheck:60:compute-sanitizer memcheck over small launches of every kernel"
)

budget_of() { local p; for p in "${PARTS[@]}"; do [ "${p%%:*}" = "$1" ] && { p="${p#*:}"; echo "${p%%:*}"; }; done; }
SUM=0; for p in "${PARTS[@]}"; do q="${p#*:}"; SUM=$((SUM + ${q%%:*})); done

echo "gpu_check plan (python: $PY; $([ "$PLAN_ONLY" = 1 ] && echo "the plan only" || { [ "$DRY" = 1 ] && echo "dry run: toy sizes in Triton's interpreter" || echo "device run"; }))"
for p in "${PARTS[@]}"; do q="${p#*:}"; printf '  %-9s %4s s  %s\n' "${p%%:*}" "${q%%:*}" "${q#*:}"; done
printf '  %-9s %4s s  (budget %s s)\n' "total" "$SUM" "$TOTAL_BUDGET"
if [ "$SUM" -gt "$TOTAL_BUDGET" ]; then echo "over budget: $SUM s > $TOTAL_BUDGET s"; exit 1; fi
[ "$PLAN_ONLY" = 1 ] && exit 0

if [ "$DRY" = 1 ]; then
    OUT="${OUT:-$(mktemp -d)/gpu-out}"
    if [ "$WHEELS" = 1 ]; then
        echo "carried wheels (benchmarks/wheels.lock):"
        bash "$ROOT/benchmarks/fetch_wheels.sh" --verify || { echo "carried wheels missing or changed: run benchmarks/fetch_wheels.sh"; exit 1; }
    else
        echo "carried wheels: not checked (--no-wheels): run benchmarks/fetch_wheels.sh before a device call"
    fi
else
    OUT="${OUT:-./gpu-out}"
fi
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
LOG="$OUT/gpu_check.log"
exec > >(tee -a "$LOG") 2>&1
STEPS="$OUT/steps.tsv"
printf 'part\trc\tseconds\tbudget\n' > "$STEPS"
FAILED=0
T0=$SECONDS

step() {  # step NAME CMD...: run within the part's budget, time, record
    local name="$1"; shift
    local limit t=$SECONDS rc
    limit="$(budget_of "$name")"
    [ "$DRY" = 1 ] && limit=$DRY_PART_LIMIT
    echo
    echo "=== [$((SECONDS - T0)) s] $name (budget $(budget_of "$name") s$([ "$DRY" = 1 ] && echo ", toy limit $limit s")): $*"
    if [ "$(type -t "$1")" = function ]; then  # timeout runs programs: give it a bash
        timeout --kill-after=5 "$limit" bash -c "set -o pipefail; $(declare -f); \"\$@\"" _ "$@"
    else
        timeout --kill-after=5 "$limit" "$@"
    fi
    rc=$?
    printf '%s\t%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - t))" "$(budget_of "$name")" >> "$STEPS"
    echo "=== $name: rc=$rc in $((SECONDS - t)) s"
    if [ "$rc" -ne 0 ]; then FAILED=$((FAILED + 1)); fi
    return 0
}

echo "=== kdacheck gpu_check $(date -Is) from $ROOT, output in $OUT"
git -C "$ROOT" log --oneline -1 2>/dev/null || true

SRC="$(mktemp -d)/kdacheck-src"
export PY ROOT OUT SRC DRY WHEELS PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1
prepare() {
    mkdir -p "$SRC/_deps"
    cp -r "$ROOT/kdacheck" "$ROOT/benchmarks" "$ROOT/pyproject.toml" "$SRC/" || return 1
    rm -rf "$SRC/kdacheck/kernels" && cp -r "$ROOT/kernels" "$SRC/kdacheck/kernels" || return 1
    if [ "$WHEELS" = 1 ]; then
        ls "$ROOT"/.whl/*.whl >/dev/null 2>&1 || { echo "no carried wheels in $ROOT/.whl (benchmarks/fetch_wheels.sh; carry .whl)"; return 1; }
        "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SRC/_deps" "$ROOT"/.whl/*.whl || return 1
    fi
    cd "$SRC" || return 1  # python - puts the working directory first on sys.path
    PYTHONPATH="$SRC:$SRC/_deps" "$PY" - "$OUT/device.json" <<'EOF'
import importlib, json, os, platform, shutil, subprocess, sys
info = {"python": platform.python_version(), "executable": sys.executable, "modules": {}}
for name in ("torch", "triton", "fla", "einops", "typer", "rich", "yaml", "kdacheck", "kdacheck.kernels"):
    try:
        m = importlib.import_module(name)
        info["modules"][name] = {"version": getattr(m, "__version__", "?"), "file": getattr(m, "__file__", "")}
    except Exception as exc:
        info["modules"][name] = {"error": f"{type(exc).__name__}: {exc}"}
import torch
info["cuda"] = torch.cuda.is_available()
info["torch_cuda"] = torch.version.cuda
if info["cuda"]:
    p = torch.cuda.get_device_properties(0)
    info["device"] = {"name": p.name, "sm": f"{p.major}{p.minor}", "memory_gib": round(p.total_memory / 2**30, 1),
                      "multiprocessors": p.multi_processor_count}
smi = shutil.which("nvidia-smi")
if smi:
    info["nvidia_smi"] = subprocess.run([smi], capture_output=True, text=True, timeout=30).stdout
info["compute_sanitizer"] = shutil.which("compute-sanitizer")
with open(sys.argv[1], "w", encoding="utf-8") as fh:
    json.dump(info, fh, indent=1)
print(json.dumps({k: v for k, v in info.items() if k != "nvidia_smi"}, indent=1))
src = os.environ["SRC"]
if not info["modules"]["kdacheck.kernels"].get("file", "").startswith(src):
    sys.exit("kdacheck.kernels is not the copied tree's")
if os.environ["WHEELS"] == "1" and not info["modules"]["fla"].get("file", "").startswith(os.path.join(src, "_deps")):
    sys.exit("fla is not the carried wheel's: " + json.dumps(info["modules"]["fla"]))
sys.exit(0 if info["cuda"] or os.environ["DRY"] == "1" else 1)
EOF
}
step prepare prepare
export PYTHONPATH="$SRC:$SRC/_deps"
cd "$SRC" || exit 1

if [ "$DRY" = 1 ]; then
    export TRITON_INTERPRET=1 CUDA_VISIBLE_DEVICES=""
    export WHERE="--device cpu --toy"
else
    unset TRITON_INTERPRET
    export WHERE="--device cuda"
fi
part() {  # part NAME: benchmarks/kernels.py --part NAME, its JSON in $OUT
    "$PY" benchmarks/kernels.py --part "$1" $WHERE --json "$OUT/$1.json"
}
step verify part verify
step fla part fla
step floor part floor
step gather part gather

memcheck() {
    if [ "$DRY" = 0 ] && command -v compute-sanitizer >/dev/null; then
        compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 \
            "$PY" benchmarks/kernels.py --part memcheck $WHERE --json "$OUT/memcheck.json"
    else
        echo "compute-sanitizer: $([ "$DRY" = 1 ] && echo "not used in the dry run" || echo "not on this image"): the launches run without it"
        part memcheck
    fi
}
step memcheck memcheck

echo
echo "=== done in $((SECONDS - T0)) s (plan $SUM s, budget $TOTAL_BUDGET s); $FAILED part(s) failed"
column -t "$STEPS" 2>/dev/null || cat "$STEPS"
ls -l "$OUT"
exit "$FAILED"
