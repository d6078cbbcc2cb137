# sgl-project/sglang docs/basic_usage/deepseek_v32.md (Launch with Pure TP)
python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3.2-Exp --tp 8
