"""``config.json`` read the way SGLang's config classes read it (0.5.23 ``srt/configs/``).

The family comes from ``model_type`` as SGLang's config registry maps it, after unwrapping a
multimodal wrapper's ``text_config`` (``hybrid_arch.py`` calls ``get_text_config()``); the
geometry from the keys that family's config class uses:

- KDA (``kimi_linear``, ``kimi_linear.py`` L158-182): ``linear_attn_config`` ``num_heads``,
  ``head_dim``, ``short_conv_kernel_size``, ``kda_layers`` (1-based); the config's SSM dtype
  is not read.
- GDN (``qwen3_next``, ``qwen3_5[_moe][_text]``, ``qwen3_next.py`` L259-316): ``linear_num_key_heads``,
  ``linear_num_value_heads``, ``linear_key_head_dim``, ``linear_value_head_dim``,
  ``linear_conv_kernel_dim``; layer ``l`` is full attention iff ``(l + 1) % full_attention_interval
  == 0`` (``layer_types`` is ignored); ``mamba_ssm_dtype`` (also under ``text_config``).
- Mamba2: ``nemotron_h`` (``nemotron_h.py``: the ``mamba`` layers of ``layers_block_type``, else of
  ``hybrid_override_pattern``, the layer count its length; ``mamba_num_heads``, ``mamba_head_dim``, ``n_groups``, ``ssm_state_size``, ``conv_kernel``),
  ``falcon_h1`` (``falcon_h1.py`` L211-315: every layer; ``mamba_d_ssm`` or ``mamba_expand ·
  hidden_size``, ``mamba_n_heads``, ``mamba_d_head``, ``mamba_d_state``, ``mamba_n_groups``,
  ``mamba_d_conv``), ``granitemoehybrid`` (``granitemoehybrid.py`` L239-310: layers whose
  ``layer_types`` is ``mamba``; the SSM dtype is not read).
- DSA (``model_config.py`` L191-212 ``is_deepseek_dsa``): a DeepSeek-family architecture with
  ``index_topk``.

The text is read as transformers reads it (:func:`loads_config`: NaN and infinities, bare or as
transformers 5's ``{"__float__": ...}`` objects). A field a reader uses, of the wrong type or
range, is an error naming the file and the field; a field no reader uses is never checked.
"""

from __future__ import annotations

import dataclasses
import json
import math
import stat
from pathlib import Path
from typing import Any

from kdacheck import architectures, families, geometry, versions
from kdacheck.families.fields import Fields
from kdacheck.findings import InputError
from kdacheck.models import Model

MAX_CONFIG_BYTES = 1 << 20
DSPARK_KEYS = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id", "dspark_target_layer_ids")

def read_json(path: Path) -> dict[str, Any]:
    """A model config.json: a regular file, at most 1 MiB, a JSON object (bounded nesting),
    read as transformers reads it (:func:`loads_config`)."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: a model config.json must be a regular file")
        if st.st_size > MAX_CONFIG_BYTES:
            raise InputError(f"{path}: model config of {st.st_size:,} bytes is over the {MAX_CONFIG_BYTES:,}-byte limit")
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise InputError(f"{path}: cannot read model config: {e.strerror or e}") from None
    return parse_bytes(raw, str(path))


# transformers 5 writes a float JSON cannot hold as an object of its own (configuration_utils.py
# ``_encode_special_floats``: ``{"__float__": "Infinity"}``, ``"-Infinity"``, ``"NaN"``)
_FLOAT_TAG = "__float__"
_FLOAT_TAGS = {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}


def loads_config(text: str) -> Any:
    """``config.json`` text as transformers reads it (5.19-5.24 ``configuration_utils.py``
    ``_dict_from_json_file``): Python's ``json.loads``, so the bare ``NaN``, ``Infinity`` and
    ``-Infinity`` older writers leave are numbers, then ``_decode_special_floats``: an object
    whose only key is ``__float__`` holding one of those names becomes that float (any other
    ``__float__`` object stays as it is). Nesting is bounded (json recurses); no value is
    judged here: a field is checked only where a family reader uses it (``Fields``)."""
    from kdacheck.args import JSON_MAX_DEPTH

    try:
        doc = json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None

    def decode(node: Any, depth: int) -> Any:
        if depth > JSON_MAX_DEPTH:
            raise ValueError(f"JSON nested deeper than {JSON_MAX_DEPTH} levels")
        if isinstance(node, dict):
            tag = node.get(_FLOAT_TAG)
            if len(node) == 1 and isinstance(tag, str) and tag in _FLOAT_TAGS:
                return _FLOAT_TAGS[tag]
            return {k: decode(v, depth + 1) for k, v in node.items()}
        if isinstance(node, list):
            return [decode(v, depth + 1) for v in node]
        return node

    return decode(doc, 0)


def _bundles_dspark(data: dict[str, Any], path: Path) -> bool | None:
    """Whether the checkpoint carries its own DSpark draft, as SGLang 0.5.23 decides it
    (``speculative_hook.py:614-663``: a ``dspark_*`` key in the config, or a ``dspark/config.json``
    beside it). None for a Hugging Face cache snapshot: SGLang would fetch ``dspark/`` from the Hub."""

    if any(data.get(k) is not None for k in DSPARK_KEYS):
        return True
    try:
        if (path.parent / "dspark" / "config.json").exists():
            return True
    except OSError:
        return None
    return None if "snapshots" in path.parts else False


def parse_bytes(raw: bytes, where: str) -> dict[str, Any]:
    """A config.json's bytes (from the Hugging Face cache or the Hub, already bounded), read as
    :func:`read_json` reads a file; ``where`` names it in errors."""
    try:
        data = loads_config(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise InputError(f"{where}: model config is not valid JSON: ({str(e)[:120]})") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: a model config.json must be a JSON object")
    return data


def read(path: Path, name: str, version: str | None = None, data: dict[str, Any] | None = None, origin: str = "",
         source: str | None = None) -> Model:
    """The model a config.json describes (``name``: the launch's model path, for presets' params).
    ``data``: the config already read (the cache, the Hub, the bundled index), ``path`` then
    only names it; ``origin``: where it came from (``Model.origin``); ``source``: the sentence
    that says so (default: the path)."""
    if data is None:
        data = read_json(path)
    archs = data.get("architectures")
    arch = str(archs[0])[:120] if isinstance(archs, list) and archs and isinstance(archs[0], str) else "?"
    text = data.get("text_config") if isinstance(data.get("text_config"), dict) else None
    outer = Fields(data, path)
    inner = Fields(text, path, "text_config.") if text is not None else outer
    model_type = (inner.opt_str("model_type") or outer.opt_str("model_type") or "").lower()
    source = source or f"config.json at {path}"
    from kdacheck import model_index

    # a checkpoint the bundled index knows by this name: its weights (the config has no parameter count)
    base = model_index.match(name) if origin != "index" else None
    params = float(model_index.entry(base.repo)["params"]) if base else 0.0
    wbytes = base.weight_bytes_per_param if base else 2.0
    weights = _weights_from_index(path.parent) if origin in ("", "folder") else None
    if weights is not None and not base:
        params, wbytes = float(weights), 1.0
        source += f"; weights {weights / 2**30:.1f} GiB from model.safetensors.index.json"
    dspark = _bundles_dspark(data, path) if origin in ("", "folder", "hf-cache") else \
        (True if any(data.get(k) is not None for k in DSPARK_KEYS) else None)
    common: dict[str, Any] = {"params": params, "weight_bytes_per_param": wbytes, "source": source,
              "mla": "kv_lora_rank" in (text or data), "dspark_draft": dspark, "origin": origin,
              "vision": vision_tower(data, text), "geometry": geometry.read(data, text), **text_facts(text or data),
              "mamba_chunk_size": mamba_chunk_size(data)}
    view = families.ConfigView(path, name, arch, model_type, data, outer, inner, version or versions.NEWEST, common)
    model = families.read(view)  # the first family that claims it; full attention claims every config
    assert model is not None
    if not model.unmodelled and architectures.unknown(arch, view.version):  # said by MODEL001, its rules not checked
        model = dataclasses.replace(model, unmodelled=architectures.UNKNOWN_ARCHITECTURE)
    return model

def text_facts(text: dict[str, Any]) -> dict[str, Any]:
    """What SGLang reads off the text config (``hf_text_config``): the QSA indexer's presence,
    the vocabulary size, the MLP activation; absent or of the wrong type, not known."""
    vocab = text.get("vocab_size")
    act = text.get("mlp_hidden_act")
    return {"qsa_indexer": text.get("indexer_n_heads") is not None,
            "vocab_size": vocab if isinstance(vocab, int) and not isinstance(vocab, bool) and 0 < vocab < 1 << 31 else None,
            "mlp_hidden_act": act[:40] if isinstance(act, str) else None}


def mamba_chunk_size(data: dict[str, Any]) -> int:
    """``getattr(hf_config, "mamba_chunk_size", 64)`` (0.5.23 ``arg_groups/overrides.py`` L1897-1922
    ``mamba_cache_chunk_size``; 64 is FLA's CHUNK_SIZE) for the outer config as SGLang's config class
    builds it: Nemotron-H ``mamba_chunk_size``, else ``chunk_size``, else 256 (``configs/nemotron_h.py``
    L224-243); Mamba2 its ``chunk_size`` (``configs/mamba2.py`` L33-34; 256); Mamba-1 256
    (``configs/mamba.py`` L24, L51-53); LFM2 1 (``configs/lfm2.py`` L54-56, a property); transformers'
    Falcon-H1, GraniteMoeHybrid and Bamba classes default to 256; any other class keeps a
    ``mamba_chunk_size`` the config.json gives (a PretrainedConfig keeps unknown keys), else 64."""
    model_type = str(data.get("model_type") or "")

    def number(key: str) -> int | None:
        v = data.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 1 << 30 else None

    if model_type == "lfm2":
        return 1
    if model_type in ("mamba", "falcon_mamba"):
        return 256
    if model_type == "mamba2":
        return number("chunk_size") or 256
    if model_type.startswith("nemotron_h"):
        return number("mamba_chunk_size") or number("chunk_size") or 256
    default = 256 if model_type in ("falcon_h1", "granitemoehybrid", "bamba") else 64
    return number("mamba_chunk_size") or default


def vision_tower(data: dict[str, Any], text: dict[str, Any] | None) -> tuple[int, int] | None:
    """The vision tower SGLang sizes ``mem_fraction_static`` by, or None where it does not.

    SGLang 0.5.23 ``configs/model_config.py`` L674, L820-828: multimodal when the config nests a
    ``text_config`` (``hf_config is not hf_text_config``; kdacheck does not copy the architecture
    list ``multimodal_model_archs`` L2391) and not ``language_model_only``; then
    ``memory_hook.py`` L432-441 reads ``vision_config.num_hidden_layers`` (24 when absent, e.g.
    Qwen3.5's ``depth``) and ``hidden_size`` (1024)."""
    vision = data.get("vision_config")
    if text is None or not isinstance(vision, dict) or data.get("language_model_only") is True:
        return None
    layers, hidden = vision.get("num_hidden_layers", 24), vision.get("hidden_size", 1024)
    ok = all(isinstance(x, int) and not isinstance(x, bool) and 0 < x <= 1 << 20 for x in (layers, hidden))
    return (layers, hidden) if ok else None


def _weights_from_index(folder: Path) -> int | None:
    """The checkpoint's weight bytes from ``model.safetensors.index.json`` ``metadata.total_size``."""
    index = folder / "model.safetensors.index.json"
    try:
        st = index.stat()
        if not stat.S_ISREG(st.st_mode) or st.st_size > 16 * MAX_CONFIG_BYTES:
            return None
        with open(index, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    # metadata comes first in the files the Hugging Face tools write; read no further than that
    text = head.decode("utf-8", "replace")
    start = text.find('"total_size"')
    if start < 0:
        return None
    digits = ""
    for ch in text[text.find(":", start) + 1:]:
        if ch.isdigit():
            digits += ch
        elif digits or ch not in " \t\r\n":
            break
    value = int(digits[:20]) if digits else 0
    return value if 0 < value < 1 << 50 and math.isfinite(value) else None
