python -m sglang.launch_server --model-path "]0;pwnedmodel" --tp-size 2 --x[2J[31m 1
