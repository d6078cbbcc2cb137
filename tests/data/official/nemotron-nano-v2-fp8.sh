# sgl-project/sglang test/srt/models/test_nvidia_nemotron_nano_v2.py TestNvidiaNemotronNanoV2FP8
python3 -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-Nano-9B-v2-FP8 --max-mamba-cache-size 256
