# sgl-project/sglang test/srt/models/test_qwen3_next_models.py TestQwen3NextMTP
python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --trust-remote-code --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --mem-fraction-static 0.8 --tp 4 --chunked-prefill-size 2048
