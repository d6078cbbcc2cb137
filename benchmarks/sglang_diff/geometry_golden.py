#!/usr/bin/env python3
"""SGLang's verdict on building each public model at TP 1-8, from the wheel's own assert text.

    python benchmarks/sglang_diff/geometry_golden.py /tmp/sgl/sglang-0.5.23-*.whl \
        > tests/data/sglang-golden/geometry-0.5.23.json

Derived from SGLang's source, not from running it: SGLang's model classes need CUDA extensions
and a process group to be built, so this reads the asserts they make (the lines
``geometry_asserts.py`` finds) and evaluates each assert's own expression, as the wheel writes it,
with the config's numbers (``self.total_num_heads`` the config's ``num_attention_heads``,
``self.attn_tp_size`` the TP size, ...), at each TP and, for a model with experts, with EP over
every rank (``"8/ep8"``), an FP8 block checkpoint's blocks and an AWQ checkpoint's groups against the per-rank widths. The KV-head asserts follow SGLang's branch (split when
there are at least as many KV heads as ranks, else replicated: ``qwen3_next.py:627-634``); the
shared layers' conditions are the ones their lines hold: ``MambaMixer2`` for a file that builds
one (``mamba.py:245-252``), ``FusedMoE`` for a file with experts (``layer.py:414, 427``), the merged
``in_proj_ba`` of a GDN file (``linear.py:693``: every output size divides the TP size), Kimi's
``_get_kda_local_num_heads`` (``kimi_linear.py:60-65``). Nothing of kdacheck is imported:
``tests/test_geometry.py`` holds kdacheck's verdicts equal to this file's.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import geometry_asserts  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TPS = (1, 2, 3, 4, 5, 6, 8)


def _expr(line: str) -> str:
    """An assert's condition as written: ``assert X, msg`` → ``X`` (``self.`` / ``config.`` dropped)."""
    body = line.strip()[len("assert "):].split(", ")[0].strip().rstrip(",").strip("()")
    return body.replace("self.", "").replace("config.", "")


def _numbers(c: dict[str, Any]) -> dict[str, int]:
    t = c.get("text_config") if isinstance(c.get("text_config"), dict) else c
    lin = t.get("linear_attn_config") or {}
    heads = t.get("num_attention_heads", 0)
    return {
        "heads": heads, "kv": t.get("num_key_value_heads") or heads,
        "mamba_heads": t.get("mamba_num_heads") or t.get("mamba_n_heads") or 0,
        "groups": t.get("n_groups") or t.get("mamba_n_groups") or 0,
        "gdn_heads": t.get("linear_num_value_heads") or 0, "kda_heads": lin.get("num_heads") or 0,
        "experts": t.get("n_routed_experts") or t.get("num_experts") or 0, "moe_inter": t.get("moe_intermediate_size") or 0,
    }


def verdict(texts: dict[str, list[str]], doc: dict[str, Any], config: dict[str, Any], tp: int, ep: int = 1) -> str:
    """``ok``, or the first place whose condition fails (``path:line``); then FP8's (:func:`fp8`)."""
    arch = doc["architectures"].get((config.get("architectures") or ["?"])[0])
    if arch is None:
        return "ok"
    n = _numbers(config)
    path = arch["file"]
    lines, own = texts["srt/models/" + path.split("srt/models/", 1)[1]], doc["files"].get(path, {})
    source = "\n".join(lines)
    if config.get("kv_lora_rank") or (config.get("text_config") or {}).get("kv_lora_rank"):
        if any(b in ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM") for b in arch["bases"]):
            path, lines, own = "srt/models/deepseek_v2.py", texts["srt/models/deepseek_v2.py"], doc["files"]["srt/models/deepseek_v2.py"]
        own = {k: v for k, v in own.items() if k in ("mla_heads", "heads", "kda_heads")}
    ns = {"total_num_heads": n["heads"], "num_heads": n["heads"], "num_attention_heads": n["heads"], "attn_tp_size": tp,
          "tp_size": tp, "world_size": tp, "kv_tp_size": tp, "total_num_kv_heads": n["kv"]}
    checks: list[tuple[str, bool]] = []
    for kind, at in own.items():
        line = at[0]
        if kind == "kda_heads":  # the raise under `if num_heads % tp_size != 0:` (the line above it)
            checks.append((f"{path}:{line}", n["kda_heads"] % tp == 0))
        elif kind == "kv_heads" and n["kv"] < tp or kind == "kv_replicas" and n["kv"] >= tp:
            continue  # SGLang's other branch
        else:
            checks.append((f"{path}:{line}", bool(eval(_expr(lines[line - 1]), {}, dict(ns)))))  # noqa: S307 (SGLang's own text)
    gen = doc["generic"]
    if "in_proj_ba" in source and n["gdn_heads"]:
        checks.append((gen["column_divide"], n["gdn_heads"] % tp == 0))
    if "MambaMixer2(" in source and n["mamba_heads"]:
        checks.append((gen["mamba_heads"], n["mamba_heads"] % tp == 0))
        checks.append((gen["mamba_groups"], n["groups"] % tp == 0 or n["groups"] == 1))
    if n["experts"] and n["moe_inter"]:
        checks.append((gen["moe_experts"], n["experts"] % ep == 0))  # `_num_global_routed % storage_ep_size`
        checks.append((gen["moe_intermediate"], n["moe_inter"] % (tp // ep) == 0))  # moe_tp = tp // ep (runtime_context.py:154)
    first = next((place for place, ok in checks if not ok), None)
    if first:
        return first
    quantized = fp8(doc, config, tp, ep)
    return quantized if quantized != "ok" else awq(doc, config, tp)


def fp8(doc: dict[str, Any], config: dict[str, Any], tp: int, ep: int) -> str:
    """An FP8 block checkpoint's verdict as fp8.py decides it: the experts' per-rank gate/up
    (``Fp8MoEMethod.create_weights``: ``% block_n``, then ``% block_k`` when split), the shared
    expert's and a dense MLP's merged gate/up and row-parallel down
    (``validate_block_quant_shapes``), each skipped when ``modules_to_not_convert`` names it."""
    q = config.get("quantization_config") or {}
    t = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    if q.get("quant_method") != "fp8" or not q.get("weight_block_size"):
        return "ok"
    bn, bk = q["weight_block_size"]
    skip = q.get("ignored_layers") or q.get("modules_to_not_convert") or []
    gen, n = doc["generic"], _numbers(config)
    moe_tp = tp // ep
    if n["experts"] and n["moe_inter"] and not any("experts" in s for s in skip):
        per = n["moe_inter"] // moe_tp
        if per % bn:
            return gen["fp8_moe_block_n"]
        if moe_tp > 1 and per % bk:
            return gen["fp8_moe_block_k"]
    mlps = (("shared_expert", t.get("shared_expert_intermediate_size") if n["experts"] else None),
            ("mlp", None if n["experts"] else t.get("intermediate_size")))
    for module, width in mlps:
        if width and width % tp == 0 and not any(module in s for s in skip):
            if (width // tp) % bn:
                return gen["fp8_linear_block_n"]
            if tp > 1 and (width // tp) % bk:
                return gen["fp8_linear_block_k"]
    return "ok"


def awq(doc: dict[str, Any], config: dict[str, Any], tp: int) -> str:
    """An AWQ checkpoint's verdict as awq_linear.py decides it (``AWQLinearScheme.create_weights``,
    reached by every layer AWQ-Marlin cannot take: ``awq.py`` ``get_quant_method``): a row-parallel
    ``down_proj`` input ``intermediate / tp`` not whole ``group_size`` groups, else a merged
    ``gate_up_proj`` output ``2 * intermediate / tp`` not whole ``32 / bits`` words; a layer whose
    name holds a ``modules_to_not_convert`` entry is skipped (``is_layer_skipped_awq``)."""
    q = config.get("quantization_config") or {}
    t = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    if q.get("quant_method") != "awq" or tp < 2:
        return "ok"
    group, pack = q.get("group_size", 0), 32 // q.get("bits", 4)
    skip = q.get("modules_to_not_convert") or []
    gen, n = doc["generic"], _numbers(config)
    mlps = (("mlp.shared_expert.down_proj", t.get("shared_expert_intermediate_size") if n["experts"] else None),
            ("mlp.down_proj", None if n["experts"] else t.get("intermediate_size")))
    for prefix, width in mlps:
        if width and width % tp == 0 and not any(s in prefix for s in skip):
            if group > 0 and (width // tp) % group:
                return gen["awq_input"]
            if (2 * width // tp) % pack:
                return gen["awq_output"]
    return "ok"


def main(wheel: str) -> dict[str, Any]:
    doc = geometry_asserts.main(wheel)
    with zipfile.ZipFile(wheel) as z:
        texts = {n[len("sglang/"):]: z.read(n).decode("utf-8-sig").splitlines()
                 for n in z.namelist() if n.startswith("sglang/srt/") and n.endswith(".py")}
    out: dict[str, Any] = {}
    for folder in sorted((ROOT / "tests" / "data" / "models").iterdir()):
        cfg = folder / "config.json"
        if cfg.is_file():
            config = json.loads(cfg.read_text(encoding="utf-8"))
            out[folder.name] = {str(tp): verdict(texts, doc, config, tp) for tp in TPS}
            if _numbers(config)["experts"]:  # expert parallelism over every TP rank
                out[folder.name].update({f"{tp}/ep{tp}": verdict(texts, doc, config, tp, tp) for tp in TPS if tp > 1})
    version = re.search(r"sglang-([0-9.]+)-", wheel)
    return {"version": version.group(1) if version else "?",
            "source": "derived from the wheel's assert text (benchmarks/sglang_diff/geometry_golden.py), not by running SGLang",
            "models": out}


if __name__ == "__main__":
    json.dump(main(sys.argv[1]), sys.stdout, indent=1)
    sys.stdout.write("\n")
