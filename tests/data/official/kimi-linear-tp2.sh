# sgl-project/sglang test/srt/models/test_kimi_linear_models.py TestKimiLinear
python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 2 --trust-remote
