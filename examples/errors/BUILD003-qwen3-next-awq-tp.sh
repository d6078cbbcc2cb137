# Qwen3-Next in AutoAWQ form at TP 8: the shared expert down_proj input is 512 / 8 = 64 channels per rank,
# not whole 128-channel AWQ groups; SGLang raises a ValueError when it builds the model (BUILD003).
python -m sglang.launch_server --model-path tests/data/models/qwen3-next-80b-awq --tp-size 8
