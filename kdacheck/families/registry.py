"""The family registry: one :class:`FamilySpec` per ``models.Family``, registered by its module.

A family brings what SGLang's hybrid-state code knows of it: the config.json ``model_type``
values its config classes claim (0.5.23 ``srt/configs/hybrid_arch.py``) and the reader of
their geometry, the state and scratch formulas (``srt/configs/mamba_utils.py``,
``srt/mem_cache/memory_pool.py`` ``MambaPool.SpeculativeState``), the kernel op ``kdacheck
run`` confirms it with (or why there is none), and the example pair that shows it.
The readers' order is ``kdacheck.families.ORDER``; ``tests/test_families.py`` walks every member of ``Family`` and fails when a piece is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kdacheck.dtypes import SSM_DTYPES
from kdacheck.families.fields import MAX_LAYERS
from kdacheck.models import FACTS, Family, Model

if TYPE_CHECKING:
    from kdacheck.families.fields import Fields

# Plain NamedTuples, not dataclasses: they are built at import on lint's start-up path, where
# each dataclass costs a generated __init__/__eq__/__repr__.


class ConfigView(NamedTuple):
    """One config.json as a reader sees it: the outer mapping, the text config (the outer one
    when there is none), the architecture, the ``model_type`` and what every model carries."""

    path: Path
    name: str  # the launch's model path
    arch: str
    model_type: str
    data: dict[str, Any]
    outer: Fields
    inner: Fields
    version: str
    common: dict[str, Any]  # params, weights, source, mla, dspark_draft

    @property
    def layers(self) -> int:
        """``num_hidden_layers`` (the text config's, else the outer one's), checked where a
        reader asks for it: Nemotron-H derives its layer count from its layer list instead
        (0.5.23 ``configs/nemotron_h.py``: ``num_hidden_layers`` is deprecated and ignored)."""
        return self.inner.int("num_hidden_layers", self.outer.data.get("num_hidden_layers"), 1, MAX_LAYERS)


def value_heads(m: Model, tp: int) -> int:
    """The temporal state's heads per rank, ``H / tp`` (``Mamba2StateShape.create``:
    ``divide(num_heads, tp_world_size)``; KDA likewise)."""
    return m.linear_v_heads // tp if tp > 0 else 0


class Formulas(NamedTuple):
    """The state and scratch shapes SGLang allocates for a family (per attention-TP rank)."""

    conv_dim: Callable[[Model, int], int]  # channels of the short convolution, all ranks, at attention TP ``tp``
    ssm_scratch_shape: Callable[[int, int, int, int, Model], tuple[list[int], str]]  # (L, R + 1, D_max, H/tp, m)
    conv_scratch_shape: Callable[[int, int, int, int, int, Model], tuple[list[int], str]]  # (L, R + 1, D_max, ch/tp, topk, m)
    state_bytes: Callable[[int, int, int, int, Model], int]  # (L, H/tp, ch/tp, SSM bytes, m): one request's state
    heads: Callable[[Model, int], int] = value_heads  # (m, attention TP): the temporal state's heads per rank (HV)


class FamilySpec(NamedTuple):
    """Everything kdacheck knows of one family (``Family.label`` / ``hybrid`` / ``has_state``
    read it here)."""

    family: Family
    label: str  # the family in the reports' words ("a KDA hybrid"): headers, refusals, MODEL001
    mirrors: str  # the SGLang places the family follows
    read: Callable[[ConfigView], Model | None]  # the geometry of a config it claims, else None
    model_types: tuple[str, ...] = ()  # the config.json model_type values it claims (documentation and tests)
    formulas: Formulas | None = None  # None: no state kdacheck models
    op: str | None = None  # the kernel op (kdacheck.kernels) `kdacheck run` confirms it with
    no_kernel: str = ""  # with op None: why `kdacheck run` has nothing to run (said by name, exit 2)
    example: str = ""  # examples/clean/<stem>.* showing the family
    # a regular expression over a lower-cased model name that guesses this family for a model whose config is not
    # read (models.guess_family: tried in Family's order, said as a guess); "" for none
    names: str = ""
    unmodelled_state: bool = False  # SGLang keeps state for it that kdacheck does not model (lightning)

    @property
    def hybrid(self) -> bool:
        """A recurrent state (or LFM2's short-conv windows) with the speculative scratch kdacheck models: its formulas."""
        return self.formulas is not None

    @property
    def has_state(self) -> bool:
        """SGLang keeps mamba / linear-attention state for it (a hybrid prefix cache applies)."""
        return self.hybrid or self.unmodelled_state


SPECS: dict[Family, FamilySpec] = {}


def register(spec: FamilySpec) -> FamilySpec:
    if spec.family in SPECS:
        raise ValueError(f"family {spec.family.value} registered twice")
    if not spec.label:
        raise ValueError(f"family {spec.family.value}: give its label (the reports' words for it)")
    if spec.op is None and not spec.no_kernel:
        raise ValueError(f"family {spec.family.value}: name its kernel op, or say why it has none (no_kernel)")
    SPECS[spec.family] = FACTS[spec.family] = spec
    return spec


def spec(family: Family) -> FamilySpec:
    return SPECS[family]


def formulas(family: Family) -> Formulas:
    f = SPECS[family].formulas
    if f is None:
        raise ValueError(f"{family.label} has no state kdacheck models")
    return f


def ssm_dtype(inner: Fields, outer: Fields) -> str | None:
    """``mamba2_state_dtype``: ``text_config.mamba_ssm_dtype``, else ``mamba_ssm_dtype``
    (0.5.23 ``mamba_utils.py`` L76-80), where the family's config class reads it."""
    for f in (inner, outer):
        value = f.opt_str("mamba_ssm_dtype")
        if value in SSM_DTYPES:
            return value
    return None


# --- the Mamba2StateShape formulas GDN and Mamba2 share (mamba_utils.py) ----------------------


def groups(m: Model, tp: int) -> int:
    """``n_groups`` after ``extra_groups_for_head_shards`` (mamba_utils.py L29-38, L218-221)."""
    g = m.linear_k_heads
    return g if tp <= 0 or g % tp == 0 else tp


def mamba2_conv_dim(m: Model, tp: int) -> int:
    """``I + 2·G·N`` channels (``Mamba2StateShape.create``)."""
    return m.intermediate + 2 * groups(m, tp) * m.linear_k_dim


def ssm_scratch(layers: int, rows: int, width: int, heads: int, m: Model) -> tuple[list[int], str]:
    """``intermediate_ssm``: [L, R + 1, D_max, H/tp, P, N] (KDA: P = N = head dim)."""
    return [layers, rows, width, heads, m.linear_v_dim, m.linear_k_dim], "[L, R + 1, D_max, H/tp, P, N]"


def dedup_conv_scratch(layers: int, rows: int, width: int, channels: int, topk: int, m: Model) -> tuple[list[int], str]:
    """``intermediate_conv_window`` of a family SGLang deduplicates for chains
    (``conv_window_dedup_enabled``: each window stored once); dense per draft token for trees."""
    if topk > 1:
        return [layers, rows, width, channels, m.conv_kernel - 1], "[L, R + 1, D_max, conv_dim / tp, Kc − 1] (dense, tree)"
    return [layers, rows, channels, width + m.conv_kernel - 2], "[L, R + 1, conv_dim / tp, D_max + Kc − 2] (deduplicated chain)"


def state_bytes(layers: int, heads: int, channels: int, ssm_bytes: int, m: Model) -> int:
    """One request's SSM + conv state, all linear layers of the rank (conv state bfloat16;
    ``mamba_cache_per_req``, mamba_utils.py L115-125)."""
    return layers * (heads * m.linear_v_dim * m.linear_k_dim * ssm_bytes + (m.conv_kernel - 1) * channels * 2)
