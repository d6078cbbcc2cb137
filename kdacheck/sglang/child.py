"""SGLang's own argument resolution for one launch line, run inside a Python that has SGLang.

``python -I .../kdacheck/sglang/child.py`` (run by its path, isolated: ``kdacheck.sglang.spawn``)
reads ``{"argv": [...], "gpu": "h200" | null}`` on stdin and prints one JSON result on stdout: ``verdict`` (``starts``, ``refused`` or ``harness_error``: a
failure of the simulation, not an SGLang refusal), ``exception``, ``message``, ``raised_at``
(the innermost frame inside the sglang package), ``resolved`` (the ServerArgs fields that
matter here, through SGLang's ``resolved_dict()``) and ``notes`` (what the caller reports as
notes: ``--trust-remote-code`` dropped). No model's own code is imported here: the flag is
dropped before SGLang parses the line, and transformers' remote-code consent answers no. With ``gpu`` set the GPU
is simulated (``sim_gpu``) on every machine, and where there is no CUDA device SGLang's CUDA-only
extension modules are stubbed (``stubs``), before sglang is imported. Nothing is loaded: no weights, no GPU memory.

Used by ``kdacheck lint --sglang`` (``kdacheck.sglang``) and the differential harness
(``benchmarks/sglang_diff/oracle.py``). From kdacheck it imports only ``kdacheck.sglang``'s
``stubs`` and ``sim_gpu`` (a simulated GPU), kdacheck found from this file's own path.
"""

from __future__ import annotations

import enum
import io
import json
import os
import re
import sys
import traceback
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))

# Substrings of the ServerArgs field names that are recorded.
RESOLVED_KEYS = (
    "speculative", "mamba", "linear_attn", "hisparse", "page_size",
    "attention_backend", "cuda_graph", "dp_size", "tp_size", "pp_size", "attn_",
    "radix", "mem_fraction", "disaggregation", "chunked_prefill", "overlap",
    "max_running_requests", "kv_cache_dtype", "dsa", "enable_dp", "moe_a2a", "nsa",
)

MESSAGE_LIMIT = 500

# Exceptions that come from the simulation rather than from SGLang's rules.
_HARNESS_TYPES = {
    "ModuleNotFoundError", "ImportError", "StubError", "FileNotFoundError",
    "LocalEntryNotFoundError", "OfflineModeIsEnabled", "HFValidationError",
    "RepositoryNotFoundError", "EntryNotFoundError", "GatedRepoError",
    "NotADirectoryError", "PermissionError", "TimeoutError", "RecursionError",
    "MemoryError", "OSError", "ConnectionError", "HfHubHTTPError",
}
_HARNESS_MESSAGE_PATTERNS = re.compile(
    r"_Stub|sglang-oracle stub|Torch not compiled with CUDA|CUDA driver|"
    r"no CUDA GPUs|NVML|nvidia-smi|cudaGetDevice|libcuda|"
    r"Found no NVIDIA driver|HF_HUB_OFFLINE|offline mode|"
    r"We couldn't connect|Can't load tokenizer|does not appear to have a file named|"
    r"Incorrect path_or_model_id|is not a local folder|trust_remote_code",
    re.I,
)


def _jsonable(value, depth=0):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, enum.Enum):
        v = value.value
        return v if isinstance(v, (str, int)) else value.name
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_jsonable(v, depth + 1) for v in value]
        if all(i is None or isinstance(i, (bool, int, float, str)) for i in items):
            return items
        return json.dumps(items, sort_keys=True, default=str)
    return None  # caller decides (dicts are flattened by the caller)


def _flatten(prefix: str, value, out: dict, depth=0) -> None:
    if isinstance(value, dict) and depth < 4:
        for k, v in value.items():
            _flatten(f"{prefix}.{k}", v, out, depth + 1)
        return
    j = _jsonable(value)
    if j is None and value is not None:
        j = str(value)[:200]
    out[prefix] = j


def _field_matches(name: str) -> bool:
    return any(key in name for key in RESOLVED_KEYS)


def _resolved(server_args) -> dict:
    out: dict = {}
    try:
        d = server_args.resolved_dict()
    except Exception:  # older versions: read the record itself
        from sglang.srt.arg_groups.arg_utils import record_fields

        d = {f.name: getattr(server_args, f.name) for f in record_fields(type(server_args))}
    for name in sorted(d):
        # Underscore names are parser bookkeeping (e.g. "explicitly set" marks).
        if _field_matches(name) and not name.startswith("_"):
            _flatten(name, d[name], out)
    return out


def _accessors(server_args) -> dict:
    """Values of SGLang's own derived-value accessors, where the version has them."""
    out: dict = {}

    def attempt(name, fn):
        try:
            out[name] = _jsonable(fn())
        except Exception as e:  # an accessor that does not apply to this model
            out[name] = f"<{type(e).__name__}>"

    try:
        from sglang.srt.arg_groups import overrides as ov
    except Exception:
        ov = None
    try:
        from sglang.srt.arg_groups.model_override_base import (
            attention_backends_of,
            resolved_view,
        )
    except Exception:
        attention_backends_of = resolved_view = None
    try:
        import sglang.srt.runtime_context as rc
    except Exception:
        rc = None
    view = resolved_view(server_args) if resolved_view else None
    if ov is not None and hasattr(ov, "max_speculative_num_draft_tokens"):
        attempt("max_speculative_num_draft_tokens", lambda: ov.max_speculative_num_draft_tokens(server_args))
    if ov is not None and hasattr(ov, "max_prefill_buffer_tokens"):
        attempt("max_prefill_buffer_tokens", lambda: ov.max_prefill_buffer_tokens(server_args))
    if view is not None and attention_backends_of is not None:
        attempt("attention_backends_of", lambda: list(attention_backends_of(view)))
    if rc is not None and view is not None:
        for acc in ("attn_tp_size_of", "attn_dp_enabled_of", "num_dp_ranks_of",
                    "launch_world_size_of", "moe_ep_size_of", "moe_tp_size_of"):
            fn = getattr(rc, acc, None)
            if fn is not None:
                attempt(acc, lambda fn=fn: fn(view))
    if ov is not None and view is not None and hasattr(ov, "mamba_extra_buffer_lazy_of"):
        attempt("mamba_extra_buffer_lazy_of", lambda: ov.mamba_extra_buffer_lazy_of(view))
    return out


def _sglang_frame(tb):
    """Innermost traceback frame inside the sglang package: (relpath, func, line)."""
    best = None
    innermost = None
    for fs in traceback.extract_tb(tb):
        innermost = fs
        fn = fs.filename.replace("\\", "/")
        idx = fn.rfind("/site-packages/sglang/")
        if idx >= 0:
            best = (fn[idx + len("/site-packages/"):], fs.name, fs.lineno)
    return best, innermost


def _run_case_inproc(argv: list[str]) -> dict:
    """Parse, resolve and check one launch line in this process."""
    from sglang.srt.server_args import prepare_server_args

    stage = "parse"
    stderr = io.StringIO()
    real_stderr = sys.stderr
    sys.stderr = stderr
    try:
        try:
            server_args = prepare_server_args(argv)
        finally:
            sys.stderr = real_stderr
        stage = "resolve"
        if hasattr(server_args, "resolve_once"):
            server_args.resolve_once()
        stage = "check"
        server_args.check_server_args()
    except SystemExit as e:
        # argparse refused the line (bad choice, bad type, unknown flag).
        msg = stderr.getvalue().strip().splitlines()
        return {
            "verdict": "refused",
            "stage": stage,
            "exception": "ArgumentError",
            "message": (msg[-1] if msg else f"SystemExit({e.code})")[:MESSAGE_LIMIT],
            "raised_at": {"file": "srt/server_args.py", "function": "prepare_server_args", "line": None},
        }
    except BaseException as e:
        return _classify(e, stage)
    return {
        "verdict": "starts",
        "stage": "done",
        "resolved": _resolved(server_args),
        "accessors": _accessors(server_args),
    }


def _classify(e: BaseException, stage: str) -> dict:
    tb = e.__traceback__
    sg, innermost = _sglang_frame(tb)
    etype = type(e).__name__
    message = str(e)
    tail = "".join(traceback.format_exception(type(e), e, tb)[-6:])[-2500:]
    inner_file = innermost.filename if innermost else ""
    harness = (
        etype in _HARNESS_TYPES
        or "sglang/stubs.py" in inner_file
        or "sglang/sim_gpu.py" in inner_file
        or sg is None
        or bool(_HARNESS_MESSAGE_PATTERNS.search(message))
        or (isinstance(e, (TypeError, AttributeError)) and "Stub" in tail)
        or isinstance(e, KeyboardInterrupt)
    )
    # An error raised inside a third-party library (transformers, torch...) that
    # SGLang merely called is a simulation artefact unless SGLang itself raised.
    if not harness and innermost is not None and "/site-packages/sglang/" not in inner_file:
        if isinstance(e, (TypeError, AttributeError, KeyError, IndexError, RuntimeError)):
            harness = True
    rec = {
        "verdict": "harness_error" if harness else "refused",
        "stage": stage,
        "exception": etype,
        "message": message[:MESSAGE_LIMIT],
        "raised_at": ({"file": sg[0][len("sglang/"):], "function": sg[1], "line": sg[2]} if sg else None),
    }
    if harness:
        rec["traceback_tail"] = tail
    return rec




TRUST_REMOTE_CODE = "--trust-remote-code"
# The shortest prefix argparse (allow_abbrev) takes for it alone in 0.5.23: --trust-re is
# also --trust-request-chat-template's (srt/server_args.py); an ambiguous one SGLang refuses.
_TRUST_PREFIX = "--trust-rem"


def untrusted(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` without ``--trust-remote-code`` (or a prefix argparse takes for it), and the
    note saying so. ``--trust-remote-code=...`` stays: SGLang's parser refuses it (a switch
    takes no value) before anything is loaded."""
    kept = [a for a in argv if not (a.startswith(_TRUST_PREFIX) and TRUST_REMOTE_CODE.startswith(a))]
    if len(kept) == len(argv):
        return argv, []
    return kept, [f"{TRUST_REMOTE_CODE} dropped: SGLang's resolution here never imports a model's own code"]


def _no_remote_code() -> None:
    """transformers never imports a model's own code in this process, whatever reached SGLang
    (a ``--config`` file or a cached hub model can ask for it as well as the command line): its
    remote-code consent answers no, and loading a class from a model's code raises ImportError
    (a harness error, not SGLang's refusal). The auto classes bind both names when imported,
    so the ones already imported are patched too."""
    try:
        import transformers.dynamic_module_utils as dm
    except Exception:  # no transformers: nothing could load remote code
        return

    def refuse_code(*args, **kwargs):
        raise ImportError("kdacheck: a model's own code (auto_map) is never imported by --sglang")

    loaded: list[Any] = [m for n, m in list(sys.modules.items()) if n == "transformers" or n.startswith("transformers.")]
    for module in loaded:
        bound = vars(module)  # not getattr: transformers' lazy modules would import on a miss
        if "resolve_trust_remote_code" in bound:
            module.resolve_trust_remote_code = lambda *args, **kwargs: False
        if "get_class_from_dynamic_module" in bound:
            module.get_class_from_dynamic_module = refuse_code
    dm.resolve_trust_remote_code = lambda *args, **kwargs: False
    dm.get_class_from_dynamic_module = refuse_code


def _own_package() -> None:
    """kdacheck importable here: ``-I`` keeps PYTHONPATH and the working directory off sys.path,
    so where this interpreter's site-packages lack kdacheck (a checkout on the caller's
    PYTHONPATH), the folder above the package, from this file's own path, is appended."""
    import importlib.util

    if importlib.util.find_spec("kdacheck") is None:
        sys.path.append(os.path.dirname(os.path.dirname(HERE)))


def prepare(gpu: str | None) -> None:
    """Offline, quiet, no remote code, and (for a named GPU without CUDA here) the simulated
    device."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    _no_remote_code()
    if gpu is not None:
        # The named GPU on every machine (kdacheck lint --sglang judges the launch, not the host):
        # simulated even where a CUDA device is present; the CUDA-only packages are stubbed only
        # where CUDA is absent (a GPU node keeps its own).
        torch: Any = None
        try:
            import torch
        except ImportError:  # no torch here: nothing asks a device (SGLang itself would fail to import)
            pass
        cuda_here = torch is not None and torch.cuda.is_available()
        _own_package()
        from kdacheck.sglang import sim_gpu, stubs

        if not cuda_here:
            stubs.install()
        if torch is not None:
            sim_gpu.install(gpu)
    import logging
    import warnings

    logging.disable(logging.CRITICAL)
    warnings.filterwarnings("ignore")


def main() -> int:
    request = json.loads(sys.stdin.read(1 << 20))
    out = sys.stdout
    sys.stdout = io.StringIO()  # SGLang's own prints must not corrupt the one JSON line
    notes: list[str] = []
    try:
        argv, notes = untrusted([str(a) for a in request["argv"]])
        prepare(request.get("gpu"))
        result = _run_case_inproc(argv)
    except BaseException as e:  # importing SGLang itself failed
        result = {"verdict": "harness_error", "exception": type(e).__name__, "message": str(e)[:MESSAGE_LIMIT]}
    finally:
        sys.stdout = out
    if notes:
        result["notes"] = notes
    json.dump(result, out)
    out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
