"""``kdacheck lint --sglang``: SGLang's own argument resolution as a self-check.

SGLang has no dry-run mode; this is one. Where SGLang is importable (a GPU node, the SGLang
container image, or a CPU machine with ``--gpu`` naming the device to simulate), the launch
line runs through SGLang's real parser and resolution (``prepare_server_args``,
``resolve_once``, ``check_server_args``) in a subprocess (``kdacheck.sglang.child``): no
weights, no GPU memory, a few seconds. The result is attached to the resolved configuration;
the SGLANG rules report SGLang's own refusal and every field where SGLang and kdacheck differ.

Nothing here imports SGLang or torch in kdacheck's own process.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from kdacheck.findings import InputError

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_S = 300
OUTPUT_LIMIT = 1 << 20

# SGLang ServerArgs field → kdacheck's resolved name, for the fields both resolve.
FIELDS = {
    "speculative_algorithm": "speculative_algorithm",
    "speculative_num_steps": "steps",
    "speculative_eagle_topk": "topk",
    "speculative_num_draft_tokens": "draft_tokens",
    "tp_size": "tp_size",
    "dp_size": "dp_size",
    "attn_dp_size": "attn_dp_size",
    "page_size": "page_size",
    "max_running_requests": "max_running_requests",
    "attention_backend": "attention_backend",
    "linear_attn_decode_backend": "decode_backend",
    "linear_attn_verify_backend": "verify_backend",
    "mamba_radix_cache_strategy": "mamba_radix_cache_strategy",
    "disable_radix_cache": "disable_radix_cache",
    "disable_overlap_schedule": "disable_overlap_schedule",
    "mamba_ssm_dtype": "ssm_dtype",
    "mem_fraction_static": "mem_fraction_static",
    "chunked_prefill_size": "chunked_prefill_size",
    "cuda_graph_config.decode.max_bs": "decode_graph_max_bs",
    "kv_cache_dtype": "kv_cache_dtype",
    "disaggregation_mode": "disaggregation_mode",
}
# Fields SGLang resolves only for hybrid (linear-attention) models.
HYBRID_FIELDS = ("linear_attn_decode_backend", "linear_attn_verify_backend", "mamba_ssm_dtype", "mamba_radix_cache_strategy")


def effective(resolved: dict[str, Any], name: str) -> Any:
    """A field as SGLang's kernels read it: an unset linear-attention decode backend falls back
    to ``linear_attn_backend``, an unset verify backend is flashinfer after a flashinfer decode
    backend and triton otherwise (0.5.23 ``layers/attention/linear/utils.py`` L90-99)."""
    value = resolved.get(name)
    if value is None and name == "linear_attn_decode_backend":
        return resolved.get("linear_attn_backend")
    if value is None and name == "linear_attn_verify_backend":
        return "flashinfer" if effective(resolved, "linear_attn_decode_backend") == "flashinfer" else "triton"
    if name == "speculative_algorithm" and isinstance(value, str):
        return value.upper().replace("NEXTN", "EAGLE")
    return value


def differences(resolved: dict[str, Any], ours: dict[str, Any], hybrid: bool) -> list[tuple[str, Any, Any]]:
    """(SGLang field, SGLang's value, kdacheck's value) for every shared field that differs.
    ``ours`` maps kdacheck's names to its values (those it resolved)."""
    out = []
    for field, name in FIELDS.items():
        if field not in resolved or name not in ours or (field in HYBRID_FIELDS and not hybrid):
            continue
        want = effective(resolved, field)
        if (want is None and field in HYBRID_FIELDS) or ours[name] is None:
            continue  # decided later (from the model config), or not known to kdacheck (no --gpu)
        if want != ours[name]:
            out.append((field, want, ours[name]))
    return out


def importable(python: str) -> str | None:
    """SGLang's version where ``python`` imports it, else None (a subprocess: nothing here)."""
    import subprocess

    try:
        p = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('sglang'))"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.strip() or None if p.returncode == 0 else None


def run(argv: list[str], gpu: str | None, python: str | None = None) -> dict[str, Any]:
    """SGLang's verdict on ``argv`` (no program name): the child's JSON result.

    Raises InputError when SGLang cannot be run here; a simulation failure comes back as
    ``verdict: harness_error``.
    """
    import json
    import subprocess

    python = python or sys.executable
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(HERE))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if gpu is not None:
        env["PATH"] = HERE + os.pathsep + env.get("PATH", "")  # the nvidia-smi stand-in, when simulated
    try:
        p = subprocess.run([python, "-m", "kdacheck.sglang.child"], input=json.dumps({"argv": argv, "gpu": gpu}),
                           capture_output=True, text=True, timeout=TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise InputError(f"--sglang: SGLang's resolution did not finish within {TIMEOUT_S} s") from None
    except OSError as e:
        raise InputError(f"--sglang: cannot run {python}: {e.strerror or e}") from None
    last = p.stdout[-OUTPUT_LIMIT:].strip().splitlines()[-1:] if p.stdout else []
    try:
        result = json.loads(last[0]) if last else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        tail = (p.stderr or "").strip().splitlines()[-1:] or ["no output"]
        raise InputError(f"--sglang: SGLang's resolution failed to report ({tail[0][:200]})")
    return result
