"""kdacheck against SGLang's own verdicts and resolved values (tests/data/sglang-golden).

The floors are the agreement measured when the goldens landed (docs/fidelity.md); they only
go up. A fix that closes a mismatch class raises them; a change that loses agreement fails here.
"""

from __future__ import annotations

import pytest

from tests.sglang_golden import GOLDEN, compare

# version → (verdict agreement, {field: agreement}) floors, measured 2026-12-01
FLOORS = {
    "0.5.23": (
        1.0,
        {
            "speculative_algorithm": 1.0,
            "speculative_num_steps": 1.0,
            "speculative_eagle_topk": 1.0,
            "speculative_num_draft_tokens": 1.0,
            "tp_size": 1.0,
            "dp_size": 1.0,
            "attn_dp_size": 1.0,
            "page_size": 0.988,
            "max_running_requests": 1.0,
            "attention_backend": 0.991,
            "disable_radix_cache": 1.0,
            "mem_fraction_static": 0.988,
            "chunked_prefill_size": 1.0,
            "cuda_graph_config.decode.max_bs": 1.0,
            "kv_cache_dtype": 0.997,
            "disaggregation_mode": 1.0,
            "linear_attn_decode_backend": 1.0,
            "linear_attn_verify_backend": 1.0,
            "mamba_radix_cache_strategy": 0.994,
            "disable_overlap_schedule": 1.0,
            "mamba_ssm_dtype": 1.0,
        },
    ),
    "0.5.21": (
        0.998,
        {
            "speculative_algorithm": 1.0,
            "speculative_num_steps": 1.0,
            "speculative_eagle_topk": 1.0,
            "speculative_num_draft_tokens": 1.0,
            "tp_size": 1.0,
            "dp_size": 1.0,
            "page_size": 0.974,
            "max_running_requests": 1.0,
            "attention_backend": 0.98,
            "disable_radix_cache": 1.0,
            "mem_fraction_static": 0.963,
            "chunked_prefill_size": 1.0,
            "cuda_graph_config.decode.max_bs": 1.0,
            "kv_cache_dtype": 0.994,
            "disaggregation_mode": 1.0,
            "linear_attn_decode_backend": 1.0,
            "linear_attn_verify_backend": 1.0,
            "mamba_radix_cache_strategy": 1.0,
            "disable_overlap_schedule": 1.0,
            "mamba_ssm_dtype": 1.0,
        },
    ),
}


# sglang.<field> values that hold SGLang's own (null, raw or fallback) value, not kdacheck's effective one
EXACT_LAYER_FIELDS = (
    "linear_attn_decode_backend", "linear_attn_verify_backend", "mamba_ssm_dtype", "mamba_full_memory_ratio",
    "kv_cache_dtype", "cuda_graph_config.decode.max_bs", "dsa_prefill_backend", "dsa_decode_backend",
    "speculative_dspark_block_size", "disable_overlap_schedule",
)

# every sglang.<field> of the resolved view (0.5.21: mem_fraction_static 96.6 %, its field floor above)
LAYER_FLOORS = {"0.5.23": 0.98, "0.5.21": 0.96}

# where both refuse, the share of cases whose kdacheck errors include SGLang's cause
CAUSE_FLOORS = {"0.5.23": 0.97, "0.5.21": 0.98}


@pytest.mark.parametrize("version", sorted(FLOORS))
def test_agreement_with_sglang_never_drops(version: str) -> None:
    if not (GOLDEN / f"{version}.jsonl").is_file():
        pytest.skip(f"no golden file for {version}")
    c = compare(version)
    assert c.cases >= 500
    floor, fields = FLOORS[version]
    assert c.verdict_agreement >= floor, (round(c.verdict_agreement, 4), c.mismatches[:5])
    assert c.cause_agreement >= CAUSE_FLOORS[version], (round(c.cause_agreement, 4), dict(c.cause_missed), dict(c.cause_unmapped))
    for name, want in fields.items():
        assert c.field_agreement(name) >= want, (name, c.field_agreement(name))
    # The resolved view's sglang.<field> layer is SGLang's resolved_dict(): the fields SGLang
    # leaves null or raw, and its fallbacks, equal on every case SGLang starts; every field at its floor.
    for name in EXACT_LAYER_FIELDS:
        if c.layer_total[name]:
            assert c.layer_agreement(name) == 1.0, (name, [m for m in c.layer_mismatches if m[1] == name][:3])
    for name in c.layer_total:
        assert c.layer_agreement(name) >= LAYER_FLOORS[version], (name, c.layer_agreement(name), [m for m in c.layer_mismatches if m[1] == name][:3])


def test_a_refusal_sglang_raises_is_an_error_here() -> None:
    """Cases SGLang refuses that kdacheck now reports (the classes fixed with the goldens)."""
    from tests.sglang_golden import lint_case

    base = {"sglang_version": "0.5.23", "gpu": "h200", "model": "kimi-linear-48b"}
    for argv, code in (
        (["--model-path", "kimi-linear-48b", "--tp-size", "2", "--attn-dp-size", "4"], "PAR001"),
        (["--model-path", "kimi-linear-48b", "--tp-size", "4", "--dp-size", "2", "--attn-dp-size", "2"], "PAR002"),
        (["--model-path", "kimi-linear-48b", "--linear-attn-decode-backend", "flashkda"], "KDA010"),
        (["--model-path", "llama-3-8b", "--mamba-radix-cache-strategy", "extra_buffer"], "RADIX003"),
    ):
        _cfg, errors = lint_case({**base, "argv": argv, "model": argv[1]})
        assert code in errors, (argv, errors)
    # --dp-size N --enable-dp-attention is attention DP N with one replica: no PAR002
    cfg, errors = lint_case(
        {**base, "argv": ["--model-path", "kimi-linear-48b", "--tp-size", "4", "--dp-size", "2", "--enable-dp-attention"]}
    )
    assert "PAR002" not in errors and cfg is not None
    assert (cfg.v("attn_dp_size"), cfg.v("dp_size")) == (2, 1)
