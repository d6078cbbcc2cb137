#!/usr/bin/env bash
# Qwen3-Next in PD, prefill at TP 2 and decode at TP 4: SGLang re-slices the KV heads at every
# transfer and warns once that performance is not guaranteed (PD007, a note).
MODEL=Qwen/Qwen3-Next-80B-A3B-Instruct
python3 -m sglang.launch_server --model-path $MODEL --tp-size 2 --disaggregation-mode prefill &
python3 -m sglang.launch_server --model-path $MODEL --tp-size 4 --disaggregation-mode decode &
wait
