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
- Mamba2: ``nemotron_h`` (``nemotron_h.py`` L409-439: ``M`` layers of ``hybrid_override_pattern``,
  ``mamba_num_heads``, ``mamba_head_dim``, ``n_groups``, ``ssm_state_size``, ``conv_kernel``),
  ``falcon_h1`` (``falcon_h1.py`` L211-315: every layer; ``mamba_d_ssm`` or ``mamba_expand ·
  hidden_size``, ``mamba_n_heads``, ``mamba_d_head``, ``mamba_d_state``, ``mamba_n_groups``,
  ``mamba_d_conv``), ``granitemoehybrid`` (``granitemoehybrid.py`` L239-310: layers whose
  ``layer_types`` is ``mamba``; the SSM dtype is not read).
- DSA (``model_config.py`` L191-212 ``is_deepseek_dsa``): a DeepSeek-family architecture with
  ``index_topk``.

A field of the wrong type or range is an error naming the file and the field.
"""

from __future__ import annotations

import math
import stat
from pathlib import Path
from typing import Any

from kdacheck import architectures, versions
from kdacheck.findings import InputError
from kdacheck.models import Family, Model, preset

MAX_CONFIG_BYTES = 1 << 20
MAX_LAYERS = 100_000

GDN_TYPES = ("qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text", "interns2_preview",
             "jet_nemotron", "jet_vlm")
MAMBA2_TYPES = ("nemotron_h", "falcon_h1", "granitemoehybrid")
# Families SGLang knows whose state kdacheck does not model yet (short conv, Mamba-1, Lightning).
STATE_NOT_MODELLED = {"lfm2": Family.MAMBA2, "lfm2_moe": Family.MAMBA2, "lfm2_vl": Family.MAMBA2, "zaya": Family.MAMBA2,
                      "mamba2": Family.MAMBA2, "mamba": Family.MAMBA2, "falcon_mamba": Family.MAMBA2,
                      "minicpm_sala": Family.LIGHTNING}

def read_json(path: Path) -> dict[str, Any]:
    """A model config.json: a regular file, at most 1 MiB, a JSON object (bounded nesting)."""
    from kdacheck.args import loads_json

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
    try:
        data = loads_json(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        field = _bad_number_field(raw)
        where = f"`{field}` " if field else ""
        raise InputError(f"{path}: model config is not valid JSON: {where}({str(e)[:120]})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: a model config.json must be a JSON object")
    return data


def _bad_number_field(raw: bytes) -> str | None:
    """The dotted name of the first field holding NaN, an infinity or a number beyond 64 bits
    (Python's json reads them; SGLang's config classes then compute nonsense), if any."""
    import json

    bad = object()
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=lambda _c: bad,
                         parse_int=lambda t: bad if len(t) > 19 else int(t))
    except (ValueError, RecursionError, UnicodeDecodeError):
        return None
    todo: list[tuple[str, Any]] = [("", doc)]
    for _ in range(100_000):  # bounded walk
        if not todo:
            return None
        name, node = todo.pop(0)
        if node is bad:
            return name
        if isinstance(node, dict):
            todo += [(f"{name}.{k}" if name else str(k), v) for k, v in node.items()]
        elif isinstance(node, list):
            todo += [(f"{name}[{i}]", v) for i, v in enumerate(node)]
    return None


def _bundles_dspark(data: dict[str, Any], path: Path) -> bool | None:
    """Whether the checkpoint carries its own DSpark draft, as SGLang 0.5.23 decides it
    (``speculative_hook.py:614-663``: a ``dspark_*`` key in the config, or a ``dspark/config.json``
    beside it). None for a Hugging Face cache snapshot: SGLang would fetch ``dspark/`` from the Hub."""
    from kdacheck.models import DSPARK_KEYS

    if any(data.get(k) is not None for k in DSPARK_KEYS):
        return True
    try:
        if (path.parent / "dspark" / "config.json").exists():
            return True
    except OSError:
        return None
    return None if "snapshots" in path.parts else False


class _Fields:
    """Typed access to one config mapping, with errors naming the file and the field."""

    def __init__(self, data: dict[str, Any], path: Path, prefix: str = "") -> None:
        self.data, self.path, self.prefix = data, path, prefix

    def int(self, key: str, default: int | None = None, low: int = 0, high: int = 1 << 31) -> int:
        value = self.data.get(key, default)
        if value is None:
            raise InputError(f"{self.path}: `{self.prefix}{key}` is missing (needed for the model's state shape)")
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InputError(f"{self.path}: `{self.prefix}{key}` must be a whole number in [{low}, {high}]")
        return value

    def opt_str(self, key: str) -> str | None:
        value = self.data.get(key)
        return value if isinstance(value, str) and len(value) < 64 else None

    def dict(self, key: str) -> dict[str, Any]:
        value = self.data.get(key)
        if not isinstance(value, dict):
            raise InputError(f"{self.path}: `{self.prefix}{key}` must be an object")
        return value

    def str_list(self, key: str) -> list[str] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or len(value) > MAX_LAYERS or not all(isinstance(x, str) for x in value):
            raise InputError(f"{self.path}: `{self.prefix}{key}` must be a list of strings")
        return value


def read(path: Path, name: str, version: str | None = None) -> Model:
    """The model a config.json describes (``name``: the launch's model path, for presets' params)."""
    data = read_json(path)
    archs = data.get("architectures")
    arch = str(archs[0])[:120] if isinstance(archs, list) and archs and isinstance(archs[0], str) else "?"
    text = data.get("text_config") if isinstance(data.get("text_config"), dict) else None
    outer = _Fields(data, path)
    inner = _Fields(text, path, "text_config.") if text is not None else outer
    model_type = (inner.opt_str("model_type") or outer.opt_str("model_type") or "").lower()
    source = f"config.json at {path}"
    base = preset(name)
    params = base.params if base else 0.0
    wbytes = base.weight_bytes_per_param if base else 2.0
    weights = _weights_from_index(path.parent)
    if weights is not None and not base:
        params, wbytes = float(weights), 1.0
        source += f"; weights {weights / 2**30:.1f} GiB from model.safetensors.index.json"
    common: dict[str, Any] = {"params": params, "weight_bytes_per_param": wbytes, "source": source,
              "mla": "kv_lora_rank" in (text or data), "dspark_draft": _bundles_dspark(data, path)}
    layers = inner.int("num_hidden_layers", outer.data.get("num_hidden_layers"), 1, MAX_LAYERS)
    kimi = model_type == "kimi_linear" or (isinstance(data.get("linear_attn_config"), dict) and "Kimi" in arch)
    if kimi:
        lin = _Fields(outer.dict("linear_attn_config"), path, "linear_attn_config.")
        heads, dim = lin.int("num_heads", low=1), lin.int("head_dim", low=1)
        kda_layers = lin.data.get("kda_layers")
        if not isinstance(kda_layers, list) or len(kda_layers) > MAX_LAYERS:
            raise InputError(f"{path}: `linear_attn_config.kda_layers` must be a list of layer numbers")
        n_lin = sum(1 for x in kda_layers if isinstance(x, int) and 1 <= x <= layers)
        return Model(name, arch, Family.KDA, layers, n_lin, heads, heads, dim, dim, lin.int("short_conv_kernel_size", 4, 1, 64),
                     **common)
    if model_type in GDN_TYPES or (model_type == "" and "linear_num_value_heads" in inner.data):
        interval = inner.int("full_attention_interval", 4, 1, MAX_LAYERS)
        n_lin = layers - layers // interval  # layer l is full attention iff (l + 1) % interval == 0
        return Model(name, arch, Family.GDN, layers, n_lin, inner.int("linear_num_key_heads", low=1),
                     inner.int("linear_num_value_heads", low=1), inner.int("linear_key_head_dim", low=1),
                     inner.int("linear_value_head_dim", low=1), inner.int("linear_conv_kernel_dim", 4, 1, 64),
                     ssm_dtype=_dtype(inner, outer), **common)
    if model_type in MAMBA2_TYPES:
        return _mamba2(model_type, inner, outer, name, arch, layers, common)
    if model_type in STATE_NOT_MODELLED and (model_type not in ("mamba", "mamba2", "falcon_mamba")
                                             or versions.at_least(version or versions.NEWEST, versions.MAMBA1_FAMILIES)):
        return Model(name, arch, STATE_NOT_MODELLED[model_type], layers, **common)
    if model_type == "bailing_hybrid" or arch.startswith("BailingMoeV"):
        return Model(name, arch, Family.LIGHTNING, layers, **common)  # KDA or lightning: not modelled
    if architectures.lookup(arch).dsa and data.get("index_topk") is not None:
        topk = outer.int("index_topk", low=1)
        kpool = outer.int("index_kpool", 1, 1, 64)
        return Model(name, arch, Family.DSA, layers, index_topk=topk, index_kpool=kpool, **common)
    return Model(name, arch, Family.OTHER, layers, **common)


def _mamba2(model_type: str, f: _Fields, outer: _Fields, name: str, arch: str, layers: int, common: dict[str, Any]) -> Model:
    if model_type == "nemotron_h":
        pattern = f.data.get("hybrid_override_pattern")
        if not isinstance(pattern, str) or not pattern or len(pattern) > MAX_LAYERS:
            raise InputError(f"{f.path}: `{f.prefix}hybrid_override_pattern` must be a string of layer kinds")
        heads, head_dim = f.int("mamba_num_heads", low=1), f.int("mamba_head_dim", low=1)
        return Model(name, arch, Family.MAMBA2, len(pattern), pattern.count("M"), f.int("n_groups", 1, 1), heads,
                     f.int("ssm_state_size", low=1), head_dim, f.int("conv_kernel", 4, 1, 64),
                     ssm_dtype=_dtype(f, outer), intermediate=heads * head_dim, **common)
    hidden = f.int("hidden_size", low=1)
    expand = f.int("mamba_expand", 2, 1, 64)
    heads = f.int("mamba_n_heads", low=1)
    if model_type == "falcon_h1":
        intermediate = f.int("mamba_d_ssm", expand * hidden, 1)
        n_lin, dtype = layers, _dtype(f, outer)  # every Falcon-H1 layer is attention and mamba
    else:  # granitemoehybrid
        intermediate = expand * hidden
        types = f.str_list("layer_types") or []
        n_lin, dtype = sum(1 for t in types if t == "mamba"), None  # GraniteMoeHybridConfig passes no dtype
    head_dim = f.int("mamba_d_head", intermediate // heads, 1)
    return Model(name, arch, Family.MAMBA2, layers, n_lin, f.int("mamba_n_groups", 1, 1), heads, f.int("mamba_d_state", low=1),
                 head_dim, f.int("mamba_d_conv", 4, 1, 64), ssm_dtype=dtype, intermediate=intermediate, **common)


def _dtype(inner: _Fields, outer: _Fields) -> str | None:
    """``mamba2_state_dtype``: ``text_config.mamba_ssm_dtype``, else ``mamba_ssm_dtype`` (mamba_utils.py L76-80)."""
    for f in (inner, outer):
        value = f.opt_str("mamba_ssm_dtype")
        if value in ("float32", "bfloat16", "float16"):
            return value
    return None


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
