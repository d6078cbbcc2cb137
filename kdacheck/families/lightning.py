"""Lightning-attention hybrids (Bailing without KDA, MiniCPM-SALA): SGLang keeps their state
(0.5.23 ``srt/configs/hybrid_arch.py`` ``hybrid_lightning_config``); kdacheck does not model
it yet, so the rules that need the geometry say "not checked" and ``kdacheck run`` has no
kernel for it."""

from __future__ import annotations

from kdacheck.families.registry import ConfigView, FamilySpec, register
from kdacheck.models import Family, Model

TYPES = ("minicpm_sala", "bailing_hybrid")


def read(v: ConfigView) -> Model | None:
    """Bailing without KDA (the KDA reader claims the others: ``bailing_hybrid.py``
    ``use_kda``), and MiniCPM hybrids with a ``lightning-attn`` layer among ``mixer_types``
    (``minicpm.py`` L187-189 ``has_lightning_layers``; without one SGLang keeps no state)."""
    if v.model_type == "bailing_hybrid":
        return Model(v.name, v.arch, Family.LIGHTNING, v.layers, unmodelled="the lightning-attention state (bailing_hybrid.py)",
                     **v.common)
    if v.model_type != "minicpm_sala":
        return None
    # configs/minicpm.py L6-15 _MIXER_TYPE_ALIASES, L93-104: the spellings it accepts, ["minicpm4"] when none
    mixers = [MIXER_ALIASES.get(t, t) for t in (v.inner.str_list("mixer_types") or ["minicpm4"])]
    if "lightning-attn" not in mixers:
        return None
    sparse = v.inner.data.get("sparse_config") is not None and "minicpm4" in mixers
    return Model(v.name, v.arch, Family.LIGHTNING, v.layers, unmodelled="the lightning-attention state (minicpm.py)",
                 sparse_attention=sparse, **v.common)


MIXER_ALIASES = {"minicpm": "minicpm4", "standard": "minicpm4", "attention": "minicpm4", "attn": "minicpm4",
                 "lightning": "lightning-attn", "lightning_attn": "lightning-attn"}


SPEC = register(FamilySpec(
    Family.LIGHTNING, label="a Lightning hybrid", mirrors="0.5.23 srt/configs/hybrid_arch.py hybrid_lightning_config", read=read, model_types=TYPES,
    no_kernel="kdacheck has no lightning-attention verify kernel (its state is not modelled yet)", unmodelled_state=True,
))
