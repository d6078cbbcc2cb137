"""Per-architecture knowledge, by architecture name, as SGLang keeps it.

Shaped like SGLang's ``srt/arg_groups/model_overrides/`` (one module per model, each override
registered for the ``architectures[0]`` names it covers) and the architecture lists of
``srt/arg_groups/overrides.py`` and ``srt/configs/model_config.py``: each module here
registers its names with :func:`architecture`, giving the traits SGLang attaches to them and,
where SGLang has one, the override it applies while resolving (backend, page size, radix
strategy). Nothing outside this package compares an architecture string: the resolution
steps and rules ask :func:`lookup`.

A name is matched exactly, else by a registered prefix (``NemotronH`` covers the Nemotron-H
variants, as kdacheck matched them before the registry); the traits of every matching entry
are merged, and their overrides composed in registration order (SGLang's ``model_overrides/``
register several functions per architecture, each setting its own fields; a name registered by
two modules here gets both). ``mamba_radix_cache`` is SGLang's ``_MAMBA_RADIX_CACHE_ARCHS``.
"""

from __future__ import annotations

# The modules register on import, in no particular order (names are disjoint; tests check it).
from kdacheck.architectures import deepseek, hybrids, kimi_linear, llama, nemotron_h, qwen3_5  # noqa: F401
from kdacheck.architectures.registry import (
    UNKNOWN_ARCHITECTURE,
    Architecture,
    architecture,
    capture_hooks,
    exact_with,
    lookup,
    register,
    unknown,
    uses_mamba_radix_cache,
    without_mamba_state,
)

__all__ = ["UNKNOWN_ARCHITECTURE", "Architecture", "architecture", "capture_hooks", "exact_with", "lookup", "register", "unknown", "uses_mamba_radix_cache", "without_mamba_state"]
