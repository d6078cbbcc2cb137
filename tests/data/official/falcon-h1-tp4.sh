# sgl-project/sglang test/srt/models/test_falcon_h1_models.py TestFalconH1TP4
python3 -m sglang.launch_server --model-path tiiuae/Falcon-H1-0.5B-Instruct --tensor-parallel-size 4
