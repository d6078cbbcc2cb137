"""Mamba2 (selective state space): Nemotron-H (and its Puzzle, Nano-VL and Omni wrappers, whose
``llm_config`` is a Nemotron-H config), Falcon-H1, Granite-4.0-H; and the families SGLang keeps
Mamba-style state for whose state kdacheck does not model (``Model.unmodelled``: Zaya, Inkling's
short convolutions, Mamba-1 and plain Mamba2; LFM2's short convolution is ``kdacheck.families.conv``), so the rules that
need it say "not checked".

Readers: 0.5.23 ``srt/configs/nemotron_h.py`` (the ``mamba`` layers of its layer list,
:func:`nemotron_layer_types`, which holds no MTP layer: those are read apart,
:func:`nemotron_mtp_layer_types`, for the draft; ``mamba_num_heads``, ``mamba_head_dim``, ``n_groups``,
``ssm_state_size``, ``conv_kernel`` else ``mamba_d_conv``), ``falcon_h1.py`` L211-315 (every layer; ``mamba_d_ssm``
or ``mamba_expand · hidden_size``, ``mamba_n_heads``, ``mamba_d_head``, ``mamba_d_state``,
``mamba_n_groups``, ``mamba_d_conv``), ``granitemoehybrid.py`` L239-310 (layers whose
``layer_types`` is ``mamba``; the SSM dtype is not read). State: ``Mamba2StateShape.create``.
"""

from __future__ import annotations

from typing import Any

from kdacheck import versions
from kdacheck.families.fields import MAX_LAYERS, Fields
from kdacheck.families.registry import (
    ConfigView,
    FamilySpec,
    Formulas,
    dedup_conv_scratch,
    mamba2_conv_dim,
    register,
    ssm_dtype,
    ssm_scratch,
    state_bytes,
)
from kdacheck.findings import InputError
from kdacheck.models import Family, Model

NEMOTRON = ("nemotron_h", "nemotron_h_puzzle")
# NemotronH_Nano_VL_V2_Config and its subclasses (nano_nemotron_vl.py L42-190): hybrid_arch.py
# mamba2_config returns their ``llm_config`` (model_type compared lower-cased here)
NEMOTRON_VL = ("nemotronh_nano_vl_v2", "nemotronh_nano_omni_reasoning_v3", "nemotron_h_omni")
TYPES = (*NEMOTRON, *NEMOTRON_VL, "falcon_h1", "granitemoehybrid")
# Mamba-style state SGLang keeps (hybrid_arch.py mamba2_config) that kdacheck does not model: which state
NOT_MODELLED = {
    "zaya": "Zaya's state (zaya.py)",
    "mamba2": "the Mamba2 state of a pure Mamba2 model (mamba2.py)", "mamba": "Mamba-1's state (mamba.py)",
    "falcon_mamba": "FalconMamba's Mamba-1 state (mamba.py)",
    "inkling_model": "Inkling's short-convolution state (inkling.py InklingConvStateShape)",
    "inkling_mm_model": "Inkling's short-convolution state (inkling.py InklingConvStateShape)",
}
MAMBA1 = ("mamba", "mamba2", "falcon_mamba")  # registered with SGLang from versions.MAMBA1_FAMILIES


# 0.5.23 ``configs/nemotron_h.py``: the pattern's letters (``_pattern_to_list``), the layer kinds
# ``_validate_layers_block_type`` accepts, and the list a config with neither field gets.
NEMOTRON_LETTERS = {"M": "mamba", "E": "moe", "*": "attention", "-": "mlp"}
NEMOTRON_KINDS = ("mamba", "attention", "mlp", "moe")
NEMOTRON_DEFAULT = ["mamba", "moe", "attention", "moe"]  # DEFAULT_LAYERS_BLOCK_TYPE


def nemotron_layer_types(f: Fields) -> list[str]:
    """Nemotron-H's layers as 0.5.23 ``NemotronHConfig`` derives them
    (``_resolve_layers_block_type``, ``_validate_layers_block_type``): ``layers_block_type``
    (the list transformers 5 writes) when given, else ``hybrid_override_pattern`` (a string,
    or a list, of the letters ``M * - E``), else ``["mamba", "moe", "attention", "moe"]``.
    The layer count is the list's length: ``num_hidden_layers`` is deprecated and ignored."""
    kinds = f.data.get("layers_block_type")
    if kinds is None:
        pattern = f.data.get("hybrid_override_pattern")
        if pattern is None:
            return list(NEMOTRON_DEFAULT)
        kinds = _pattern_kinds(f, "hybrid_override_pattern", pattern, lists=True)
    # transformers 5 saves its own names (linear_attention, full_attention): SGLang's class refuses them
    kinds = _checked_kinds(f, "layers_block_type", kinds)
    if not kinds:
        raise InputError(f"{f.path}: `{f.prefix}layers_block_type` names no layer")
    return kinds


NEMOTRON_MTP_DEFAULT = ["attention", "moe"]  # DEFAULT_MTP_LAYERS_BLOCK_TYPE


def nemotron_mtp_layer_types(f: Fields) -> list[str]:
    """The MTP layers a Nemotron-H config declares, as 0.5.23 ``NemotronHConfig.__init__`` reads
    them (L212-221 ``_resolve_mtp_layers_block_type``, L385-398): ``mtp_layers_block_type``
    (default ``["attention", "moe"]``), replaced by ``mtp_hybrid_override_pattern`` when it is
    unset or the default; checked only when ``num_nextn_predict_layers`` > 0, and then returned
    (else ``[]``). They are not the target's layers: its layer list is ``layers_block_type`` /
    ``hybrid_override_pattern`` alone (:func:`nemotron_layer_types`)."""
    n = f.int("num_nextn_predict_layers", 0, 0, 64)
    kinds = f.data.get("mtp_layers_block_type", list(NEMOTRON_MTP_DEFAULT))  # present and null: None, as SGLang gets it
    pattern = f.data.get("mtp_hybrid_override_pattern")
    if pattern is not None and (kinds is None or kinds == NEMOTRON_MTP_DEFAULT):
        kinds = _pattern_kinds(f, "mtp_hybrid_override_pattern", pattern, lists=False)
    if n == 0:
        return []
    if kinds is None:
        raise InputError(f"{f.path}: mtp_layers_block_type is required when num_nextn_predict_layers > 0 (SGLang 0.5.23 "
                         "NemotronHConfig refuses the config at load, nemotron_h.py L388-394)")
    return _checked_kinds(f, "mtp_layers_block_type", kinds)


def _pattern_kinds(f: Fields, key: str, pattern: Any, lists: bool) -> list[str]:
    """``NemotronHConfig._pattern_to_list``: a pattern of the letters ``M * - E`` (a string, or with
    ``lists`` a list of letters) as layer kinds, bounded and named when wrong."""
    if not isinstance(pattern, (str, list)) or (isinstance(pattern, list) and not lists) or len(pattern) > MAX_LAYERS or \
            not all(isinstance(c, str) and c in NEMOTRON_LETTERS for c in pattern):
        raise InputError(f"{f.path}: `{f.prefix}{key}`: Pattern must only contain characters "
                         "'M', '*', '-' or 'E' (0.5.23 NemotronHConfig._pattern_to_list)")
    return [NEMOTRON_LETTERS[c] for c in pattern]


def _checked_kinds(f: Fields, key: str, kinds: Any) -> list[str]:
    """``NemotronHConfig._validate_layers_block_type``: a bounded list of the kinds SGLang accepts."""
    if not isinstance(kinds, list) or len(kinds) > MAX_LAYERS:
        raise InputError(f"{f.path}: `{f.prefix}{key}` must be a list of strings")
    bad = sorted({str(k)[:40] for k in kinds if not (isinstance(k, str) and k in NEMOTRON_KINDS)})
    if bad:
        raise InputError(f"{f.path}: `{f.prefix}{key}` contains invalid types: {', '.join(bad)}. Must be one of: "
                         f"{', '.join(NEMOTRON_KINDS)} (SGLang 0.5.23 NemotronHConfig._validate_layers_block_type refuses it "
                         "with a ValueError at config load)")
    return kinds


# transformers >= 5.15 saves the hybrid layer kinds under its own names; the config classes that
# map them back (every version kdacheck knows): 0.5.23 ``configs/granitemoehybrid.py`` L29-32
# ``_to_sglang_layer_types`` (``layer_types``), ``configs/nano_nemotron_vl.py`` L33-39
# ``_nemotron_h_compatible_config`` (``layers_block_type`` and ``mtp_layers_block_type`` of a
# ``nemotron_h_omni`` config's ``llm_config`` only; NemotronHConfig itself refuses them).
TRANSFORMERS_KINDS = {"linear_attention": "mamba", "full_attention": "attention"}
GRANITE_KINDS = ("mamba", "attention")
GRANITE_LAYERS = 40  # GraniteMoeHybridConfig's num_hidden_layers default


def granite_layer_types(f: Fields, layers: int | None) -> list[str]:
    """GraniteMoeHybrid's layers as 0.5.23 ``GraniteMoeHybridConfig.__init__`` derives them
    (L185-209): ``layer_types`` with transformers' names mapped back, else every sixth layer
    attention and the rest Mamba; a list of another length or kind is SGLang's ValueError."""
    n = layers if layers is not None else GRANITE_LAYERS
    if f.data.get("layer_types") is None:
        return ["attention" if (i + 1) % 6 == 0 else "mamba" for i in range(n)]
    kinds = [TRANSFORMERS_KINDS.get(k, k) for k in f.str_list("layer_types") or []]
    if len(kinds) != n:
        raise InputError(f"{f.path}: `{f.prefix}layer_types` must have length equal to num_hidden_layers ({n}), but got "
                         f"{len(kinds)} (SGLang's GraniteMoeHybridConfig refuses it with a ValueError at config load)")
    bad = next((k for k in kinds if k not in GRANITE_KINDS), None)
    if bad is not None:
        raise InputError(f"{f.path}: `{f.prefix}layer_types`: each element must be either 'mamba' or 'attention', but got "
                         f"'{bad[:40]}' (SGLang's GraniteMoeHybridConfig refuses it with a ValueError at config load)")
    return kinds


def _omni_llm(data: dict[str, Any]) -> dict[str, Any]:
    """A ``nemotron_h_omni`` config's ``llm_config`` with transformers' layer names mapped back."""
    out = dict(data)
    for key in ("layers_block_type", "mtp_layers_block_type"):
        if isinstance(out.get(key), list):
            out[key] = [TRANSFORMERS_KINDS.get(k, k) if isinstance(k, str) else k for k in out[key]]
    return out


def read(v: ConfigView) -> Model | None:
    outer_type = (v.outer.opt_str("model_type") or "").lower()
    if outer_type in NEMOTRON_VL:
        data = v.outer.dict("llm_config")
        llm = Fields(_omni_llm(data) if outer_type == "nemotron_h_omni" else data, v.path, "llm_config.")
        return _nemotron_h(llm, llm, v.name, v.arch, v.common)
    if v.model_type in NEMOTRON:
        return _nemotron_h(v.inner, v.outer, v.name, v.arch, v.common)
    if v.model_type == "granitemoehybrid" and "mamba" not in granite_layer_types(v.inner, _given_layers(v)):
        return None  # no mamba layer: SGLang keeps no state (hybrid_arch.py mamba2_config); full attention reads it
    if v.model_type in TYPES:
        return _geometry(v.model_type, v.inner, v.outer, v.name, v.arch, v.layers, v.common)
    state = NOT_MODELLED.get(v.model_type) or NOT_MODELLED.get(outer_type)
    if state and (v.model_type not in MAMBA1 or versions.at_least(v.version, versions.MAMBA1_FAMILIES)):
        layers = v.inner.data.get("num_hidden_layers", v.outer.data.get("num_hidden_layers"))
        return Model(v.name, v.arch, Family.MAMBA2, v.layers if layers is not None else 0, unmodelled=state, **v.common)
    return None


def _given_layers(v: ConfigView) -> int | None:
    """``num_hidden_layers`` when the config gives it (else the config class's default applies)."""
    given = v.inner.data.get("num_hidden_layers", v.outer.data.get("num_hidden_layers"))
    return None if given is None else v.layers


def _nemotron_h(f: Fields, outer: Fields, name: str, arch: str, common: dict[str, Any]) -> Model:
    kinds = nemotron_layer_types(f)
    mtp = nemotron_mtp_layer_types(f)
    heads, head_dim = f.int("mamba_num_heads", low=1), f.int("mamba_head_dim", low=1)
    # conv_kernel: the config's own key, else mamba_d_conv (NemotronHConfig sets it from mamba_d_conv,
    # default 4, and the config's conv_kernel, passed on to PretrainedConfig, overwrites it)
    conv = f.int("conv_kernel", f.data.get("mamba_d_conv", 4), 1, 64)
    return Model(name, arch, Family.MAMBA2, len(kinds), kinds.count("mamba"), f.int("n_groups", 1, 1), heads,
                 f.int("ssm_state_size", low=1), head_dim, conv, ssm_dtype=ssm_dtype(f, outer), intermediate=heads * head_dim,
                 mtp_layers=tuple(mtp), **common)


def _geometry(model_type: str, f: Fields, outer: Fields, name: str, arch: str, layers: int, common: dict[str, Any]) -> Model:
    hidden = f.int("hidden_size", low=1)
    expand = f.int("mamba_expand", 2, 1, 64)
    heads = f.int("mamba_n_heads", low=1)
    if model_type == "falcon_h1":
        intermediate = f.int("mamba_d_ssm", expand * hidden, 1)
        n_lin, dtype = layers, ssm_dtype(f, outer)  # every Falcon-H1 layer is attention and mamba
    else:  # granitemoehybrid
        intermediate = expand * hidden
        types = granite_layer_types(f, layers)
        n_lin, dtype = types.count("mamba"), None  # GraniteMoeHybridConfig passes no dtype
    head_dim = f.int("mamba_d_head", intermediate // heads, 1)
    return Model(name, arch, Family.MAMBA2, layers, n_lin, f.int("mamba_n_groups", 1, 1), heads, f.int("mamba_d_state", low=1),
                 head_dim, f.int("mamba_d_conv", 4, 1, 64), ssm_dtype=dtype, intermediate=intermediate, **common)


SPEC = register(FamilySpec(
    Family.MAMBA2, label="a Mamba2 hybrid", mirrors="0.5.23 srt/configs/nemotron_h.py, falcon_h1.py, granitemoehybrid.py, mamba_utils.py Mamba2StateShape",
    read=read, model_types=TYPES + tuple(NOT_MODELLED), formulas=Formulas(mamba2_conv_dim, ssm_scratch, dedup_conv_scratch, state_bytes),
    op="mamba2_verify", example="nemotron-track-interval",
    names=r"nemotron-h|nemotron-3-(nano|super|ultra)|falcon-h1|granite-4\.\d-h|mamba",
))
