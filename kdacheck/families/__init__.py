"""Model families, one module each (``kda``, ``gdn``, ``mamba2``, ``conv``, ``lightning``,
``dsa``, ``dense``): its config.json reader by ``model_type``, its state and scratch formulas, its kernel
op, its example (``registry.FamilySpec``).
"""

from __future__ import annotations

from kdacheck.families import conv, dense, dsa, gdn, kda, lightning, mamba2
from kdacheck.families.registry import SPECS, ConfigView, FamilySpec, Formulas, formulas, spec
from kdacheck.models import Model

# The readers' order, as SGLang's ``hybrid_arch.py`` tries its config classes: the first family
# that claims a config.json reads it; full attention claims every config, so it comes last.
ORDER: tuple[FamilySpec, ...] = (kda.SPEC, gdn.SPEC, mamba2.SPEC, conv.SPEC, lightning.SPEC, dsa.SPEC, dense.SPEC)


def read(view: ConfigView) -> Model | None:
    """The first family's reading of ``view`` that claims it."""
    for s in ORDER:
        model = s.read(view)
        if model is not None:
            return model
    return None


__all__ = ["ORDER", "SPECS", "ConfigView", "FamilySpec", "Formulas", "formulas", "read", "spec"]
