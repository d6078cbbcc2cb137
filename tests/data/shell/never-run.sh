#!/usr/bin/env bash
M=$(touch MARKER_DOLLAR)
cat <<EOF
Don't treat this here-document as words: "an open quote
EOF
python3 -m sglang.launch_server --model-path `touch MARKER_BACKTICK` --tp-size ${X:?$(touch MARKER_ERROR)} \
  --disable-radix-cache
