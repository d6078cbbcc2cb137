"""The bundled index of public config.json files (``kdacheck/data/model_index.json``, made by
``benchmarks/model_index/build.py``): a model id the launch names, not on disk and not in the
Hugging Face cache, is read from the config its public checkpoint ships, through the same
family readers as any config.json (``model_source.preset``), with its source said.

Names match as kdacheck's presets always matched: the id, an alias (another public name of the
same checkpoint), a listed variant (a quantised or renamed repo: its bytes per parameter), a
quantisation suffix on a known id (``-FP8``, ``-NVFP4``, ``-AWQ``, ...), a short name
(``kimi-linear``), or a name containing one; a Hub repo id (one repository) only by the first
four. This module only holds the data and the matching (no model is built here).
"""

from __future__ import annotations

import functools
import json
from typing import Any, NamedTuple

from kdacheck.findings import InputError
from kdacheck.sanitize import visible_name

INDEX = "model_index.json"
# Quantised variants share the base geometry; bytes per parameter of their weights.
QUANT_SUFFIXES = (("-nvfp4", 0.5625), ("-fp4", 0.5625), ("-awq", 0.5625), ("-gptq-int4", 0.5625), ("-int4", 0.5625),
                  ("-fp8-dynamic", 1.0), ("-fp8", 1.0), ("-int8", 1.0), ("-bf16", 2.0))
# Suffixes peeled off one name at most: a public checkpoint has one or two (``-FP8-dynamic`` is one)
MAX_SUFFIXES = 8


class Match(NamedTuple):
    repo: str  # the index entry
    name: str  # the name asked for
    weight_bytes_per_param: float
    note: str  # how it matched ("" for the id itself)


@functools.cache
def document() -> dict[str, Any]:
    from kdacheck.flags import _data

    doc = json.loads(_data(INDEX))
    assert isinstance(doc, dict)
    return doc


def ids() -> list[str]:
    return list(document()["entries"])


def entry(repo: str) -> dict[str, Any]:
    """One entry: ``config`` (the fields kdacheck reads), ``source``, ``params``, ``weight_bytes_per_param``."""
    found = document()["entries"][repo]
    assert isinstance(found, dict)
    return found


def short_names() -> dict[str, str]:
    return dict(document()["short_names"])


def match(name: str, loose: bool = True) -> Match | None:
    """The entry ``name`` stands for (see the module's matching), or None. ``loose`` False (a
    Hub repo id, which names one repository): no short-name or containment match. A name with
    more than ``MAX_SUFFIXES`` quantisation suffixes in a row is refused (InputError), never
    peeled one stack frame a suffix."""
    return _match(name, loose, 0)


def _match(name: str, loose: bool, peeled: int) -> Match | None:
    doc = document()
    if name in doc["entries"]:
        return Match(name, name, float(doc["entries"][name]["weight_bytes_per_param"]), "")
    if name in doc["aliases"]:
        repo = doc["aliases"][name]
        return Match(repo, name, float(doc["entries"][repo]["weight_bytes_per_param"]), f"{name} is another public name of it")
    if name in doc["variants"]:
        repo, wbytes = doc["variants"][name]
        return Match(repo, name, float(wbytes), f"{name}: the same geometry, {float(wbytes):g} bytes per parameter")
    low = name.lower().rstrip("/")
    for suffix, wbytes in QUANT_SUFFIXES:
        if low.endswith(suffix) and len(low) > len(suffix):
            if peeled == MAX_SUFFIXES:
                raise InputError(f"model name {visible_name(name[:80])}…: more than {MAX_SUFFIXES} quantisation suffixes "
                                 f"({', '.join(s.upper() for s, _ in QUANT_SUFFIXES[:3])}, ...) in a row: no checkpoint "
                                 "is named so; refusing to match it")
            base = _match(name.rstrip("/")[: -len(suffix)], loose, peeled + 1)
            if base is not None:
                note = f"{base.note}; " if base.note else ""
                return Match(base.repo, name, wbytes, f"{note}{suffix[1:].upper()} weights ({wbytes:g} bytes per parameter)")
    if not loose:
        return None
    leaf = low.rsplit("/", 1)[-1]
    for short, full in doc["short_names"].items():
        if low == short or short in leaf or short in low:
            wbytes = float(doc["entries"][full]["weight_bytes_per_param"])
            return Match(full, name, wbytes, "" if name == full else f"matched by the name {name[:200]}")
    return None
