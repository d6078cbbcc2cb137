#!/usr/bin/env bash
TP=4
exec bash -c "python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size $TP --tp-size 8"
