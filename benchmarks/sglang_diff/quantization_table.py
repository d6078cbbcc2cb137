#!/usr/bin/env python3
"""The quantization methods SGLang takes, per platform, read from a wheel.

    python benchmarks/sglang_diff/quantization_table.py /work/sglang/whl/sglang-0.5.23-*.whl \
        > kdacheck/data/quantization-0.5.23.json

``ModelConfig._verify_quantization`` (``srt/configs/model_config.py``) decides the launch's
quantization: the checkpoint's ``quant_method``, a method's ``override_quantization_method``, or
``--quantization``; then it refuses a ``--quantization`` that differs from the checkpoint's method
unless ``compatible_quantization_methods`` pairs them (or it is a requantization method), a method
the platform's registry lacks ("Unknown quantization method"), and on ROCm a method outside
``rocm_supported_quantization``. The registry is ``QUANTIZATION_METHODS`` of
``srt/layers/quantization/__init__.py``: ``BASE_QUANTIZATION_METHODS`` plus the platform's
``BASE_QUANTIZATION_METHODS.update`` blocks.

Read with ``ast`` (nothing imported, standard library only):

- ``cuda``: the base keys and the keys of each update block whose condition names ``is_cuda()``;
- ``rocm``: the base keys (SGLang's ROCm is neither ``is_cuda()`` nor NPU/CPU/XPU/MPS), and
  ``rocm_gfx95``: those plus the blocks whose condition names ``_is_gfx95_supported``;
- ``rocm_listed``, ``compatible``: the two literals of ``_verify_quantization``;
- ``requantization``: ``REQUANTIZATION_METHODS`` (absent before it existed: empty).
"""

from __future__ import annotations

import ast
import json
import sys
import zipfile

INIT = "sglang/srt/layers/quantization/__init__.py"
MODEL_CONFIG = "sglang/srt/configs/model_config.py"


def _keys(node: ast.AST) -> list[str]:
    return [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)] \
        if isinstance(node, ast.Dict) else []


def registries(source: str) -> dict[str, list[str]]:
    base: list[str] = []
    cuda_extra: list[str] = []
    gfx95_extra: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id == "BASE_QUANTIZATION_METHODS" and node.value is not None:
                base = _keys(node.value)
        elif isinstance(node, ast.If):
            condition = ast.unparse(node.test)
            for sub in node.body:
                call = sub.value if isinstance(sub, ast.Expr) and isinstance(sub.value, ast.Call) else None
                if call is None or ast.unparse(call.func) != "BASE_QUANTIZATION_METHODS.update" or not call.args:
                    continue
                if "is_cuda()" in condition:
                    cuda_extra += _keys(call.args[0])
                if "_is_gfx95_supported" in condition:
                    gfx95_extra += _keys(call.args[0])
    return {"cuda": sorted(set(base + cuda_extra)), "rocm": sorted(set(base)), "rocm_gfx95": sorted(set(base + gfx95_extra))}


def verify_literals(source: str) -> dict[str, object]:
    out: dict[str, object] = {"rocm_listed": [], "compatible": {}, "requantization": []}
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
            if name == "REQUANTIZATION_METHODS" and isinstance(value, ast.List):
                out["requantization"] = [e.value for e in value.elts if isinstance(e, ast.Constant)]
        if isinstance(node, ast.FunctionDef) and node.name == "_verify_quantization":
            for sub in ast.walk(node):
                if not (isinstance(sub, ast.Assign) and isinstance(sub.targets[0], ast.Name)):
                    continue
                name, value = sub.targets[0].id, sub.value
                if name == "rocm_supported_quantization" and isinstance(value, ast.List):
                    out["rocm_listed"] = [e.value for e in value.elts if isinstance(e, ast.Constant)]
                elif name == "compatible_quantization_methods" and isinstance(value, ast.Dict):
                    out["compatible"] = {k.value: [e.value for e in v.elts if isinstance(e, ast.Constant)]
                                         for k, v in zip(value.keys, value.values, strict=True)
                                         if isinstance(k, ast.Constant) and isinstance(v, ast.List)}
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with zipfile.ZipFile(argv[1]) as whl:
        version = next(n.split("/")[0].removesuffix(".dist-info").split("-")[1] for n in whl.namelist()
                       if n.endswith(".dist-info/METADATA"))
        table = {"sglang_version": version, **registries(whl.read(INIT).decode()), **verify_literals(whl.read(MODEL_CONFIG).decode())}
    json.dump(table, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
