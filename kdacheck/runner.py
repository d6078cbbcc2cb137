"""``kdacheck run``: confirm a configuration by launching the real kernels at its shapes.

The plan (which kernel cases, at which shapes) is built from a resolved configuration or from
``--steps/--topk/...`` without importing torch; ``execute`` then imports the kernels (Triton's
interpreter is chosen first on the CPU), checks memory, runs each case against its float64
reference and canaries, and reports through ``kdacheck/report/`` (``run_full``, ``run_json``,
``junit``). Each case's op (``kdacheck.kernels.ops``) says which harness function runs it and
what its memory and work are.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

from kdacheck.dtypes import SSM_DTYPES
from kdacheck.findings import InputError
from kdacheck.kernels import ops
from kdacheck.kernels.cases import Gate, GatherCase, Mamba2Case, VerifyCase
from kdacheck.models import Family, Model
from kdacheck.report import RunRenderer
from kdacheck.resolve import Resolved
from kdacheck.resolve.verify_kernel import (
    gdn_flashinfer_kernel,
    gdn_tree_on_triton,
    gdn_verify_on_flashinfer,
    kda_flashinfer_row_map,
)
from kdacheck.results import Case, Plan
from kdacheck.sanitize import visible_name

DEFAULT_MODEL = "moonshotai/Kimi-Linear-48B-A3B-Instruct"
CPU_BATCH = 2  # requests per verify batch in the interpreter unless --batch says otherwise
CPU_HEADS = 4  # value heads per rank in the interpreter (each head is independent work)
WORK_BUDGET_S = {"cpu": 300.0, "cuda": 600.0}  # default --work-budget: estimated seconds per run
HOST_MEMORY_SHARE = 0.5  # on the CPU, refuse a run that needs more than this share of RAM
LIMITS = {"steps": (1, 64), "topk": (1, 64), "draft_tokens": (1, 1024), "batch": (1, 4096), "tp": (1, 64), "buffer_steps": (1, 1024), "buffer_rows": (1, 4096), "plan_capacity": (1, 1 << 24)}


def check_limits(**values: int | None) -> None:
    for name, value in values.items():
        if value is None:
            continue
        lo, hi = LIMITS[name]
        if not lo <= value <= hi:
            raise InputError(f"--{name.replace('_', '-')} {value}: must be between {lo} and {hi}")


def state_dtype(name: object, where: str) -> str:
    """The SSM state dtype a case runs, by its name (SGLang's ``--mamba-ssm-dtype`` choices,
    0.5.23 ``srt/arg_groups/fields/exec_.py`` L490-495); any other value is refused by name,
    never run at another precision."""
    if isinstance(name, str) and name in SSM_DTYPES:
        return name
    shown = visible_name(str(name)) if isinstance(name, str) else "unknown"
    raise InputError(f"{where}: the SSM state dtype {shown!r} cannot be run by kdacheck run "
                     f"(it runs {', '.join(SSM_DTYPES)}: SGLang's --mamba-ssm-dtype choices)")


def default_draft_tokens(steps: int, topk: int) -> int:
    """D when not given: S + 1 for a chain; for a tree, the root plus a full beam of K per
    step (S·K + 1), which always fits SGLang's tree capacity K + (S − 1)·K²."""
    return steps + 1 if topk == 1 else steps * topk + 1


def _verify_case(model: Model, tp: int, n: int, t: int, t_alloc: int, ssm_dtype: str, topk: int, on_cpu: bool, notes: list[str], *, n_scratch: int | None = None, row_map: list[int] | None = None, flashinfer: bool = False, step_guard: bool = True, n_padding: int = 0, refusal: str | None = None, step_text: str | None = None) -> VerifyCase:
    hv = max(1, model.linear_v_heads // tp)
    h = max(1, model.linear_k_heads // tp)
    block_v = None
    if on_cpu:
        if hv > CPU_HEADS:
            group = max(1, hv // h)
            new_hv = max(group, (CPU_HEADS // group) * group)
            notes.append(f"interpreter: {new_hv} of the {hv} value heads per rank (heads are independent; the buffers' step and row dimensions are as configured)")
            hv, h = new_hv, max(1, new_hv // group)
        block_v = model.linear_v_dim  # one program per (request, head): fastest in the interpreter
    return VerifyCase(
        N=n, T=t, T_alloc=t_alloc, N_scratch=n_scratch, H=h, HV=hv, Kd=model.linear_k_dim, Vd=model.linear_v_dim,
        state_dtype=ssm_dtype, input_dtype="bfloat16",
        tree=topk > 1, K=topk, row_map=row_map, flashinfer_compat=flashinfer, block_v=block_v,
        gate=Gate.HEAD if model.family is Family.GDN else Gate.CHANNEL, step_guard=step_guard, n_padding=n_padding,
        refusal=refusal, step_text=step_text,
    )


MAMBA2_LABEL = "Mamba2 verify (SGLang's selective_state_update over the draft tokens, every step into intermediate_ssm)"


def _mamba2_case(model: Model, tp: int, n: int, t: int, t_alloc: int, ssm_dtype: str, topk: int, on_cpu: bool, notes: list[str], *, n_scratch: int | None = None, n_padding: int = 0) -> Mamba2Case:
    """SGLang's per-rank Mamba2 state: heads H/tp, groups G/tp (replicated when G < tp:
    ``Mamba2StateShape`` in 0.5.23 ``srt/configs/mamba_utils.py``), head dim P, state size N."""
    h = max(1, model.linear_v_heads // tp)
    g = max(1, model.linear_k_heads // tp) if model.linear_k_heads % tp == 0 else model.linear_k_heads
    g = g if h % g == 0 else 1
    if on_cpu and h > CPU_HEADS:
        ratio = h // g
        new_h = max(ratio, (CPU_HEADS // ratio) * ratio)
        notes.append(f"interpreter: {new_h} of the {h} Mamba2 heads per rank (heads are independent; the buffers' step and row dimensions are as configured)")
        h, g = new_h, max(1, new_h // ratio)
    return Mamba2Case(N=n, T=t, T_alloc=t_alloc, N_scratch=n_scratch, H=h, G=g, P=model.linear_v_dim, DS=model.linear_k_dim,
                      state_dtype=ssm_dtype, tree=topk > 1, K=topk, n_padding=n_padding)


def _padded_batch(n: int, buffer_rows: int | None, notes: list[str]) -> tuple[int, int, list[int] | None, int | None]:
    """``--buffer-rows``: the batch of ``n`` requests padded with one request past the pool
    (cache index -1), as SGLang pads warm-up and MLP-sync batches; its row map sends the pad to
    the discard row ``n`` (0.5.23 ``srt/layers/attention/linear/utils.py`` L125-155), and
    intermediate_ssm has ``buffer_rows`` rows (SGLang's: n + 1). Returns (N, padding, rows, rows
    allocated); without ``--buffer-rows`` the batch as it is."""
    if buffer_rows is None:
        return n, 0, None, None
    notes.append(f"--buffer-rows {buffer_rows}: {n} requests and one padding request (cache index -1) whose scratch "
                 f"row is SGLang's discard row {n}; intermediate_ssm has {buffer_rows} rows (SGLang allocates {n + 1})")
    return n + 1, 1, sglang_row_map(n, n + 1, n + 1), buffer_rows


def _gather_case(b: int, d: int, top_k: int, capacity: int | None, emulate: bool = True) -> GatherCase:
    return GatherCase(B=b, D=d, top_k=top_k, max_seq=max(4 * top_k * max(d, 1), 8192), plan_capacity=capacity, emulate_sglang_limits=emulate)


NOTHING_TO_RUN = "nothing to run for a model without hybrid state"


def _no_state(model: Model, hisparse: bool | None = None) -> str | None:
    """Why a model has no verify case: None for a model with hybrid state kdacheck runs.
    A family that keeps state kdacheck has no kernel for is refused by name (exit 2)."""
    from kdacheck import families

    spec = families.spec(model.family)
    if model.family.has_state and spec.op is None:
        raise InputError(f"{model.name} is {model.family.label}: {spec.no_kernel}")
    if model.family.hybrid and not model.hybrid:
        raise InputError(f"{model.name} is {model.family.label} whose state kdacheck does not model (no linear layers read): "
                         "nothing to run")
    if model.family.hybrid:
        return None
    why = f"{NOTHING_TO_RUN}: {model.name} is {model.family.label} (SGLang allocates no verify scratch for it)"
    if spec.op is not None and ops.by_name(spec.op).kind is ops.Kind.GATHER and hisparse is False:
        why += "; HiSparse is off, so there is no speculative gather either (--enable-hisparse)"
    return why


def _verify_geometry(model: Model) -> tuple[Model, str]:
    """The geometry the verify case runs at and its label, by the kernel op the model's family
    names (``kdacheck.families``); only for a model with hybrid state (``_no_state`` None)."""
    from kdacheck import families
    from kdacheck.kernels import ops

    spec = families.spec(model.family)
    assert spec.op is not None and model.hybrid, model.name
    kind = ops.by_name(spec.op).kind
    if kind is ops.Kind.MAMBA2:
        return model, MAMBA2_LABEL
    if model.family is Family.GDN:
        return model, "GDN verify (a scalar gate per head: SGLang's fused_sigmoid_gating_delta_rule_update with is_kda=False, a[T, HV] and dt_bias[HV])"
    return model, "KDA verify"


# What kdacheck's verify kernel does for each SGLang verify backend (0.5.23
# layers/attention/linear/: kda_flashinfer.py checks the scratch's step count and KDA's row
# map; the Triton verify, which nv_cutedsl also runs for Kimi-Linear, stores every step unchecked)
BACKEND_KERNEL = {
    "flashinfer": "FlashInfer-compatible path: its step-count check before launch",
    "triton": "SGLang's Triton verify path: every step stored unchecked",
    "nv_cutedsl": "nv_cutedsl runs SGLang's Triton verify kernel: every step stored unchecked",
}


def sglang_verify_backend(model: Model, note: str, tp: int, steps: int, topk: int, d: int, gpu: str | None) -> tuple[str, str]:
    """The linear-attention verify backend SGLang picks for this model and GPU, and why: a
    launch line of these options resolved as ``lint`` resolves it (``resolve/attention.py``)."""
    from kdacheck import args as argmod
    from kdacheck import config
    from kdacheck.readers.shell import read_shell
    from kdacheck.resolve import resolve

    line = (f"python -m sglang.launch_server --model-path model --tp-size {tp} --speculative-algorithm EAGLE "
            f"--speculative-num-steps {steps} --speculative-eagle-topk {topk} --speculative-num-draft-tokens {d}")  # fmt: skip
    opts = config.options(config.EMPTY, config.Overrides(gpu=gpu))
    cmd = read_shell(line, "<cmd>")[0]
    cfg = resolve(argmod.parse(cmd, opts.version), cmd, model, note, opts.gpu)
    if "verify_backend" not in cfg or cfg.v("verify_backend") is None:
        raise InputError("the verify backend SGLang would pick could not be resolved: pass --verify-backend")
    return str(cfg.v("verify_backend")), cfg["verify_backend"].why


def plan_from_options(steps: int, topk: int, draft_tokens: int | None, batch: int | None, model_name: str | None, tp: int, buffer_steps: int | None, plan_capacity: int | None, on_cpu: bool, verify_backend: str | None = None, gpu: str | None = None,
                      ssm_dtype: str = "float32", buffer_rows: int | None = None) -> Plan:
    """The cases of ``run``'s options: the model's verify (a model with hybrid state) at the
    verify backend SGLang picks for it unless ``verify_backend`` says; a DSA model's HiSparse
    gather; for a model without either, no case and ``Plan.nothing``."""
    check_limits(steps=steps, topk=topk, draft_tokens=draft_tokens, batch=batch, tp=tp, buffer_steps=buffer_steps, plan_capacity=plan_capacity, buffer_rows=buffer_rows)
    dtype = state_dtype(ssm_dtype, "--ssm-dtype")
    from kdacheck.model_source import load_model

    model, note = load_model(model_name or DEFAULT_MODEL, None)
    assert model is not None
    notes = [f"model: {note}"]
    d = draft_tokens if draft_tokens is not None else default_draft_tokens(steps, topk)
    if draft_tokens is None:
        notes.append(f"draft tokens D = {d} ({'steps + 1' if topk == 1 else 'root + steps × topk'})")
    if topk == 1 and d != steps + 1:
        notes.append(f"SGLang would use D = {steps + 1} for topk 1 (SPEC002); running D = {d} as asked")
    n = batch or (CPU_BATCH if on_cpu else 48)
    cases: list[Case] = []
    source = f"--steps {steps} --topk {topk}"
    nothing = _no_state(model)
    if nothing is None:
        geom, label = _verify_geometry(model)
        if dtype != "float32":
            notes.append(f"SSM state {dtype} (--ssm-dtype): intermediate_ssm and the pool in {dtype}, each stored state rounded to nearest even as SGLang's kernels store it")
        n_all, n_pad, rows, n_scratch = _padded_batch(n, buffer_rows, notes)
        if geom.family is Family.MAMBA2:
            cases.append(Case(_mamba2_case(geom, tp, n_all, d, buffer_steps or d, dtype, topk, on_cpu, notes, n_scratch=n_scratch, n_padding=n_pad), label))
        else:
            if verify_backend is None:
                verify_backend, why = sglang_verify_backend(model, note, tp, steps, topk, d, gpu)
                notes.append(f"verify backend: {verify_backend}, SGLang's choice for this model: {why} (--verify-backend to change it)")
            # The step check is FlashInfer's (KDA001 for KDA, FlashInfer's assertion for GDN)
            gdn_tree = gdn_tree_on_triton(geom.family, topk)
            if gdn_tree and verify_backend == "flashinfer":
                notes.append("GDN tree verify: SGLang runs its Triton kernel whatever the backend (gdn_backend.py L505-512)")
            guard = verify_backend == "flashinfer" and not gdn_tree
            label += f" ({BACKEND_KERNEL['triton'] if gdn_tree else BACKEND_KERNEL.get(verify_backend, verify_backend)})"
            cases.append(Case(_verify_case(geom, tp, n_all, d, buffer_steps or d, dtype, topk, on_cpu, notes, step_guard=guard,
                                           n_scratch=n_scratch, row_map=rows, n_padding=n_pad), label))
    elif model.family is Family.DSA:
        top_k = model.index_topk or 2048
        notes.append(f"{model.name} has no hybrid state: the HiSparse speculative gather at its index top-k ({top_k}), as --enable-hisparse runs it")
        cases.append(Case(_gather_case(batch or 1, d, top_k, plan_capacity), "HiSparse speculative gather"))
        nothing = None
    return Plan(source, cases, notes, nothing)


def sglang_row_map(r: int, p: int, batch: int) -> list[int]:
    """SGLang's verify row map: ``arange(R)`` then ``P − R`` copies of ``R``; a batch longer
    than the map is padded with ``R`` too (the rows it would read past the map)."""
    full = list(range(r)) + [r] * (p - r)
    return (full + [r] * max(0, batch - len(full)))[:batch]


def plan_from_resolved(cfg: Resolved, batch: int | None, buffer_steps: int | None, plan_capacity: int | None, on_cpu: bool, buffer_rows: int | None = None) -> Plan:
    check_limits(batch=batch, buffer_steps=buffer_steps, plan_capacity=plan_capacity, buffer_rows=buffer_rows)
    name = cfg.cmd.name or cfg.cmd.path
    if not cfg.v("spec_on"):
        raise InputError(f"{name}: no speculative decoding in this configuration: nothing for kdacheck run to confirm")
    model = cfg.model
    if model is None:
        raise InputError(f"{name}: unknown model: pass --model (a preset, a model folder or a config.json)")
    d = cfg.v("verify_width_max") or cfg.v("draft_tokens")
    topk = cfg.v("topk") or 1
    check_limits(draft_tokens=d if isinstance(d, int) else None, topk=topk if isinstance(topk, int) else None,
                 batch=cfg.v("R") if isinstance(cfg.v("R"), int) and cfg.v("R") > 0 else None)  # the file's counts too
    if d is None:
        raise InputError(f"{name}: the verify width D could not be resolved (see SPEC001/SPEC013)")
    if cfg.v("adaptive"):
        notes_adaptive = [f"adaptive: verifying at the widest candidate, D = {d}"]
    else:
        notes_adaptive = []
    notes = [f"model: {cfg.model_note}", f"SGLang {cfg.version}", *notes_adaptive]
    dtype = state_dtype(cfg.v("ssm_dtype"), f"{name}: --mamba-ssm-dtype")
    if dtype != "float32":
        notes.append(f"SSM state {dtype}: intermediate_ssm and the pool in {dtype}, each stored state rounded to nearest even as SGLang's kernels store it")
    cases: list[Case] = []
    nothing = _no_state(model, bool(cfg.v("enable_hisparse")))
    if nothing is not None:
        if cfg.v("enable_hisparse"):
            top_k = cfg.v("hisparse_top_k") or 2048
            cases.append(Case(_gather_case(batch or 1, d, top_k, plan_capacity or cfg.v("plan_capacity")), "HiSparse speculative gather"))
            nothing = None
        return Plan(name, cases, notes, nothing)
    geom, base_label = _verify_geometry(model)
    if geom.family is not Family.MAMBA2 and "verify_backend" in cfg:
        notes.append(f"SGLang's verify backend: {cfg.v('verify_backend')} ({cfg['verify_backend'].why})")
    tp = cfg.v("attn_tp_size") or 1
    t_alloc = buffer_steps or cfg.v("d_max") or d
    r = cfg.v("R") or 48
    fi = kda_flashinfer_row_map(cfg)  # the identity row-map check: KDA's FlashInfer verify alone
    gdn_fi = model.family is Family.GDN and topk == 1 and gdn_verify_on_flashinfer(cfg, notes)
    if gdn_fi:
        notes.append("GDN FlashInfer verify: SGLang copies non-identity rows through a scratch, so no row-map check applies")
    if fi and topk == 1:
        p = cfg.v("row_map_len") or r
        b_max = cfg.v("max_verify_batch") or p
        rows = sglang_row_map(r, p, b_max)
        if rows != list(range(b_max)):
            notes.append(f"FlashInfer verify: the largest batch ({b_max}) with SGLang's row map (R = {r}, map length {p})")
            cases.append(Case(_verify_case(geom, tp, b_max, d, t_alloc, dtype, topk, on_cpu, notes, n_scratch=r + 1, row_map=rows, flashinfer=True), "KDA verify (FlashInfer-compatible)"))
    if not cases and geom.family is Family.MAMBA2:
        n_all, n_pad, _rows, n_scratch = _padded_batch(batch or (CPU_BATCH if on_cpu else r), buffer_rows, notes)
        cases.append(Case(_mamba2_case(geom, tp, n_all, d, t_alloc, dtype, topk, on_cpu, notes, n_scratch=n_scratch, n_padding=n_pad), base_label))
    if not cases:
        n_all, n_pad, pad_rows, n_scratch = _padded_batch(batch or (CPU_BATCH if on_cpu else r), buffer_rows, notes)
        label = base_label + (" (FlashInfer-compatible)" if fi and topk == 1 else "")
        # Only FlashInfer's verify checks the scratch's step count (0.5.23 kda_flashinfer.py
        # L297); SGLang's Triton kernel, which nv_cutedsl also runs, stores every step unchecked.
        # GDN sends tree drafts to its Triton verify whatever the backend (0.5.23 gdn_backend.py L505-512)
        # GDN's FlashInfer verify checks no step count itself (gdn_flashinfer.py); FlashInfer
        # 0.7.2's gated_delta_rule_mtp asserts it (cases.VerifyCase.step_message).
        guard = gdn_fi if model.family is Family.GDN else cfg.v("verify_backend") == "flashinfer"
        refusal, step_text = gdn_flashinfer_kernel(cfg, dtype, notes) if gdn_fi else (None, None)
        cases.append(Case(_verify_case(geom, tp, n_all, d, t_alloc, dtype, topk, on_cpu, notes, flashinfer=fi and topk == 1, step_guard=guard,
                                       n_scratch=n_scratch, row_map=pad_rows, n_padding=n_pad, refusal=refusal,
                                       step_text=step_text), label))
    if cfg.v("enable_hisparse"):
        top_k = cfg.v("hisparse_top_k") or 2048
        cap = plan_capacity or cfg.v("plan_capacity")
        cases.append(Case(_gather_case(batch or 1, d, top_k, cap), "HiSparse speculative gather"))
    return Plan(name, cases, notes)


def check_work(plans: list[Plan], device: str, budget_s: float | None = None) -> None:
    """Refuse, before torch is imported, a run whose estimated work exceeds the budget
    (each op's work formula in ``kernels/cases.py``: the kernels' state updates and selections,
    and the reference's)."""
    budget = WORK_BUDGET_S[device] if budget_s is None else budget_s
    items = [(plan, case, w) for plan in plans for case in plan.cases for w in case.op.work(case.spec, device == "cpu")]
    total = sum(w.seconds for _p, _c, w in items)
    if total <= budget:
        return
    worst = max(items, key=lambda i: i[2].seconds)
    where = "Triton's interpreter" if device == "cpu" else "the GPU"
    raise InputError(
        f"this run's estimated work is {total:,.0f} s of CPU time on {where}, over the budget of {budget:,.0f} s (--work-budget); "
        f"the largest part is {worst[1].label}'s {worst[2].what}: {worst[2].units:.2e} {worst[2].unit} (~{worst[2].seconds:,.0f} s). "
        "Lower --batch, --steps, --topk or --draft-tokens, run on a GPU, or raise --work-budget"
    )


def _gpu_visible() -> bool:
    """Whether a CUDA device may be visible, judged without importing torch: an NVIDIA driver
    with a GPU, and ``CUDA_VISIBLE_DEVICES`` not empty or ``-1``."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return False
    try:
        return bool(os.listdir("/proc/driver/nvidia/gpus")) or os.path.exists("/dev/nvidia0")
    except OSError:
        return os.path.exists("/dev/nvidia0")


def guess_device(device: str) -> str:
    """The device a run will use, without importing torch (``pick_device`` confirms it)."""
    if device == "auto":
        return "cuda" if _gpu_visible() else "cpu"
    return device


def pick_device(device: str) -> str:
    """``auto`` → cuda when torch sees a GPU, else cpu. On the CPU, Triton's interpreter is
    selected here, before triton is imported; with no NVIDIA driver, torch is not imported."""
    if device == "cpu" or guess_device(device) == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
        return "cpu"
    try:
        import torch
    except ImportError:
        raise InputError('kdacheck run needs torch and triton: pip install "kdacheck[run]"') from None
    if torch.cuda.is_available():
        return "cuda"
    if device == "cuda":
        raise InputError("--device cuda: no CUDA device is visible")
    os.environ["TRITON_INTERPRET"] = "1"
    return "cpu"


def _read_small(path: str) -> str | None:
    """A short system file (a cgroup or /proc entry), at most 4 KiB; None when absent."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4096).decode("ascii", "replace")
    except OSError:
        return None


def _cgroup_room() -> int | None:
    """cgroup v2 ``memory.max − memory.current`` of this process's group (a container limit)."""
    own = _read_small("/proc/self/cgroup") or ""
    rel = next((line[3:].strip() for line in own.splitlines() if line.startswith("0::")), None)
    if rel is None or ".." in rel:
        return None
    base = os.path.join("/sys/fs/cgroup", rel.lstrip("/"))
    limit, used = _read_small(os.path.join(base, "memory.max")), _read_small(os.path.join(base, "memory.current"))
    if not limit or not used or limit.strip() == "max":
        return None
    try:
        return max(0, int(limit) - int(used))
    except ValueError:
        return None


def _address_space_room() -> int | None:
    """``RLIMIT_AS`` (``ulimit -v``) minus this process's current address space."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, ValueError, OSError):
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    status = _read_small("/proc/self/status") or ""
    vm = next((int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmSize:") and line.split()[1].isdigit()), 0)
    return max(0, soft - vm)


def _host_memory() -> int | None:
    """What an interpreter run may allocate: the free physical memory, lowered by a container's
    cgroup limit and by ``ulimit -v``, whichever is tightest."""
    rooms = [_cgroup_room(), _address_space_room()]
    with contextlib.suppress(ValueError, OSError, AttributeError):
        rooms.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    known = [r for r in rooms if r is not None]
    return min(known) if known else None


def _check_case_memory(case: Case, device: str, free_bytes: int | None, harness: Any) -> None:
    needed = case.op.bytes_needed(case.spec)
    if device == "cuda" or free_bytes is not None:
        try:
            harness.check_memory(case.spec, device, free_bytes=free_bytes)
        except harness.InsufficientMemoryError as e:
            raise InputError(f"{case.label}: refusing to allocate: {e} Lower --batch.") from None
        return
    host = _host_memory()
    if host is not None and needed > host * HOST_MEMORY_SHARE:
        raise InputError(f"{case.label}: needs {needed / 2**30:.2f} GiB but only {host / 2**30:.2f} GiB of host memory is available; lower --batch")


def run_cases(plan: Plan, device: str, free_bytes: int | None = None, progress: IO[str] | None = None) -> Iterator[tuple[Case, Any]]:
    """Each case's result as soon as it is done, after a memory check of every case (before
    anything is allocated); raises InputError when the plan cannot run. ``progress``: a
    terminal to show a spinner on while a case runs."""
    try:
        from kdacheck.kernels import harness
    except ImportError as e:
        raise InputError(f'kdacheck run needs torch and triton ({e}): pip install "kdacheck[run]"') from None
    for case in plan.cases:
        _check_case_memory(case, device, free_bytes, harness)
    for i, case in enumerate(plan.cases, 1):
        run = case.op.load("run")  # the harness function, looked up now (a test may replace it)
        if progress is None:
            result = run(case.spec, device)
        else:
            from kdacheck.report import run_full

            with run_full.spinner(progress, f"[{i}/{len(plan.cases)}] {case.label}"):
                result = run(case.spec, device)
        yield case, result


def run_plan(plan: Plan, device: str, free_bytes: int | None = None) -> list[tuple[Case, Any]]:
    """Every case's result (see ``run_cases``)."""
    return list(run_cases(plan, device, free_bytes))


def execute(plan: Plan, device: str, rep: RunRenderer, free_bytes: int | None = None,
            progress: IO[str] | None = None) -> tuple[int, list[tuple[Case, Any]]]:
    """Run the plan's cases, telling the run format's report (``report.run_renderer``) as it
    goes: the plan started, each case as it finishes, the plan done (the caller tells it when
    every plan is done). Returns (0 when all pass, 1 when a check fails; the results)."""
    results: list[tuple[Case, Any]] = []
    rep.plan_started(plan)
    if plan.cases:  # else nothing to run (Plan.nothing says why): no kernel, no failure
        for case, r in run_cases(plan, device, free_bytes, progress):
            results.append((case, r))
            rep.case_done(case, r)
    rep.plan_done(plan, results)
    return (0 if all(r.passed for _c, r in results) else 1), results


def run_resolved(cfg: Resolved, lint_format: str = "full", device: str = "auto", batch: int | None = None,
                 out: IO[str] | None = None) -> tuple[dict[str, Any], int]:
    """``kdacheck lint --run``: run the kernels on one resolved configuration.

    Returns the run's JSON report and its exit code. With ``lint --output-format json`` the
    report goes inside lint's document (nothing printed here); with ``full``/``concise`` the
    table goes to ``out`` (lint keeps it and prints it after its report), with the machine
    formats to stderr (never inside a SARIF or JUnit document).
    """
    guess = guess_device(device)
    check_work([plan_from_resolved(cfg, batch, None, None, guess == "cpu")], guess)  # before torch
    dev = pick_device(device)
    plan = plan_from_resolved(cfg, batch, None, None, dev == "cpu")
    check_work([plan], dev)
    results = run_plan(plan, dev)
    from kdacheck.report import run_full, run_json

    if lint_format != "json":
        run_full.render(plan, dev, results, out or (sys.stdout if lint_format in ("full", "concise") else sys.stderr))
    return run_json.document(plan, dev, results), 0 if all(r.passed for _c, r in results) else 1
