python -m sglang.launch_server --hisparse-config '[1, 2]' --model-loader-extra-config '"text"' --json-model-override-args 42
