#!/usr/bin/env python3
"""Which SGLang model classes have the speculative layer-capture hooks, read from a wheel.

    python benchmarks/sglang_diff/speculative_hooks.py /tmp/sgl/sglang-0.5.23-*.whl \
        > kdacheck/data/speculative_hooks-0.5.23.json

SGLang asks the loaded target model for them at model-runner init (0.5.23
``srt/model_executor/model_runner_components/attention_backend_setup.py``
``configure_aux_hidden_state_capture``: ``hasattr(model, "set_eagle3_layers_to_capture")``
for EAGLE3, ``set_dflash_layers_to_capture`` for DFLASH, either that or
``set_dspark_layers_to_capture`` for DSPARK) and raises ValueError when the class lacks it; the
EAGLE draft workers ask it for ``get_embed_and_head`` (or ``get_embed_and_head_for_draft``) to
share its embedding and LM head (``embed_share``; an AttributeError when it has neither).
The class of an ``architectures[0]`` name is the one a module's ``EntryClass`` lists under that
``__name__`` (``srt/models/registry.py`` ``import_model_classes``).

Only the wheel's source is read (``ast``, nothing imported, standard library only): each class
under ``sglang/srt/models/`` with the methods (and class-level names) it defines, its bases
followed through the same module and ``from sglang.srt.models.X import Y`` imports. A class
with a base this cannot follow (other than ``nn.Module`` and the like) or a ``__getattr__``
is marked ``complete: false``: its hooks are not known and kdacheck says nothing of it.
"""

from __future__ import annotations

import ast
import json
import sys
import zipfile

HOOKS = ("set_eagle3_layers_to_capture", "set_dflash_layers_to_capture", "set_dspark_layers_to_capture")
# what the EAGLE draft workers ask the target for, to share its embedding and LM head with the draft
# (0.5.23 srt/speculative/pp_draft_embedding.py L79-99 resolve_target_embed_and_head)
EMBED_SHARE = ("get_embed_and_head", "get_embed_and_head_for_draft")
PREFIX = "sglang/srt/models/"
# bases that add no hook of their own (torch and typing); any other base not followed makes a class incomplete
INERT = {"Module", "nn.Module", "torch.nn.Module", "Generic", "ABC", "object"}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Subscript):  # Generic[T]
        return _name(node.value)
    return "?"


def read_modules(wheel: str) -> dict[str, ast.Module]:
    with zipfile.ZipFile(wheel) as z:
        return {n[len(PREFIX):-3]: ast.parse(z.read(n).decode("utf-8-sig"))
                for n in z.namelist() if n.startswith(PREFIX) and n.endswith(".py") and n.count("/") == 3}


def main(wheel: str) -> dict[str, object]:
    modules = read_modules(wheel)
    classes: dict[tuple[str, str], dict[str, object]] = {}  # (module, class) -> names, bases, line
    imports: dict[str, dict[str, tuple[str, str]]] = {}  # module -> local name -> (module, name)
    entries: dict[str, list[str]] = {}
    for mod, tree in modules.items():
        imports[mod] = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sglang.srt.models."):
                src = node.module.rsplit(".", 1)[1]
                for a in node.names:
                    imports[mod][a.asname or a.name] = (src, a.name)
            elif isinstance(node, ast.ClassDef):
                names = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
                names |= {t.id for n in node.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
                classes[(mod, node.name)] = {"names": names, "bases": [_name(b) for b in node.bases], "line": node.lineno}
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets):
                value = node.value
                items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
                entries[mod] = [_name(e) for e in items]

    def find(mod: str, name: str) -> tuple[str, str] | None:
        if (mod, name) in classes:
            return (mod, name)
        if name in imports.get(mod, {}):
            src, real = imports[mod][name]
            return find(src, real) if src != mod else None
        return None

    def resolve(key: tuple[str, str], seen: frozenset[tuple[str, str]] = frozenset()) -> tuple[set[str], bool]:
        """The names a class has (its own and its bases'), and whether every base was followed."""
        info = classes[key]
        names, complete = set(info["names"]), "__getattr__" not in info["names"]  # type: ignore[arg-type]
        for base in info["bases"]:  # type: ignore[attr-defined]
            found = find(key[0], base)
            if found is None or found in seen:
                complete &= base in INERT
                continue
            more, ok = resolve(found, seen | {key})
            names |= more
            complete &= ok
        return names, complete

    table: dict[str, dict[str, object]] = {}
    for mod, items in sorted(entries.items()):
        for item in items:
            key = find(mod, item)
            if key is None:
                continue  # an entry built at import time: not read here
            names, complete = resolve(key)
            table[key[1]] = {"eagle3": HOOKS[0] in names, "dflash": HOOKS[1] in names, "dspark": HOOKS[2] in names,
                             "embed_share": any(h in names for h in EMBED_SHARE),
                             "complete": complete, "class": f"srt/models/{key[0]}.py:{classes[key]['line']}"}
    version = wheel.rsplit("/", 1)[-1].split("-")[1]
    return {"version": version, "source": f"sglang-{version} wheel, srt/models/*.py (benchmarks/sglang_diff/speculative_hooks.py)",
            "hooks": list(HOOKS), "embed_share": list(EMBED_SHARE), "architectures": dict(sorted(table.items()))}


if __name__ == "__main__":
    json.dump(main(sys.argv[1]), sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
