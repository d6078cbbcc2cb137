#!/usr/bin/env bash
# Build the SGLang oracle venv for one version, outside the repo.
#   bash benchmarks/sglang_diff/build_venv.sh 0.5.23   -> /work/oracle/venv-0.5.23
# Needs: python3.11, the torch/torchvision 2.14.1/0.29.1 wheels the local index
# serves, the SGLang wheel (from PyPI, or a local copy via SGLANG_WHEEL=...).
set -euo pipefail
VER=${1:?sglang version, e.g. 0.5.23}
ROOT=${ORACLE_ROOT:-/work/oracle}
VENV=$ROOT/venv-$VER
case $VER in
  0.5.23) TRANSFORMERS=5.19.0; TOKENIZERS=0.23.2 ;;
  0.5.21) TRANSFORMERS=5.12.1; TOKENIZERS=0.22.2 ;;
  *) TRANSFORMERS=${TRANSFORMERS:?set TRANSFORMERS=x.y.z}; TOKENIZERS=${TOKENIZERS:?set TOKENIZERS=x.y.z} ;;
esac
mkdir -p "$ROOT"
python3.11 -m venv "$VENV"
PIP="$VENV/bin/pip"
# CUDA torch build (its CUDA libraries are installed but never initialised:
# the oracle answers torch.cuda's queries itself). torch 2.14.1 is used for
# every version: the CPU torch 2.13 wheel with PyPI torchvision does not import.
"$PIP" install torch==2.14.1 torchvision==0.29.1
WHEEL=${SGLANG_WHEEL:-}
if [ -z "$WHEEL" ] && ls /work/sglang-src/dl-$VER/sglang-$VER-*.whl >/dev/null 2>&1; then
  WHEEL=$(ls /work/sglang-src/dl-$VER/sglang-$VER-*.whl | head -1)
fi
"$PIP" install --no-deps "${WHEEL:-sglang==$VER}"
# Pure-Python (or CPU-only) dependencies that importing sglang.srt.server_args
# and the resolution pipeline needs. The compiled CUDA packages (sgl_kernel,
# flashinfer, deep_gemm, flash_mla, ...) are NOT installed: kdacheck/sglang/stubs.py stubs them.
"$PIP" install "transformers==$TRANSFORMERS" "tokenizers==$TOKENIZERS" \
  msgspec pydantic orjson uvloop fastapi requests huggingface_hub psutil pyzmq \
  packaging regex tqdm sentencepiece einops setproctitle pybase64 prometheus-client \
  partial_json_parser python-multipart aiohttp "uvicorn>=0.51" interegular xxhash \
  zstandard safetensors pyyaml distro easydict python-dateutil scipy watchfiles \
  tiktoken nvidia-ml-py ipython dill gguf "apache-tvm-ffi==0.1.11" \
  "compressed-tensors==0.18.0" "xgrammar==0.2.7" "openai-harmony==0.0.4" \
  "llguidance>=1.7.6,<2" "openai==2.8.0" anthropic
# compressed-tensors / xgrammar must not replace torch.
"$VENV/bin/python" -c "import torch; assert torch.__version__.startswith('2.14.1'), torch.__version__"
echo "built $VENV"
