# sgl-project/sglang docs/basic_usage/deepseek_v32.md (Launch with EP + DP)
python3 -m sglang.launch_server --model deepseek-ai/DeepSeek-V3.2-Exp --tp 8 --ep 8 --dp 8 --enable-dp-attention
