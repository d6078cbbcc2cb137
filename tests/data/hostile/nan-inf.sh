python -m sglang.launch_server --mem-fraction-static nan --schedule-conservativeness inf
