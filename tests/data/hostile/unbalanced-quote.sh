python -m sglang.launch_server --model-path "moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 2
