#!/usr/bin/env python3
"""Which ``--config`` YAML keys SGLang's config merger refuses, read from a wheel.

    python benchmarks/sglang_diff/config_merger.py /work/sglang/whl/sglang-0.5.23-*.whl \
        > kdacheck/data/config_merger-0.5.23.json

SGLang turns an ``--config`` YAML into argv with ``ConfigArgumentMerger``
(``srt/utils/server_args_config_parser.py``). Its ``__init__`` sorts the parser's actions into
the ones it can write as argv and the rest, ``unsupported_actions``; ``_convert_config_to_args``
raises ``ValueError("Unsupported config option '<key>' with action '<class>'")`` for a key in
that table, whatever its value (``false`` included), before it looks at the value.

What changes between versions is read from the wheel's source (``ast``; nothing imported,
standard library only):

- the argparse classes the merger accepts (``isinstance(a, argparse._StoreTrueAction)`` ...);
- whether any action without ``nargs`` is accepted too (0.5.23 ``_takes_one_value``:
  ``... or action.nargs is None``);
- whether the table is keyed by every long spelling of a flag (0.5.23 ``_config_keys``) or by
  its ``dest`` only (0.5.19-0.5.22), and whether a key a supported flag also reads stays usable;
- the bases of SGLang's own action classes (``srt/arg_groups/argparse_actions.py``), so an
  ``isinstance`` test is answered for them as Python would.

Each flag's action class and ``nargs`` come from kdacheck's flag table for the version
(``kdacheck/data/sglang-<version>-flags.json``, dumped from the installed parser). The output
is the refused keys, each with the class name SGLang's message prints.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import zipfile
from pathlib import Path

PARSER = "sglang/srt/utils/server_args_config_parser.py"
ACTIONS = "sglang/srt/arg_groups/argparse_actions.py"
ROOT = Path(__file__).resolve().parents[2]
# argparse's own classes and their bases (Python 3.11 argparse)
ARGPARSE_BASES = {
    "_StoreAction": "Action", "_StoreConstAction": "Action", "_StoreTrueAction": "_StoreConstAction",
    "_StoreFalseAction": "_StoreConstAction", "_AppendAction": "Action", "_AppendConstAction": "Action",
    "_CountAction": "Action", "_HelpAction": "Action", "_VersionAction": "Action", "_SubParsersAction": "Action",
    "_ExtendAction": "_AppendAction", "BooleanOptionalAction": "Action",
}
# the options the merger skips by name (``"--config" not in a.option_strings`` ...)
SKIPPED = ("--config", "--help", "-h")


def _attr(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def merger_rules(source: str) -> dict[str, object]:
    """What ``ConfigArgumentMerger.__init__`` accepts, read from its source."""
    tree = ast.parse(source)
    init = next(n for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.name == "ConfigArgumentMerger"
                for n in c.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    scope = [init, *(funcs[c.func.id] for c in ast.walk(init) if isinstance(c, ast.Call)
                     and isinstance(c.func, ast.Name) and c.func.id in funcs)]
    classes: set[str] = set()
    single_value = False
    for fn in scope:
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and _attr(node.func) == "isinstance" and len(node.args) == 2:
                name = _attr(node.args[1])
                if name.endswith("Action"):
                    classes.add(name)
            if (isinstance(node, ast.Compare) and _attr(node.left) == "nargs"
                    and isinstance(node.ops[0], ast.Is) and isinstance(node.comparators[0], ast.Constant)
                    and node.comparators[0].value is None):
                single_value = True
    all_spellings = "_config_keys" in funcs and any(
        isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "_config_keys" for c in ast.walk(init))
    shared = all_spellings and "supported_keys" in {n.id for n in ast.walk(init) if isinstance(n, ast.Name)}
    text = ast.get_source_segment(source, init) or ""
    assert "unsupported_actions" in text, "ConfigArgumentMerger.__init__ builds no unsupported_actions"
    return {"accepted_classes": sorted(classes), "nargs_none_accepted": single_value,
            "keys": "every long spelling and dest" if all_spellings else "dest",
            "shared_key_usable": shared}


def action_bases(source: str) -> dict[str, str]:
    """SGLang's own action classes and their (first) base, by name."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.bases:
            out[node.name] = _attr(node.bases[0])
    return out


def _is_a(cls: str, accepted: list[str], bases: dict[str, str]) -> bool:
    seen = 0
    while cls and seen < 20:
        if cls in accepted:
            return True
        cls = bases.get(cls, "")
        seen += 1
    return False


def _keys(flag: dict[str, object], all_spellings: bool) -> set[str]:
    keys = {str(flag["dest"])}
    if all_spellings:
        keys |= {o[2:].replace("-", "_") for o in flag["options"] if isinstance(o, str) and o.startswith("--")}  # type: ignore[attr-defined]
    return keys


def refused(rules: dict[str, object], flags: list[dict[str, object]], bases: dict[str, str]) -> dict[str, str]:
    accepted = list(rules["accepted_classes"])  # type: ignore[call-overload]
    every = rules["keys"] != "dest"

    def ok(f: dict[str, object]) -> bool:
        return _is_a(str(f["action"]), accepted, bases) or (bool(rules["nargs_none_accepted"]) and f["nargs"] is None)

    kept = [f for f in flags if not any(o in SKIPPED for o in f["options"])]  # type: ignore[attr-defined]
    usable = {k for f in kept if ok(f) for k in _keys(f, every)} if rules["shared_key_usable"] else set()
    out: dict[str, str] = {}
    for f in kept:
        if not ok(f):
            for k in sorted(_keys(f, every)):
                if k not in usable:
                    out[k] = str(f["action"])
    return dict(sorted(out.items()))


def main(wheel: str) -> dict[str, object]:
    version = re.search(r"sglang-([0-9.]+?)-", Path(wheel).name)
    assert version, wheel
    ver = version.group(1)
    with zipfile.ZipFile(wheel) as z:
        rules = merger_rules(z.read(PARSER).decode())
        bases = {**ARGPARSE_BASES, **action_bases(z.read(ACTIONS).decode())}
    table = json.loads((ROOT / "kdacheck" / "data" / f"sglang-{ver}-flags.json").read_text("utf-8"))
    assert table["sglang_version"] == ver, (table["sglang_version"], ver)
    return {"sglang_version": ver, "source": f"{PARSER} ConfigArgumentMerger.__init__ (read by benchmarks/sglang_diff/config_merger.py)",
            "merger": rules, "refused": refused(rules, table["flags"], bases)}


if __name__ == "__main__":
    json.dump(main(sys.argv[1]), sys.stdout, indent=1)
    sys.stdout.write("\n")
