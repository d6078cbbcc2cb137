# Qwen3-Next in AutoAWQ form at TP 4: the shared expert down_proj input is 512 / 4 = 128 channels per rank,
# one whole AWQ group: SGLang builds it.
python -m sglang.launch_server --model-path tests/data/models/qwen3-next-80b-awq --tp-size 4
