"""Model geometry: the family SGLang gives a model and what its state and scratch shapes depend on.

From a ``config.json`` (``kdacheck.model_source``: a folder, the Hugging Face cache, the bundled
index of public configs, the Hub; read by ``kdacheck.model_config`` the way SGLang's config
classes read it). An unknown model gets a family guessed from its name where one can be
(:func:`guess_family`), and says so.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Protocol

from kdacheck.geometry import Geometry


class FamilyFacts(Protocol):
    """What ``Family`` reads of its ``kdacheck.families.registry.FamilySpec`` (the registry
    imports this module, never the reverse)."""

    @property
    def label(self) -> str: ...
    @property
    def names(self) -> str: ...
    @property
    def hybrid(self) -> bool: ...
    @property
    def has_state(self) -> bool: ...


class Family(str, enum.Enum):
    """A model family as SGLang's hybrid-state code knows it, with its state-shape formulas.

    Families are decided as SGLang 0.5.23 ``srt/configs/hybrid_arch.py`` decides them (by the
    config class behind ``model_type``, the text config unwrapped). The formulas are SGLang's
    ``srt/configs/mamba_utils.py``: ``Mamba2StateShape.create`` (GDN and Mamba2: conv over
    ``I + 2·G·N`` channels, groups padded to the TP size when they do not divide it, state
    ``(H/tp, P, N)``; LFM2's short convolution passes it ``I = P = hidden_size``, ``N = 0``,
    ``H = tp``: a conv state alone) and ``KimiLinearStateShape.create`` (KDA: conv over ``3·H·D``, state
    ``(H/tp, D, D)``); ``srt/mem_cache/memory_pool.py`` ``MambaPool.SpeculativeState`` for the
    intermediates. Each member's reader, formulas and kernel op live in its module of
    ``kdacheck.families``.
    """

    KDA = "kda"  # Kimi Delta Attention: per-channel gate
    GDN = "gdn"  # Gated DeltaNet: scalar gate per head
    MAMBA2 = "mamba2"  # Mamba2 selective state space (Nemotron-H, Falcon-H1, Granite-4.0-H)
    CONV = "conv"  # short-convolution hybrids (LFM2, LFM2-MoE, LFM2-VL): a conv state only, no SSM state
    LIGHTNING = "lightning"  # lightning attention hybrids (Bailing without KDA, MiniCPM): state not modelled
    DSA = "dsa"  # DeepSeek sparse attention (HiSparse-capable), no recurrent state
    OTHER = "other"  # dense attention

    # What kdacheck knows of each member lives in its ``FamilySpec`` (kdacheck/families/), which
    # registers itself in ``FACTS`` when its module is imported: these read it there.
    @property
    def spec(self) -> FamilyFacts:
        spec = FACTS.get(self)
        if spec is None:
            raise LookupError(f"family {self.value}: no module of kdacheck/families/ registers its FamilySpec "
                              "(or kdacheck.families is not imported)")
        return spec

    @property
    def label(self) -> str:
        return self.spec.label

    @property
    def hybrid(self) -> bool:
        """A recurrent state (or LFM2's short-conv windows) with the speculative scratch kdacheck models."""
        return self.spec.hybrid

    @property
    def has_state(self) -> bool:
        """SGLang keeps mamba / linear-attention state for it (a hybrid prefix cache applies)."""
        return self.spec.has_state


FACTS: dict[Family, FamilyFacts] = {}  # filled by kdacheck.families.registry.register


@dataclass(frozen=True)
class Model:
    """A model's geometry, in SGLang's Mamba2StateShape terms: ``linear_v_heads`` H (value or
    mamba heads), ``linear_v_dim`` P, ``linear_k_dim`` N (key dim or SSM state size),
    ``linear_k_heads`` G (key heads or groups), ``intermediate`` I (GDN: H·P)."""

    name: str
    architecture: str
    family: Family
    num_layers: int
    linear_layers: int = 0  # layers with recurrent state
    linear_k_heads: int = 0
    linear_v_heads: int = 0
    linear_k_dim: int = 0
    linear_v_dim: int = 0
    conv_kernel: int = 0
    index_topk: int | None = None
    ssm_dtype: str | None = None  # from the config, only where SGLang's config class reads it
    params: float = 0.0  # total parameters
    weight_bytes_per_param: float = 2.0
    source: str = "preset"
    mla: bool = False  # multi-head latent attention (config has kv_lora_rank): SGLang's MLA backends
    index_kpool: int = 1  # DSA: index key pooling (page size 64 · index_kpool)
    # DSA: learnable attention sinks (the config's ``learnable_sink``, read truthy as SGLang's getattr does): a
    # bfloat16 KV cache and flashmla_sparse on both sides (0.5.23 overrides.py L526-534, L640-660)
    learnable_sink: bool = False
    intermediate: int = 0  # Mamba2/GDN: I of Mamba2StateShape (0: H·P)
    dspark_draft: bool | None = None  # the checkpoint bundles a DSpark draft (None: cannot tell, e.g. a preset or a Hub id)
    unmodelled: str = ""  # SGLang keeps state for it that kdacheck does not model: which state (the rules needing it are not checked)
    # Nemotron-H: the MTP layers the checkpoint declares (``mtp_layers_block_type``, when num_nextn_predict_layers > 0),
    # kept apart from the target's layers: SGLang drafts with them (NemotronHForCausalLMMTP), never counts them in the target
    mtp_layers: tuple[str, ...] = ()
    model_type: str = ""  # the config's model_type, where a reader keeps it (DeepSeek-V4 vs V4.1: deepseek_v4 / deepseek_v41)
    origin: str = ""  # where the config came from: "folder", "hf-cache", "index", "hub" (empty: a preset or --model)
    # SGLang treats it as a multimodal model with a vision tower: (vision_config.num_hidden_layers, hidden_size),
    # SGLang's defaults 24 / 1024 where absent (0.5.23 memory_hook.py L417-462 adjust_mem_fraction_for_vlm)
    vision: tuple[int, int] | None = None
    # MiniCPM-SALA: sparse minicpm4 attention layers (0.5.23 configs/minicpm.py L181-184
    # has_minicpm_sparse_attention: a sparse_config and a minicpm4 layer), which model_overrides/minicpm.py reads
    sparse_attention: bool = False
    # the widths SGLang shards per rank and the checkpoint's quantization (kdacheck.geometry; None: a preset or a guess)
    geometry: Geometry | None = None
    # Qwen4-Exp's compressed QSA indexer: the text config has ``indexer_n_heads`` (0.5.23
    # layers/attention/qsa/config.py L78-88 parse_qsa_profile); SGLang's QSA pool and indexer need it
    qsa_indexer: bool = False
    # ModelConfig.vocab_size (``hf_text_config.vocab_size``; None: the config does not say, or not read)
    vocab_size: int | None = None
    # the config's ``mlp_hidden_act`` (None: absent; Nemotron-H's config class then takes relu2)
    mlp_hidden_act: str | None = None
    # the chunk the extra-buffer prefix cache checks the page size against: ``getattr(hf_config,
    # "mamba_chunk_size", 64)`` as SGLang's config class sets it (kdacheck.model_config.mamba_chunk_size)
    mamba_chunk_size: int = 64

    def __post_init__(self) -> None:
        if not self.intermediate and self.family in (Family.GDN, Family.MAMBA2):
            object.__setattr__(self, "intermediate", self.linear_v_heads * self.linear_v_dim)

    @property
    def hybrid(self) -> bool:
        return self.family.hybrid and self.linear_layers > 0

    @property
    def keeps_state(self) -> bool:
        """SGLang keeps mamba / linear-attention state for it: a hybrid kdacheck models, or one
        whose config it read but whose state it does not model (Mamba-1, lightning, Zaya): the prefix-cache strategy and its checks apply to both."""
        return self.hybrid or (bool(self.unmodelled) and self.family.has_state)

    @property
    def weight_bytes(self) -> int:
        return int(self.params * self.weight_bytes_per_param)


ORIGINS = {"folder": "a local folder", "hf-cache": "the Hugging Face cache", "index": "the bundled index", "hub": "the Hub",
           "": "--model"}


def origin(model: Model | None, guess: Family | None) -> str:
    """Where a launch's model came from, as one word for JSON (``commands[].model_origin``):
    ``folder``, ``hf-cache``, ``index``, ``hub``, ``option`` (``--model``), ``guess`` (not read;
    a family from the name) or ``none``."""
    if model is not None:
        return model.origin or "option"
    return "guess" if guess is not None else "none"


def origin_label(model: Model | None, guess: Family | None) -> str:
    """The same, in words, for the report's header."""
    if model is not None:
        return f"from {ORIGINS.get(model.origin, model.origin)}"
    if guess is not None:
        return f"not read; guessed from the name: {guess.label}"
    return "not read"


def guess_family(name: str | None) -> Family | None:
    """The family a model name says (its ``FamilySpec.names``, tried in ``Family``'s order), or None:
    for models kdacheck has no geometry for (said so)."""
    if not name:
        return None
    low = name.lower()
    for family in Family:
        pattern = family.spec.names
        if pattern and re.search(pattern, low):
            return family
    return None
