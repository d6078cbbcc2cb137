"""Short-convolution hybrids: LFM2, LFM2-MoE and LFM2-VL (its ``text_config``). Their state is
a short convolution's window on each ``conv`` layer and no SSM state.

Readers: 0.5.23 ``srt/configs/lfm2.py`` L46-99, ``lfm2_moe.py`` L34-86 and ``lfm2_vl.py``
L47-104 (``text_config``): the state layers are the ``conv`` / ``short_conv`` entries of
``layer_types`` (``linear_layer_ids``), and ``mamba2_cache_params`` calls
``Mamba2StateShape.create(intermediate_size=hidden_size, n_groups=1, num_heads=tp,
head_dim=hidden_size, state_size=0, conv_kernel=conv_L_cache)``: a conv state of
``[hidden_size / tp, conv_L_cache − 1]`` per layer and a temporal state ``[1, hidden_size, 0]``
with no element (``mamba_utils.py`` L195-244; ``mamba_cache_per_req`` L115-125). Only ``Lfm2Config`` passes the config's
``mamba_ssm_dtype`` (``mamba2_state_dtype(self)``); LFM2-MoE and LFM2-VL take the default.
Where a field is absent, transformers' config class gives its default (``hidden_size`` 2560 for
LFM2, 2048 for LFM2-MoE; ``conv_L_cache`` 3; LFM2 without ``layer_types`` derives them from
``full_attn_idxs``, every layer full attention when that is absent too; LFM2-MoE without
``layer_types`` has no state layer).

The verify writes the conv windows only (``srt/layers/attention/linear/short_conv_backend.py``:
the model runs its own ``causal_conv1d`` against the pool; no linear-attention verify kernel
runs), so ``kdacheck run`` has no case for it. Its scratch is ``MambaPool.SpeculativeState``'s
(``srt/mem_cache/memory_pool.py`` L864-977, the deduplicated layout L598-636): ``intermediate_ssm`` of the empty temporal shape (0
bytes) and the conv windows, deduplicated for a chain (``disable_conv_window_dedup`` is False for
``Mamba2StateShape``).
"""

from __future__ import annotations

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

TYPES = ("lfm2", "lfm2_moe", "lfm2_vl")
HIDDEN_DEFAULT = {"lfm2": 2560, "lfm2_moe": 2048}  # transformers' Lfm2Config / Lfm2MoeConfig defaults
STATE_LAYERS = ("conv", "short_conv")  # linear_layer_ids


def layer_types(f: Fields, model_type: str) -> list[str]:
    """``layer_types`` as transformers' config class leaves it: given, else (LFM2) from
    ``full_attn_idxs`` (every layer full attention when absent), else (LFM2-MoE) none."""
    kinds = f.str_list("layer_types")
    if kinds is not None:
        return kinds
    if model_type == "lfm2_moe":
        return []
    layers = f.int("num_hidden_layers", 32, 1, MAX_LAYERS)
    full = f.data.get("full_attn_idxs")
    if full is None:
        return ["full_attention"] * layers
    if not isinstance(full, list) or len(full) > MAX_LAYERS or not all(isinstance(i, int) and not isinstance(i, bool) for i in full):
        raise InputError(f"{f.path}: `{f.prefix}full_attn_idxs` must be a list of layer numbers")
    chosen = set(full)
    return ["full_attention" if i in chosen else "conv" for i in range(layers)]


def read(v: ConfigView) -> Model | None:
    outer_type = (v.outer.opt_str("model_type") or "").lower()
    if v.model_type not in TYPES and outer_type != "lfm2_vl":
        return None
    f = v.inner
    kind = v.model_type if v.model_type in HIDDEN_DEFAULT else "lfm2"  # an LFM2-VL text config is an Lfm2Config by default
    kinds = layer_types(f, kind)
    n_conv = sum(1 for k in kinds if k in STATE_LAYERS)
    layers = len(kinds) or f.int("num_hidden_layers", 32, 1, MAX_LAYERS)
    if not n_conv:
        return Model(v.name, v.arch, Family.CONV, layers, unmodelled="an LFM2 config with no conv layer in `layer_types`, for which "
                     "SGLang's mamba2_cache_params is None (lfm2.py L67-69)", **v.common)
    hidden = f.int("hidden_size", HIDDEN_DEFAULT[kind], 1)
    conv = f.int("conv_L_cache", 3, 1, 64)
    # Lfm2Config passes mamba2_state_dtype(self); Lfm2MoeConfig and Lfm2VlConfig the default (no config field read)
    dtype = ssm_dtype(f, v.outer) if v.model_type == "lfm2" and outer_type != "lfm2_vl" else None
    # Mamba2StateShape terms: G = 1, H = attention TP (formulas.heads), P = I = hidden_size, N = 0
    return Model(v.name, v.arch, Family.CONV, layers, n_conv, 1, 1, 0, hidden, conv, ssm_dtype=dtype, intermediate=hidden,
                 **v.common)


def heads(m: Model, tp: int) -> int:
    """``divide(num_heads, tp)`` with ``num_heads = tp``: one (empty) temporal head per rank."""
    return 1 if tp > 0 else 0


SPEC = register(FamilySpec(
    Family.CONV, label="a short-conv hybrid", mirrors="0.5.23 srt/configs/lfm2.py, lfm2_moe.py, lfm2_vl.py, mamba_utils.py Mamba2StateShape",
    read=read, model_types=TYPES,
    formulas=Formulas(mamba2_conv_dim, ssm_scratch, dedup_conv_scratch, state_bytes, heads),
    no_kernel="kdacheck models no short-convolution verify kernel: SGLang's LFM2 verify runs the model's own causal_conv1d "
              "on the conv windows (short_conv_backend.py), and no linear-attention verify kernel",
    example="lfm2-triton",
))
