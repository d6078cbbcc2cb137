# Clean twin of errors/SPEC001-kimi-linear.Dockerfile: the steps a topk-1 chain of 5 draft tokens has.
FROM lmsysorg/sglang:v0.5.23-cu129
ENV SGLANG_PORT=30000
EXPOSE 30000
ENTRYPOINT ["python3", "-m", "sglang.launch_server"]
CMD ["--model-path", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--tp-size", "4", \
     "--host", "0.0.0.0", "--port", "30000", \
     "--speculative-algorithm", "NEXTN", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "5", \
     "--speculative-num-steps", "4"]
