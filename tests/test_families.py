"""Every model family is one registry entry with every piece, and every architecture one entry.

A new ``Family`` member that misses its reader, formulas, kernel op (or the reason it has
none), example or rule scope fails here; so does an architecture string that leaks into
``resolve/`` or ``rules/``. Expected families of the public config.json files come from
SGLang's own classification (0.5.23 ``srt/configs/hybrid_arch.py``: the config class behind
``model_type``; ``model_config.py`` ``is_deepseek_dsa``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kdacheck import architectures, families, model_config
from kdacheck.models import Family
from kdacheck.rules import REGISTRY
from tests.helpers import lint_ok

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "data" / "models"


@pytest.mark.parametrize("family", list(Family))
def test_every_family_has_every_piece(family: Family) -> None:
    spec = families.SPECS.get(family)
    assert spec is not None, f"{family.value}: no module registers it in kdacheck/families/"
    assert spec in families.ORDER, f"{family.value}: not in families.ORDER (its reader would never run)"
    assert spec.mirrors.startswith("0.5."), "the SGLang place it follows, with its version"
    assert (spec.formulas is not None) == family.hybrid, "hybrid families bring their state and scratch formulas, others none"
    assert (spec.op is None) != (not spec.no_kernel), "a kernel op, or the reason there is none"
    assert spec.label.startswith(("a ", "an ")) and spec.label not in {s.label for s in families.ORDER if s is not spec}, \
        "its label, in the reports' words, its own"
    assert family.label == spec.label and family.hybrid == spec.hybrid and family.has_state == spec.has_state
    if family.hybrid:
        # confirmed by a kernel, or refused by its declared reason (LFM2's short conv runs no linear-attention
        # verify kernel, 0.5.23 layers/attention/linear/short_conv_backend.py): `kdacheck run` says it by name
        assert spec.op is not None or len(spec.no_kernel) > 20, "a hybrid family is confirmed by a kernel, or says why not"
        scoped = [r.code for r in REGISTRY.values() if family in r.families]
        assert scoped, f"{family.value}: no rule declares it in @rule(families=...)"
    if spec.example:
        found = sorted((ROOT / "examples" / "clean").glob(spec.example + ".*"))
        assert found, f"examples/clean/{spec.example}.* is missing"
        text = found[0].read_text()
        result = lint_ok(text, path=str(found[0]))
        assert result.resolved and all(c.model is not None and c.model.family is family for c in result.resolved), \
            f"{found[0].name} does not show {family.label}"
    else:
        assert not family.hybrid, "a hybrid family needs an example"


def test_the_readers_order_covers_every_family_and_ends_with_full_attention() -> None:
    assert {s.family for s in families.ORDER} == set(Family)
    assert len(families.ORDER) == len(set(families.ORDER))
    assert families.ORDER[-1].family is Family.OTHER


# model_types whose config decides between two families: 0.5.23 configs/bailing_hybrid.py L158
# ``use_kda = short_conv_kernel_size is not None`` (hybrid_arch.py kimi_linear_config / hybrid_lightning_config)
SPLIT = {"bailing_hybrid": {Family.KDA, Family.LIGHTNING}}


def test_model_types_are_claimed_by_one_family_only() -> None:
    seen: dict[str, set[Family]] = {}
    for s in families.ORDER:
        for t in s.model_types:
            assert t not in seen or t in SPLIT, f"model_type {t} claimed by {seen[t]} and {s.family.value}"
            seen.setdefault(t, set()).add(s.family)
    assert all(seen[t] == fams for t, fams in SPLIT.items())


@pytest.mark.parametrize(("slug", "family"), [
    ("kimi-linear-48b", Family.KDA),  # kimi_linear.py: KimiLinearConfig
    ("qwen3-next-80b", Family.GDN),  # hybrid_gdn_config: Qwen3NextConfig
    ("nemotron-3-nano", Family.MAMBA2),  # mamba2_config: NemotronHConfig
    ("deepseek-v3.2", Family.DSA),  # is_deepseek_dsa: DeepseekV32ForCausalLM with index_topk
    ("glm-5.1", Family.DSA),  # is_deepseek_dsa: GlmMoeDsaForCausalLM
    ("llama-3-8b", Family.OTHER),  # none of hybrid_arch.py's classes
    ("qwen3.6-35b-a3b", Family.GDN),  # hybrid_gdn_config: Qwen3_5MoeConfig's text config
    ("qwen3.6-27b", Family.GDN),  # hybrid_gdn_config: Qwen3_5Config's text config
    ("qwen3-coder-next", Family.GDN),  # hybrid_gdn_config: Qwen3NextConfig
    ("nemotron-3-super-120b", Family.MAMBA2),  # mamba2_config: NemotronHConfig
    ("minicpm-sala", Family.LIGHTNING),  # hybrid_lightning_config: MiniCPMHybridConfig with lightning layers
    ("falcon-h1-0.5b-instruct", Family.MAMBA2),  # mamba2_config: FalconH1Config
    ("granite-4.0-h-small", Family.MAMBA2),  # mamba2_config: GraniteMoeHybridConfig with mamba layers
])
def test_public_configs_read_to_sglangs_family(slug: str, family: Family) -> None:
    assert model_config.read(MODELS / slug / "config.json", slug).family is family


def test_architecture_names_are_registered_once_and_looked_up_with_their_prefixes() -> None:
    from kdacheck.architectures import registry

    nemo = architectures.lookup("NemotronHForCausalLM")
    assert len(nemo.overrides) == 1 and nemo.extra_buffer and nemo.has_state  # the prefix entry and the exact one, merged
    glm = architectures.lookup("Glm5NextForConditionalGeneration")  # three entries: DSA (deepseek.py), KDA's prefix, the radix list
    assert glm.dsa and glm.extra_buffer and glm.mamba_radix_cache and len(glm.overrides) == 1
    assert architectures.lookup("LlamaForCausalLM").large_draft
    none = architectures.lookup("SomethingNewForCausalLM")
    assert not none.overrides and not (none.extra_buffer or none.has_state or none.dsa)
    assert all(e.mirrors.startswith("0.5.") for es in [*registry.EXACT.values(), *registry.PREFIXES.values()] for e in es)


def test_a_second_override_for_an_architecture_composes_in_registration_order() -> None:
    """As SGLang's ``srt/arg_groups/model_overrides/`` register several functions per architecture,
    each setting its own fields: a second registration adds its override and traits, never raises."""
    from kdacheck.architectures import registry

    calls: list[str] = []
    saved = {k: list(v) for k, v in registry.EXACT.items()}
    try:
        registry.register("ComposedForCausalLM", mirrors="0.5.23 test", override=lambda r, m, g, u: calls.append("first"))
        registry.register("ComposedForCausalLM", mirrors="0.5.23 test", extra_buffer=True,
                          override=lambda r, m, g, u: calls.append("second"))
        entry = architectures.lookup("ComposedForCausalLM")
        for fn in entry.overrides:
            fn(None, None, None, True)  # type: ignore[arg-type]
        assert calls == ["first", "second"] and entry.extra_buffer
        with pytest.raises(ValueError, match="two values of launch_hook"):
            registry.register("ComposedForCausalLM", mirrors="0.5.23 test", launch_hook="a")
            registry.register("ComposedForCausalLM", mirrors="0.5.23 test", launch_hook="b")
    finally:
        registry.EXACT.clear()
        registry.EXACT.update(saved)


_ARCH_STRING = re.compile(r"""["'][A-Z][A-Za-z0-9_]*(For(CausalLM|ConditionalGeneration)|V[0-9])|startswith\(["'][A-Z]""")


def test_no_architecture_string_outside_the_registry() -> None:
    bad = []
    for folder in ("resolve", "rules"):
        for p in (ROOT / "kdacheck" / folder).glob("*.py"):
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
                if _ARCH_STRING.search(line.split("#", 1)[0]):
                    bad.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not bad, bad


def test_model001_lists_only_the_rules_a_guessed_family_can_have() -> None:
    spec = " --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
    mamba = lint_ok("python -m sglang.launch_server --model-path acme/nemotron-h-private-9b" + spec).resolved[0]
    assert mamba.model_guess is Family.MAMBA2
    kda_only = {r.code for r in REGISTRY.values() if r.families == (Family.KDA,)}
    assert kda_only and not kda_only & set(mamba.not_checked)
    assert "KDA001" in mamba.not_checked  # the verify scratch check covers every hybrid
    dense = lint_ok("python -m sglang.launch_server --model-path acme/llama-private-8b" + spec).resolved[0]
    # the build-time checks (KDA007, BUILD001-003, BUILD005: kdacheck/geometry.py and the quantization) apply to every architecture: an unread dense model leaves them unchecked
    assert dense.model_guess is Family.OTHER and dense.not_checked == ["BUILD001", "BUILD002", "BUILD003", "BUILD005", "KDA007"]
    unknown = lint_ok("python -m sglang.launch_server --model-path acme/private-model" + spec).resolved[0]
    assert unknown.model_guess is None and kda_only <= set(unknown.not_checked)  # no guess: every rule said out loud


def test_each_family_names_a_registered_kernel_op_or_is_refused_by_name() -> None:
    from kdacheck.kernels import ops

    from kdacheck.runner import plan_from_options

    names = {op.name for op in ops.OPS}
    for s in families.ORDER:
        assert s.op is None or s.op in names, f"{s.family.value}: op {s.op} is not in kernels/ops.py"
    plan = plan_from_options(3, 1, None, None, "llama-3-8b", 1, None, None, True)  # full attention: no verify scratch
    assert not plan.cases and (plan.nothing or "").startswith("nothing to run for a model without hybrid state")
