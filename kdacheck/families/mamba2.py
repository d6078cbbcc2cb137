"""Mamba2 (selective state space): Nemotron-H, Falcon-H1, Granite-4.0-H; and the families
SGLang keeps Mamba-style state for whose geometry kdacheck does not read yet (LFM2's short
convolution, Zaya, Mamba-1 and plain Mamba2).

Readers: 0.5.23 ``srt/configs/nemotron_h.py`` L409-439 (``M`` layers of
``hybrid_override_pattern``, ``mamba_num_heads``, ``mamba_head_dim``, ``n_groups``,
``ssm_state_size``, ``conv_kernel``), ``falcon_h1.py`` L211-315 (every layer; ``mamba_d_ssm``
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

TYPES = ("nemotron_h", "falcon_h1", "granitemoehybrid")
# Mamba-style state SGLang keeps whose geometry kdacheck does not read (short conv, Mamba-1).
NOT_MODELLED = ("lfm2", "lfm2_moe", "lfm2_vl", "zaya", "mamba2", "mamba", "falcon_mamba")
MAMBA1 = ("mamba", "mamba2", "falcon_mamba")  # registered with SGLang from versions.MAMBA1_FAMILIES


def read(v: ConfigView) -> Model | None:
    if v.model_type in TYPES:
        return _geometry(v.model_type, v.inner, v.outer, v.name, v.arch, v.layers, v.common)
    if v.model_type in NOT_MODELLED and (v.model_type not in MAMBA1 or versions.at_least(v.version, versions.MAMBA1_FAMILIES)):
        return Model(v.name, v.arch, Family.MAMBA2, v.layers, **v.common)
    return None


def _geometry(model_type: str, f: Fields, outer: Fields, name: str, arch: str, layers: int, common: dict[str, Any]) -> Model:
    if model_type == "nemotron_h":
        pattern = f.data.get("hybrid_override_pattern")
        if not isinstance(pattern, str) or not pattern or len(pattern) > MAX_LAYERS:
            raise InputError(f"{f.path}: `{f.prefix}hybrid_override_pattern` must be a string of layer kinds")
        heads, head_dim = f.int("mamba_num_heads", low=1), f.int("mamba_head_dim", low=1)
        return Model(name, arch, Family.MAMBA2, len(pattern), pattern.count("M"), f.int("n_groups", 1, 1), heads,
                     f.int("ssm_state_size", low=1), head_dim, f.int("conv_kernel", 4, 1, 64),
                     ssm_dtype=ssm_dtype(f, outer), intermediate=heads * head_dim, **common)
    hidden = f.int("hidden_size", low=1)
    expand = f.int("mamba_expand", 2, 1, 64)
    heads = f.int("mamba_n_heads", low=1)
    if model_type == "falcon_h1":
        intermediate = f.int("mamba_d_ssm", expand * hidden, 1)
        n_lin, dtype = layers, ssm_dtype(f, outer)  # every Falcon-H1 layer is attention and mamba
    else:  # granitemoehybrid
        intermediate = expand * hidden
        types = f.str_list("layer_types") or []
        n_lin, dtype = sum(1 for t in types if t == "mamba"), None  # GraniteMoeHybridConfig passes no dtype
    head_dim = f.int("mamba_d_head", intermediate // heads, 1)
    return Model(name, arch, Family.MAMBA2, layers, n_lin, f.int("mamba_n_groups", 1, 1), heads, f.int("mamba_d_state", low=1),
                 head_dim, f.int("mamba_d_conv", 4, 1, 64), ssm_dtype=dtype, intermediate=intermediate, **common)


SPEC = register(FamilySpec(
    Family.MAMBA2, mirrors="0.5.23 srt/configs/nemotron_h.py, falcon_h1.py, granitemoehybrid.py, mamba_utils.py Mamba2StateShape",
    read=read, model_types=TYPES + NOT_MODELLED, formulas=Formulas(mamba2_conv_dim, ssm_scratch, dedup_conv_scratch, state_bytes),
    op="mamba2_verify", example="nemotron-track-interval",
))
