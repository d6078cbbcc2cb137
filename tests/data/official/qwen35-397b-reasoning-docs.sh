# sgl-project/sglang docs/basic_usage/qwen3_5.md (Reasoning and Tool Calling)
python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B --tp 8 --trust-remote-code --reasoning-parser qwen3 --tool-call-parser qwen3_coder
