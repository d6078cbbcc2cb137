#!/usr/bin/env bash
# Clean twin of errors/PD007-pd-tp-differ.sh: prefill and decode at one TP size.
MODEL=Qwen/Qwen3-Next-80B-A3B-Instruct
python3 -m sglang.launch_server --model-path $MODEL --tp-size 4 --disaggregation-mode prefill &
python3 -m sglang.launch_server --model-path $MODEL --tp-size 4 --disaggregation-mode decode &
wait
