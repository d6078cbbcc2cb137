# sgl-project/sglang test/srt/models/test_qwen3_next_models.py TestQwen3Next
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --chunked-prefill-size 2048
