#!/usr/bin/env python3
"""Where SGLang's model classes assert the per-rank sharding of a model, read from a wheel.

    python benchmarks/sglang_diff/geometry_asserts.py /tmp/sgl/sglang-0.5.23-*.whl \
        > kdacheck/data/geometry_asserts-0.5.23.json

SGLang builds each layer with its share of the model's widths on every tensor-parallel rank and
asserts the shares are whole: an attention class asserts ``total_num_heads % tp_size == 0`` and,
for its KV heads, ``total_num_kv_heads % tp_size == 0`` when there are at least as many KV heads
as ranks, else ``tp_size % total_num_kv_heads == 0`` (the KV heads replicated); MLA asserts
``num_heads % attn_tp_size == 0``; Kimi-Linear raises on its KDA heads. A model file without
its own attention assert gets the generic one of ``QKVParallelLinear`` (``divide``). The layers
every model shares (``MambaMixer2``, ``FusedMoE``, the FP8 block-quant checks, the context
length) are found in their own files.

Only the wheel's text is read (no import, standard library only): each ``srt/models/*.py`` file's
lines matching the assert forms below, and the first line of each generic place. kdacheck maps an
architecture to its file through ``speculative_hooks-<version>.json`` (the file of the class its
``EntryClass`` names) and cites these lines per version; ``tests/test_geometry.py`` holds the
places kdacheck cites equal to these tables.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile

PREFIX = "sglang/"
MODELS = "sglang/srt/models/"

# per model file: the kind of width each assert form checks
FORMS = (
    ("heads", re.compile(r"assert .*total_num_heads % .*(tp_size|world_size).* == 0")),
    ("heads", re.compile(r"assert (config\.)?num_attention_heads % .*== 0")),
    ("mla_heads", re.compile(r"assert num_heads % attn_tp_size == 0")),
    ("kv_heads", re.compile(r"assert .*total_num_kv_heads % .*== 0")),
    ("kv_replicas", re.compile(r"assert .*% self\.total_num_kv_heads == 0")),
    ("kda_heads", re.compile(r"KDA num_heads \(\{num_heads\}\) must be divisible")),
)

# the places every model shares: (name, file, the text its line holds)
GENERIC = (
    ("qkv_heads", "srt/layers/linear.py", "self.num_heads = divide(self.total_num_heads, tp_size)"),
    ("qkv_replicas", "srt/layers/linear.py", "self.num_kv_head_replicas = divide(kv_tp_size, self.total_num_kv_heads)"),
    ("qkv_kv_heads", "srt/layers/linear.py", "self.num_kv_heads = divide(self.total_num_kv_heads, kv_tp_size)"),
    ("column_divide", "srt/layers/linear.py", "self.output_size_per_partition = divide(self.output_size, tp_size)"),
    ("mamba_heads", "srt/layers/attention/mamba/mamba.py", '"Tensor parallel world size must divide num heads."'),
    ("mamba_groups", "srt/layers/attention/mamba/mamba.py", '"If tensor parallel world size does not divide num_groups, "'),
    ("moe_intermediate", "srt/layers/moe/fused_moe_triton/layer.py", "assert intermediate_size % self.moe_tp_size == 0"),
    ("moe_experts", "srt/layers/moe/fused_moe_triton/layer.py", "% storage_ep_size == 0"),
    ("fp8_linear_block_k", "srt/layers/quantization/fp8.py", '"Weight input_size_per_partition = "'),
    ("fp8_linear_block_n", "srt/layers/quantization/fp8.py", '"Weight output_partition_size = "'),
    ("fp8_moe_block_n", "srt/layers/quantization/fp8.py", "\"The output_size of gate's and up's weight = \""),
    ("fp8_moe_block_k", "srt/layers/quantization/fp8.py", "\"The input_size of down's weight = \""),
    ("fp8_ignored", "srt/layers/quantization/fp8.py", '["ignored_layers", "modules_to_not_convert"]'),
    ("awq_input", "srt/layers/quantization/awq/schemes/awq_linear.py", '"The input size is not aligned with the quantized "'),
    ("awq_output", "srt/layers/quantization/awq/schemes/awq_linear.py", '"The output size is not aligned with the quantized "'),
    ("awq_marlin_fallback", "srt/layers/quantization/awq/awq.py", "Falling back to unoptimized AWQ kernels"),
    ("context_length", "srt/configs/model_config.py", "To allow overriding this maximum, set the env var"),
    ("context_keys", "srt/utils/hf_transformers/common.py", "CONTEXT_LENGTH_KEYS = ["),
)


def _find(lines: list[str], text: str) -> int | None:
    return next((i + 1 for i, line in enumerate(lines) if text in line), None)


def main(wheel: str) -> dict[str, object]:
    version = re.search(r"sglang-([0-9.]+)-", wheel)
    with zipfile.ZipFile(wheel) as z:
        texts = {n[len(PREFIX):]: z.read(n).decode("utf-8-sig").splitlines()
                 for n in z.namelist() if n.endswith(".py") and n.startswith(PREFIX)}
    generic: dict[str, str | None] = {}
    for name, path, text in GENERIC:
        line = _find(texts.get(path, []), text)
        generic[name] = f"{path}:{line}" if line else None
    files: dict[str, dict[str, list[int]]] = {}
    archs: dict[str, dict[str, object]] = {}
    for path, lines in sorted(texts.items()):
        if not path.startswith(MODELS[len(PREFIX):]) or path.count("/") != 2:
            continue
        found: dict[str, list[int]] = {}
        for i, line in enumerate(lines):
            for kind, form in FORMS:
                if form.search(line):
                    found.setdefault(kind, []).append(i + 1)
                    break
        if found:
            files[path] = found
        archs.update(_entries(path, lines))
    return {"version": version.group(1) if version else "?",
            "source": "sglang wheel, srt/models/*.py and the shared layers (benchmarks/sglang_diff/geometry_asserts.py)",
            "generic": generic, "files": files, "architectures": dict(sorted(archs.items()))}


_CLASS = re.compile(r"^class (\w+)\(([^)]*)\)")


def _entries(path: str, lines: list[str]) -> dict[str, dict[str, object]]:
    """Each architecture the file's ``EntryClass`` names: its file and its class's bases as written
    (``DeepseekV2ForCausalLM`` for an MLA model built by ``deepseek_v2.py``)."""
    text = "\n".join(lines)
    entry = re.search(r"^EntryClass\s*=\s*(\[[^\]]*\]|\w+)", text, re.M)
    if not entry:
        return {}
    names = re.findall(r"\w+", entry.group(1))
    bases = {m.group(1): [b.strip() for b in m.group(2).split(",") if b.strip()]
             for m in map(_CLASS.match, lines) if m}
    return {n: {"file": path, "bases": bases.get(n, [])} for n in names}


if __name__ == "__main__":
    json.dump(main(sys.argv[1]), sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
