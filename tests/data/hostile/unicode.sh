python -m sglang.launch_server --model-path "模型/ﬁ‮​" --tp-sіze 2 --😀 1
