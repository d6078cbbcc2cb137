python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \
  --tp-size 0 --dp-size -2 --pp-size 0 --max-running-requests 0 \
  --speculative-algorithm EAGLE --speculative-num-steps -3 --speculative-eagle-topk 0 --speculative-num-draft-tokens -1
