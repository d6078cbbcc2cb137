"""``kdacheck lint --sglang``: SGLang's own argument resolution as a self-check.

SGLang has no dry-run mode; this is one. Where SGLang is importable (a GPU node, the SGLang
container image, or a CPU machine with ``--gpu`` naming the device to simulate), the launch
line runs through SGLang's real parser and resolution (``prepare_server_args``,
``resolve_once``, ``check_server_args``) in a subprocess (``kdacheck.sglang.child``): no
weights, no GPU memory, a few seconds. The result is attached to the resolved configuration;
the SGLANG rules report SGLang's own refusal and every field where SGLang and kdacheck differ.

Nothing here imports SGLang or torch in kdacheck's own process, and nothing from the linted
tree is executed: every child (the probe, the resolution) runs isolated (:func:`spawn`:
``python -I``, a private working directory, an allow-listed environment, offline), the child
drops ``--trust-remote-code``, and a local model folder whose config maps classes to its own
code (``auto_map``) is not handed to SGLang at all (:func:`remote_code`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from kdacheck import confine
from kdacheck.findings import InputError
from kdacheck.sanitize import visible, visible_line, visible_name

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(HERE, "child.py")  # run by its path: nothing is looked up on sys.path
TIMEOUT_S = 300
OUTPUT_LIMIT = 1 << 20  # the child's stdout read back (its result is the last line)
STDERR_LIMIT = 64 << 10
MESSAGE_LIMIT = 500
# What a child keeps of the caller's environment (see _child_env); nothing else reaches it.
_ENV_KEPT = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH",
             "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")

# The GPU SGLang's resolution runs on when the launch names none (--gpu): always a simulated one,
# so the verdict is about the launch, never about the machine kdacheck runs on.
DEFAULT_GPU = "h200"

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


def _child_env(private: str, gpu: str | None) -> dict[str, str]:
    """The environment of every Python child kdacheck starts: an allow-list, never the caller's
    whole environment (a CI job's tokens and cloud keys stay in kdacheck's own process).

    PATH (the ``nvidia-smi`` stand-in first when a GPU is simulated), the locale, the CUDA
    device and library settings a GPU node needs to find its device, HOME and TMPDIR in the
    child's private folder, and the Hugging Face hub cache where the caller has one (a model
    named by its hub name resolves offline from it). Hub and transformers are forced offline.
    """
    env = {k: os.environ[k] for k in _ENV_KEPT if k in os.environ}
    path = os.environ.get("PATH", os.defpath)
    env["PATH"] = HERE + os.pathsep + path if gpu is not None else path
    env.update(HOME=private, TMPDIR=private, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    hub = os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE")
    if not hub:
        hf_home = os.environ.get("HF_HOME") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
        hub = os.path.join(hf_home, "hub")
    if os.path.isabs(hub) and os.path.isdir(hub):
        env["HF_HUB_CACHE"] = hub  # the cache only: not HF_HOME, which holds the caller's token
    return env


def _tail(path: str, limit: int) -> str:
    """The last ``limit`` bytes of a child's output file, decoded (never the whole file read)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - limit))
        return f.read(limit).decode("utf-8", "replace")


def spawn(python: str, args: list[str], stdin: str, timeout: float, gpu: str | None = None) -> tuple[int, str, str]:
    """Run ``python -I args...`` isolated; (exit status, stdout tail, stderr tail).

    ``-I``: neither the working directory, nor the script's folder, nor PYTHONPATH or the user's
    site-packages come onto ``sys.path``, so a ``csv.py``, ``sitecustomize.py`` or ``sglang/``
    in the linted tree is never imported; the child runs in a private folder made for it
    (removed after), with the environment of :func:`_child_env`. Its output goes to files in
    that folder and only a bounded tail is read back. OSError and TimeoutExpired propagate.
    """
    import shutil
    import tempfile

    private = tempfile.mkdtemp(prefix="kdacheck-child-")
    try:
        out, err = os.path.join(private, ".stdout"), os.path.join(private, ".stderr")
        with open(out, "wb") as fo, open(err, "wb") as fe:
            p = subprocess.run([python, "-I", *args], input=stdin.encode(), stdout=fo, stderr=fe,
                               cwd=private, env=_child_env(private, gpu), timeout=timeout)
        return p.returncode, _tail(out, OUTPUT_LIMIT), _tail(err, STDERR_LIMIT)
    finally:
        shutil.rmtree(private, ignore_errors=True)


# SGLang's version where the interpreter imports it: importlib.metadata over the isolated
# sys.path (a dist-info in the working directory is not on it), and only when the sglang
# package is found there too (found, not imported: nothing runs).
_PROBE = ("import importlib.metadata as m, importlib.util as u\n"
          "print(m.version('sglang') if u.find_spec('sglang') else '')")


def importable(python: str) -> str | None:
    """SGLang's version where ``python`` imports it, else None (an isolated subprocess that
    imports nothing: :func:`spawn`)."""
    try:
        rc, out, _err = spawn(python, ["-c", _PROBE], "", 60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = visible_name(out.strip())[:100]
    return version or None if rc == 0 else None


# Files of a model folder that can map its classes to the folder's own Python code
# (``auto_map``); transformers imports that code when the launch trusts remote code (SGLang
# 0.5.23 loads the model config through AutoConfig.from_pretrained with the launch's
# trust_remote_code, srt/utils/hf_transformers_utils.py ``get_config``).
REMOTE_CODE_FILES = ("config.json", "tokenizer_config.json")


def remote_code(argv: list[str]) -> str | None:
    """Why SGLang is not run on ``argv``: a local folder it names (as a word or a ``--flag=``
    value) whose config carries ``auto_map``, or whose config kdacheck will not read (a link
    out of its repository, too large). None: no such folder. Read here, in kdacheck's own
    process, before any child starts; only absolute paths can name a folder (the child's
    working directory is empty)."""
    for word in argv:
        for value in dict.fromkeys((word, word.partition("=")[2])):
            if not value or not os.path.isabs(value) or not os.path.isdir(value):
                continue
            root = confine.repository_root(value)
            for name in REMOTE_CODE_FILES:
                shown = visible_name(os.path.join(value, name)[:300])
                try:
                    data = confine.read(os.path.join(value, name), root, 1 << 20, f"--sglang: {shown}", missing_ok=True)
                except InputError as e:
                    return f"{e}; SGLang would read it unchecked: not run"
                try:
                    doc = json.loads(data) if data is not None else None
                except ValueError:
                    continue  # transformers cannot parse it either: no code from it
                if isinstance(doc, dict) and "auto_map" in doc:
                    return f"{shown}: SGLang would import that folder's code (auto_map): not run"
    return None


def _visible(value: Any, depth: int = 0) -> Any:
    """The child's result with every string escaped (:mod:`kdacheck.sanitize`): SGLang's
    messages quote the launch and the model config, which come from the linted tree."""
    if isinstance(value, str):
        return visible(value[:MESSAGE_LIMIT * 10])
    if isinstance(value, list) and depth < 8:
        return [_visible(v, depth + 1) for v in value]
    if isinstance(value, dict) and depth < 8:
        return {visible_name(str(k)): _visible(v, depth + 1) for k, v in value.items()}
    return value if value is None or isinstance(value, (bool, int, float)) else None


def run(argv: list[str], gpu: str | None, python: str | None = None) -> dict[str, Any]:
    """SGLang's verdict on ``argv`` (no program name): the child's JSON result, its strings
    escaped; ``notes`` lists what the caller reports as notes. A folder with remote code
    (:func:`remote_code`) comes back as ``verdict: not_run``, SGLang not started.

    Raises InputError when SGLang cannot be run here; a simulation failure comes back as
    ``verdict: harness_error``.
    """
    why = remote_code(argv)
    if why is not None:
        return {"verdict": "not_run", "notes": [why]}
    from kdacheck.sglang.sim_gpu import GPU_PROFILES

    if gpu is not None and gpu not in GPU_PROFILES:
        raise InputError(f"--sglang simulates CUDA GPUs only ({', '.join(GPU_PROFILES)}), not {gpu}: "
                         "SGLang's ROCm resolution needs a ROCm host")
    python = python or sys.executable
    try:
        _rc, out, err = spawn(python, [CHILD], json.dumps({"argv": argv, "gpu": gpu}), TIMEOUT_S, gpu)
    except subprocess.TimeoutExpired:
        raise InputError(f"--sglang: SGLang's resolution did not finish within {TIMEOUT_S} s") from None
    except OSError as e:
        raise InputError(f"--sglang: cannot run {visible_name(python)}: {e.strerror or e}") from None
    last = out.strip().splitlines()[-1:]
    try:
        result = json.loads(last[0]) if last else None
    except ValueError:
        result = None
    if not isinstance(result, dict):
        tail = err.strip().splitlines()[-1:] or ["no output"]
        raise InputError(f"--sglang: SGLang's resolution failed to report ({visible_line(tail[0][:200])})")
    return dict(_visible(result))

