"""The search: screen each dimension, cross the survivors, lint every candidate, keep the
clean ones that fit, rank them. Bounded by a candidate cap and a time budget."""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kdacheck import architectures
from kdacheck.findings import InputError
from kdacheck.models import Model
from kdacheck.plan import cost, kv, pd, space
from kdacheck.plan.judge import Verdict, judge
from kdacheck.plan.space import Counts, Flags

DEFAULT_BUDGET_S = 8.0
DEFAULT_MIN_CONTEXT = 4096
R_KEPT_PER_GROUP = 3  # the largest R that fits, and the two below it
PROGRESS_AFTER_S = 2.0  # a search this long says how it goes (Request.progress), every
PROGRESS_EVERY_S = 1.0  # this often, on standard error
PAIRS_KEPT = 20  # --pd: the decode lines paired (best estimate first), each one lint of two launches


class PlanError(Exception):
    """No plan: bad input (unknown model or GPU) or no valid launch; exit 2."""


@dataclass
class Request:
    model: str
    gpu: str
    tp: int | None = None
    gpus: int | None = None
    sglang_version: str | None = None
    args_file: str | None = None
    min_context: int = DEFAULT_MIN_CONTEXT
    acceptance: float | None = None
    budget_s: float = DEFAULT_BUDGET_S
    drafts: dict[str, str] = field(default_factory=dict)
    max_candidates: int = space.MAX_CANDIDATES
    offline: bool = False  # never ask the Hub (as lint --offline; HF_HUB_OFFLINE too)
    min_tokens_per_user: float | None = None  # targets on the cost model's estimates (Search.on_target)
    min_tokens_per_gpu: float | None = None
    progress: bool = False  # progress lines on standard error during a long search
    pd: bool = False  # plan a prefill/decode pair (kdacheck/plan/pd.py)


@dataclass
class Candidate:
    verdict: Verdict
    label: str
    memory: dict[str, Any]
    score: cost.Score
    kv_tokens_per_request: int | None
    pareto: bool = False
    sglang: dict[str, Any] | None = None  # --sglang: SGLang's verdict
    run: dict[str, Any] | None = None  # --run: the kernels' results
    pair: pd.Pair | None = None  # --pd: the prefill twin, linted with this (decode) line as one deployment

    @property
    def text(self) -> str:
        return self.verdict.text

    @property
    def served(self) -> int:
        """Requests served at once: R per scheduler × DP replicas × attention-DP workers."""
        return int(self.memory["R"] or 0) * cost.layout(self.verdict.cfg)[0]


@dataclass
class Result:
    request: Request
    version: str
    model: Model
    model_note: str
    counts: Counts
    candidates: list[Candidate]
    notes: list[str]
    budget_spent: bool
    kv_how: str
    lint_options: list[str]


def _memory(v: Verdict, gpu_bytes: int) -> dict[str, Any]:
    """The memory picture per rank, as lint resolved it (GiB); a figure only the plan
    estimates (a model without a hybrid state pool) says so in ``source``."""
    cfg = v.cfg
    mfs = float(cfg.v("mem_fraction_static") or 0)
    tp = int(cfg.v("tp_size") or 1)
    pp = max(1, int(cfg.v("pp_size") or 1))
    if "mem_kv_rest_gib" in cfg and cfg.v("mem_kv_rest_gib") is not None:
        per_req = int(cfg.v("per_request_state_bytes") or 0)
        K = int(cfg.v("max_mamba_cache_size") or 0)
        return {
            "source": "lint (kdacheck.resolve.mempool)",
            "mem_fraction_static": mfs,
            "weights_gib": round(int(cfg.v("weight_bytes_per_rank") or 0) / 2**30, 2),
            "rest_gib": cfg.v("mem_rest_gib"),
            "state_pool_gib": round(K * per_req / 2**30, 2),  # as lint's memory picture shows it (report/full.py)
            "max_mamba_cache_size": K,
            "spec_reserve_gib": round(int(cfg.v("spec_reserve_bytes") or 0) / 2**30, 2),
            "kv_rest_gib": cfg.v("mem_kv_rest_gib"),
            "outside_static_gib": round(gpu_bytes * (1 - mfs) / 2**30, 2),
            "R": cfg.v("R_after_solve") if "R_after_solve" in cfg else cfg.v("R"),
        }
    m = cfg.model
    weights = m.params * m.weight_bytes_per_param / (tp * pp) if m is not None else 0
    rest = (gpu_bytes * mfs - weights) / 2**30
    return {
        "source": "plan's estimate: GPU × mem_fraction_static − weights per rank (lint has no memory account "
                  "for a model without a hybrid state pool)",
        "mem_fraction_static": mfs, "weights_gib": round(weights / 2**30, 2), "rest_gib": round(rest, 2),
        "state_pool_gib": 0.0, "max_mamba_cache_size": None, "spec_reserve_gib": 0.0, "kv_rest_gib": round(rest, 2),
        "outside_static_gib": round(gpu_bytes * (1 - mfs) / 2**30, 2), "R": cfg.v("R"),
    }


def _model_path(spec: str, model: Model) -> str:
    """The launch's --model-path: the folder given (a config.json's folder), else the Hub id a
    short preset name stands for (``kimi-linear`` → its checkpoint), else the name given."""
    from kdacheck.model_source import short_names

    p = Path(spec)
    if p.name.endswith(".json") and p.is_file():
        return str(p.parent)
    if p.is_dir():
        return spec
    return short_names().get(spec.strip().lower(), model.name)


def _config(spec: str) -> tuple[dict[str, Any] | None, str]:
    """The model's config as a dict and whence: a local config.json, else the bundled index's
    fields for a preset name (``kdacheck.model_index``), else (None, "")."""
    from kdacheck import model_config, model_index
    from kdacheck.model_source import find_local_config

    path = find_local_config(spec)
    if path is not None:
        try:
            return model_config.read_json(path), str(path)
        except InputError:
            return None, ""
    found = model_index.match(spec)
    if found is None:
        return None, ""
    cfg = model_index.entry(found.repo).get("config")
    return (cfg, f"the bundled index ({found.repo})") if isinstance(cfg, dict) else (None, "")


# Config classes of SGLang 0.5.23 that default num_nextn_predict_layers to 0: a config of these
# types without the key has no MTP layers as SGLang reads it (configs/nemotron_h.py
# NemotronHConfig.__init__ L300, L386; configs/kimi_linear.py KimiLinearConfig.__init__ L55,
# L109; configs/bailing_hybrid.py L86, L122): the checkpoint ships no MTP layer to draft with.
# (SGLang does not refuse it: its draft ModelConfig forces num_nextn_predict_layers to 1,
# configs/model_config.py L1198-1203, and loads an MTP layer the checkpoint has no weights for.)
NO_MTP_BY_DEFAULT = frozenset({"nemotron_h", "kimi_linear", "bailing_hybrid"})


def _mtp(raw: dict[str, Any] | None) -> bool | None:
    if raw is None:
        return None
    text = raw.get("text_config")
    cfg = text if isinstance(text, dict) else raw
    for key in ("num_nextn_predict_layers", "mtp_num_hidden_layers"):
        for c in (cfg, raw):
            v = c.get(key)
            if isinstance(v, int) and not isinstance(v, bool):
                return v > 0
    if any(c.get("model_type") in NO_MTP_BY_DEFAULT for c in (cfg, raw)):
        return False
    return None  # the config does not say


def _fixed_flags(path: str, opts: Any) -> tuple[Flags, str | None]:
    """The flags of the launch in ``--args FILE`` (read as lint reads it), less the ones the plan
    searches: each spelled by its full name in the target version's table (an abbreviation
    argparse would accept is expanded), a flag of several values kept whole."""
    from kdacheck import flags as flagmod
    from kdacheck.lint import lint_path

    result = lint_path(path, opts)
    if result.error:
        raise PlanError(f"--args {result.path}: {result.error}")
    if not result.resolved:
        raise PlanError(f"--args {result.path}: no SGLang launch command found")
    cfg = result.resolved[0]
    unknown = [u for d, u in cfg.parsed.unknown.items() if d not in SEARCHED]
    if unknown:
        u = unknown[0]
        raise PlanError(f"--args {result.path}: `{u.written}` is `{u.text[:60]}`, not known statically ({u.why}): "
                        "write its value in the file")
    if cfg.parsed.opaque:
        raise PlanError(f"--args {result.path}: `{cfg.parsed.opaque[0].text[:60]}` is not known statically and may hold "
                        "flags: write them in the file")
    table = flagmod.table(cfg.version)
    words = [t.text for t in cfg.cmd.tokens]
    out: list[tuple[str, str | tuple[str, ...] | None]] = []
    model_path = None
    i = 0
    while i < len(words) and len(out) < 512:
        word = words[i]
        i += 1
        if not word.startswith("--"):
            continue
        opt, eq, val = word.partition("=")
        known = table.by_option.get(opt)
        if known is None:
            matches = {table.by_option[o].dest: table.by_option[o] for o in table.prefix_matches(opt)}
            known = next(iter(matches.values())) if len(matches) == 1 else None
        takes = known.takes_value if known is not None else bool(eq) or (i < len(words) and not words[i].startswith("--"))
        many = known is not None and (known.nargs in ("+", "*") or (isinstance(known.nargs, int) and known.nargs > 1))
        value: str | tuple[str, ...] | None = None
        if takes:
            if eq:
                value = val
            elif many:
                got: list[str] = []
                while i < len(words) and not words[i].startswith("--") and len(got) < 4096:
                    got.append(words[i])
                    i += 1
                value = tuple(got)
            elif i < len(words):
                value = words[i]
                i += 1
        if known is not None and known.dest in SEARCHED:
            if known.dest == "model_path" and isinstance(value, str):
                model_path = value
            continue
        out.append((known.name if known is not None else opt, value))
    return tuple(out), model_path


SEARCHED = frozenset({
    "model_path", "tp_size", "dp_size", "attn_dp_size", "enable_dp_attention", "speculative_algorithm",
    "speculative_draft_model_path", "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
    "speculative_ngram_max_bfs_breadth", "speculative_dspark_block_size", "speculative_dflash_block_size",
    "linear_attn_verify_backend", "linear_attn_decode_backend", "mamba_ssm_dtype",
    "mamba_radix_cache_strategy", "mamba_track_interval", "disable_overlap_schedule", "page_size", "max_running_requests",
    "mem_fraction_static", "chunked_prefill_size",
})


_Fit = tuple[Verdict, dict[str, Any], int | None]  # a clean line that fits: its verdict, memory, KV tokens per request


def _resolve(req: Request) -> tuple[Any, str, Model, str]:
    """The request's GPU profile, SGLang version and model, each refused by its option's name."""
    from kdacheck import flags as flagmod
    from kdacheck import gpus
    from kdacheck.model_source import find_local_config, is_hub_id, load_model

    try:
        gpu = gpus.gpu(req.gpu)
    except ValueError as e:
        raise PlanError(f"--gpu: {e}") from None
    try:
        version, _why = flagmod.pick_version(req.sglang_version)
    except ValueError as e:
        raise PlanError(f"--sglang-version: {e}") from None
    try:
        if find_local_config(req.model) is None and is_hub_id(req.model):
            # a Hub id names one repository and goes into the launch as written: its config from the Hugging Face
            # cache, the bundled index by that exact id, or the Hub (never the loose name match a short preset
            # name gets, which took `Qwen/Qwen3-Next-80B-A3B-Instrct` for Qwen3-Next and wrote the typo out)
            model, note = load_model(None, req.model, version, hub=not req.offline)
            if model is None:
                raise PlanError(f"--model {req.model}: unknown model id, and no config.json available ({note}); check "
                                "the spelling, or pass the model's folder or config.json")
        else:
            model, note = load_model(req.model, None, version)
    except InputError as e:
        raise PlanError(str(e)) from None
    if model is None:
        raise PlanError(f"--model {req.model}: no model geometry")
    return gpu, version, model, note


def _check_ranges(req: Request) -> None:
    for name, n in (("--tp", req.tp), ("--gpus", req.gpus)):
        if n is not None and not 1 <= n <= 64:
            raise PlanError(f"{name} {n}: must be 1 to 64")
    if req.acceptance is not None and not 0.0 < req.acceptance < 1.0:
        raise PlanError(f"--acceptance {req.acceptance}: a per-token acceptance rate, above 0 and below 1")
    if not 0 <= req.min_context <= 1 << 24:
        raise PlanError(f"--min-context {req.min_context}: must be 0 to {1 << 24}")
    for name, x in (("--min-tokens-per-user", req.min_tokens_per_user), ("--min-tokens-per-gpu", req.min_tokens_per_gpu)):
        if x is not None and not 0 < x < 1e9:
            raise PlanError(f"{name} {x}: tokens per second, above 0")
    if not 0 < req.budget_s <= 600:
        raise PlanError(f"--budget-s {req.budget_s}: must be above 0 and at most 600")


def _interleaved(groups: list[Any]) -> list[Any]:
    """The groups with their layouts and algorithms taken in turn, so that a spent budget still
    leaves each of them tried."""
    by_algo: dict[tuple[str, str], list[Any]] = {}
    for g in groups:
        by_algo.setdefault((g[1], g[2].algorithm), []).append(g)
    order: list[Any] = []
    while any(by_algo.values()):
        for k in list(by_algo):
            if by_algo[k]:
                order.append(by_algo[k].pop(0))
    return order


def _with_r(prefix: Flags, idx: int) -> Flags:
    return (*prefix, ("--max-running-requests", str(space.REQUESTS[idx])))


class Search:
    """One plan's search: what the request resolves to, the lint options every candidate is
    judged with, and what the phases have found so far (counts, kept candidates, misses)."""

    def __init__(self, req: Request) -> None:
        from kdacheck import config

        t0 = time.monotonic()
        self.req = req
        self.gpu, self.version, self.model, self.model_note = _resolve(req)
        _check_ranges(req)
        if self.model.weight_bytes <= 0:
            # lint's memory solve and the ranking both start from the weights per rank: with none known
            # every line would "fit" and score infinitely fast
            raise PlanError(f"cannot plan {self.model.name}: its weights are not known (the folder has no "
                            "model.safetensors.index.json with metadata.total_size, and the bundled index has no checkpoint "
                            "by this name), so neither memory nor the ranking can be estimated: add the checkpoint's "
                            "model.safetensors.index.json to the folder")
        config.reset()
        self.opts = config.options(config.EMPTY, config.Overrides(gpu=self.gpu.name, sglang_version=self.version, model=req.model))
        self.notes: list[str] = []
        self.fixed: Flags = _fixed_flags(req.args_file, self.opts)[0] if req.args_file is not None else ()
        self.raw_cfg, self.cfg_where = _config(req.model)
        self.model_path = _model_path(req.model, self.model)
        self.base: Flags = (("--model-path", self.model_path), *self.fixed)
        if req.pd:
            if pd.names_a_role(self.fixed):
                raise PlanError(f"--args {req.args_file}: names --disaggregation-mode; with --pd the plan sets both roles")
            self.base = pd.decode_base(self.base)
        if not any(f[0] == "--trust-remote-code" for f in self.fixed):
            self.notes.append("--trust-remote-code is never added (it runs the checkpoint's own code; SGLang 0.5.23 reads "
                              "the hybrid and DSA configs through its own registry, srt/utils/hf_transformers/common.py "
                              "_CONFIG_REGISTRY): give it in --args if your checkpoint needs it")
        self.counts = Counts()
        self.deadline = t0 + req.budget_s
        self.t0 = self.last_progress = t0
        self.kv_cache: dict[int, tuple[kv.KVShape | None, str]] = {}
        self.kept: list[Candidate] = []
        self.signatures: set[tuple[Any, ...]] = set()
        self.misses: list[tuple[Verdict, str]] = []
        self.first_miss: list[Verdict] = []  # the speculative settings screened out (phase 1)
        self.budget_spent = False

    # --- the search space and the steps every phase takes ----------------------------------

    def search_space(self) -> tuple[list[tuple[Flags, str]], list[space.Spec], list[tuple[str, list[Flags]]]]:
        """The layouts, speculative settings and other dimensions to search (notes on what is not)."""
        from kdacheck import flags as flagmod

        model = self.model
        specs = space.speculative(model, self.req.drafts, _mtp(self.raw_cfg), self.notes, self.version)
        if architectures.lookup(model.architecture).mtp_draft:
            # Nemotron-H's MTP draft: the target's own path, written out (SGLang's resolution leaves it None and the
            # draft worker falls back to the target's, 0.5.23 configs/model_config.py L956; MODEL004)
            draft = ("--speculative-draft-model-path", self.model_path)
            specs = [space.Spec(s.algorithm, (*s.flags, draft), s.label) if s.algorithm == "NEXTN" else s for s in specs]
        table = flagmod.table(self.version)
        layouts = space.layouts(self.req.tp, self.req.gpus, model, table.has_dest("attn_dp_size"), self.version)
        layouts = space.buildable(model, self.version, layouts, self.counts)
        flag = next(iter(table.by_dest.get("linear_attn_verify_backend", ())), None)
        backends, decode = space.backend_choices(self.version, self.counts if model.family.hybrid else None)
        if flag is not None and flag.choices and model.family.hybrid:
            self.notes.append("linear-attention backends not searched (no kdacheck rule or kernel models them, so a clean "
                              "lint would say nothing about them): "
                              + ", ".join(b for b in flag.choices if b not in space.MODELLED_BACKENDS))
        dims = space.dimensions(model, backends, any(f[0] == "--enable-hisparse" for f in self.fixed), self.version, decode)
        return layouts, specs, dims

    def out_of_budget(self) -> bool:
        return time.monotonic() > self.deadline or self.counts.linted >= self.req.max_candidates

    def lint(self, flags: Flags) -> Verdict:
        self.counts.linted += 1
        self.report_progress()
        return judge(flags, self.opts)

    def report_progress(self) -> None:
        """``Request.progress``: once the search has run PROGRESS_AFTER_S, a line on standard error
        each PROGRESS_EVERY_S (lines linted, kept, the budget left); never on standard output."""
        if not self.req.progress:
            return
        now = time.monotonic()
        if now - self.t0 < PROGRESS_AFTER_S or now - self.last_progress < PROGRESS_EVERY_S:
            return
        self.last_progress = now
        left = max(0.0, self.deadline - now)
        sys.stderr.write(f"kdacheck plan: searching: {self.counts.linted} linted, {len(self.kept)} kept, "
                         f"{now - self.t0:.0f} s ({left:.0f} s of --budget-s left)\n")
        sys.stderr.flush()

    def judge_fit(self, v: Verdict) -> tuple[bool, str, dict[str, Any] | None, int | None]:
        """Whether a linted line fits: clean, memory left for the KV cache, and --min-context
        KV tokens per request at its R; else why not."""
        if not v.clean:
            return False, v.first_problem(), None, None
        cfg = v.cfg
        mem = _memory(v, self.gpu.memory_bytes)
        R = mem["R"] or cfg.v("R")
        tp = int(cfg.v("tp_size") or 1)
        if tp not in self.kv_cache:
            self.kv_cache[tp] = kv.shape(self.raw_cfg, self.cfg_where, self.model, tp)
        shape, _why = self.kv_cache[tp]
        tokens = None
        if mem["kv_rest_gib"] is None or mem["kv_rest_gib"] <= 0:
            return False, f"memory: nothing left for the KV cache ({mem['kv_rest_gib']} GiB)", mem, None
        if shape is not None and R:
            dtype = cfg.v("dsa_kv_cache_dtype") if "dsa_kv_cache_dtype" in cfg else cfg.v("kv_cache_dtype")
            tokens = int(mem["kv_rest_gib"] * 2**30 // max(1, shape.bytes_per_token(kv.dtype_bytes(dtype))) // int(R))
            if tokens < self.req.min_context:
                return False, f"--min-context: {tokens:,} KV tokens per request at R = {R} (< {self.req.min_context:,})", mem, tokens
        return True, "", mem, tokens

    def keep(self, v: Verdict, label: str, mem: dict[str, Any], tokens: int | None) -> None:
        """Keep a clean candidate unless SGLang resolves it exactly as one already kept (an
        explicit value equal to SGLang's own choice): the shorter line stays."""
        sig = _signature(v)
        if sig in self.signatures:
            self.counts.prune("resolves as a shorter line already kept")
            return
        self.signatures.add(sig)
        self.kept.append(Candidate(v, label, mem, cost.score(v.cfg, self.gpu.name, self.req.acceptance), tokens))

    # --- 1. screen the layouts and speculative settings against SGLang's defaults for the rest

    def screen_layouts(self, layouts: list[tuple[Flags, str]], specs: list[space.Spec]) -> list[tuple[Flags, str]]:
        """The layouts that lint clean (or are refused only for memory) with some speculative
        setting: tried in order until one passes, as the first may fail for a reason of its own
        (an algorithm the model class cannot run, SPEC016)."""
        self.counts.considered += len(layouts) * len(specs)
        ok: list[tuple[Flags, str]] = []
        for lay, lay_label in layouts:
            v = self.lint(self.base + lay + specs[0].flags) if specs else self.lint(self.base + lay)
            for s in specs[1:]:
                if v.clean or v.memory_blocked:
                    break
                v = self.lint(self.base + lay + s.flags)
            if v.clean or v.memory_blocked:
                ok.append((lay, lay_label))
            else:
                self.counts.prune(f"layout: {v.first_problem()[:120]}", len(specs))
        return ok

    def screen_specs(self, lay0: Flags, specs: list[space.Spec]) -> list[space.Spec]:
        """The speculative settings that lint clean (or memory-blocked) on the first layout."""
        ok: list[space.Spec] = []
        for s in specs:
            v = self.lint(self.base + lay0 + s.flags)
            if v.clean or v.memory_blocked:
                ok.append(s)
            else:
                self.first_miss.append(v)
                self.counts.prune(f"{s.algorithm}: {v.first_problem()[:120]}")
        for algo in dict.fromkeys(s.algorithm for s in specs):
            if not any(s.algorithm == algo for s in ok):  # every setting of it refused: said, with the first reason
                why = next((m.first_problem() for m in self.first_miss if _algorithm(m) == algo), "refused")
                self.notes.append(f"cannot plan {algo}: {why[:300]}")
        return ok

    # --- 2. screen each dimension's values alone (the first clean setting as the base) ------

    def screen_dimensions(self, ref: Flags, dims: list[tuple[str, list[Flags]]]) -> list[tuple[str, list[Flags]]]:
        """Each dimension with the values that lint clean on ``ref`` and change what SGLang
        resolves (its first value, SGLang's default, always kept)."""
        ref_v = self.lint(ref)
        ref_sig = _signature(ref_v) if ref_v.cfg is not None else None
        out: list[tuple[str, list[Flags]]] = []
        for name, values in dims:
            kept_values: list[Flags] = [()]
            for val in values[1:]:
                self.counts.considered += 1
                v = self.lint(ref + val)
                if not (v.clean or v.memory_blocked):
                    self.counts.prune(f"{name}: {v.first_problem()[:120]}")
                elif v.cfg is not None and _signature(v) == ref_sig:
                    self.counts.prune(f"{name}: the value SGLang chooses anyway")
                else:
                    kept_values.append(val)
            out.append((name, kept_values))
        return out

    # --- 3. cross the memory dimensions, R by binary search on its monotone fit -------------

    def cross(self, layouts: list[tuple[Flags, str]], specs: list[space.Spec], crossed: list[tuple[str, list[Flags]]]) -> None:
        groups = [(lay, lay_label, s, combo) for lay, lay_label in layouts for s in specs for combo in space.cross(crossed)]
        order = _interleaved(groups)
        self.counts.considered += len(order) * len(space.REQUESTS)
        for lay, lay_label, s, combo in order:
            if self.out_of_budget():
                self.budget_spent = True
                break
            label = f"{s.label}, {lay_label}" + "".join(f", {o.lstrip('-')} {val}" if val else f", {o.lstrip('-')}" for o, val in combo)
            self.fit_group(self.base + lay + s.flags + combo, label)

    def fit_group(self, prefix: Flags, label: str) -> None:
        """Keep the largest R that fits ``prefix`` and the ones just below it."""
        fits, tried = self.largest_r(prefix)
        if not fits:
            self.counts.prune("memory or rules at every R", len(space.REQUESTS) - tried)
            return
        best = max(fits)
        for idx in range(best - 1, max(-1, best - R_KEPT_PER_GROUP), -1):
            if idx not in fits and not self.out_of_budget():
                v = self.lint(_with_r(prefix, idx))
                tried += 1
                ok, _why, mem, tokens = self.judge_fit(v)
                if ok and mem is not None:
                    fits[idx] = (v, mem, tokens)
        self.counts.prune("memory monotone in R", max(0, len(space.REQUESTS) - tried))
        for idx in sorted(fits, reverse=True)[:R_KEPT_PER_GROUP]:
            v, mem, tokens = fits[idx]
            self.keep(v, label, mem, tokens)

    def largest_r(self, prefix: Flags) -> tuple[dict[int, _Fit], int]:
        """Binary search over ``space.REQUESTS`` for the largest R that fits (memory is
        monotone in R); a refusal R does not cure ends it. The fits found, and lines linted."""
        lo, hi = 0, len(space.REQUESTS) - 1
        fits: dict[int, _Fit] = {}
        tried = 0
        while lo <= hi and not self.out_of_budget():
            mid = (lo + hi) // 2
            v = self.lint(_with_r(prefix, mid))
            tried += 1
            ok, why, mem, tokens = self.judge_fit(v)
            if ok and mem is not None:
                fits[mid] = (v, mem, tokens)
                lo = mid + 1
            else:
                self.misses.append((v, why))
                if not (v.memory_blocked or why.startswith(("--min-context", "memory"))):
                    break  # not a memory refusal: R does not cure it
                hi = mid - 1
        return fits, tried

    # --- 4. variants of the best candidates over the dimensions that do not change their figures

    def variants(self, variant_dims: list[tuple[str, list[Flags]]]) -> None:
        self.kept.sort(key=lambda c: -c.score.throughput)
        for c in list(self.kept[:3]):
            for _name, values in variant_dims:
                for val in values[1:]:
                    if self.out_of_budget():
                        self.budget_spent = True
                        break
                    self.counts.considered += 1
                    self.variant(c, val)

    def variant(self, c: Candidate, val: Flags) -> None:
        """``c`` with ``val`` added before its ``--max-running-requests``: kept if it fits."""
        v = self.lint(c.verdict.flags[:-1] + val + c.verdict.flags[-1:])
        ok, why, mem, tokens = self.judge_fit(v)
        if ok and mem is not None:
            self.keep(v, f"{c.label}, {' '.join(o.lstrip('-') + (' ' + x if isinstance(x, str) else '') for o, x in val)}", mem, tokens)
        else:
            self.misses.append((v, why))

    # --- the ranking ------------------------------------------------------------------------

    def on_target(self, kept: list[Candidate]) -> list[Candidate]:
        """The candidates that meet ``--min-tokens-per-user`` / ``--min-tokens-per-gpu`` (the cost
        model's estimates, tokens/s/user = τ / t_step and tokens/s/GPU, as NVIDIA's aiconfigurator
        reports its targets); the others dropped, counted and said. None left: PlanError naming
        the best estimate reached."""
        req = self.req
        if req.min_tokens_per_user is None and req.min_tokens_per_gpu is None:
            return kept
        ok = [c for c in kept if (req.min_tokens_per_user is None or c.score.per_user >= req.min_tokens_per_user)
              and (req.min_tokens_per_gpu is None or c.score.throughput >= req.min_tokens_per_gpu)]
        if len(ok) < len(kept):
            self.counts.prune("below the --min-tokens-per-user / --min-tokens-per-gpu target", len(kept) - len(ok))
            self.notes.append(f"{len(kept) - len(ok)} of {len(kept)} kept lines dropped: below the target "
                              f"(tokens/s/user ≥ {req.min_tokens_per_user}, tokens/s/GPU ≥ {req.min_tokens_per_gpu}; "
                              "the cost model's estimates)")
        if kept and not ok:
            best_user = max(c.score.per_user for c in kept)
            best_gpu = max(c.score.throughput for c in kept)
            raise PlanError(f"no launch of {self.model.name} meets the target: of {len(kept)} lines that lint clean and "
                            f"fit, the best estimates are {best_user:,.0f} tokens/s/user and {best_gpu:,.0f} tokens/s/GPU "
                            "(not on the same line necessarily); lower --min-tokens-per-user / --min-tokens-per-gpu")
        return ok

    def paired(self, kept: list[Candidate]) -> list[Candidate]:
        """``--pd``: each decode line, best estimate first, linted with its prefill twin as one
        deployment until :data:`PAIRS_KEPT` pairs pass; the pairs that do not are dropped and
        counted. None passes: PlanError with the first pair's problem."""
        ok: list[Candidate] = []
        failed: list[pd.Pair] = []
        ranked = sorted(kept, key=lambda c: -c.score.throughput)
        for c in ranked:
            if len(ok) >= PAIRS_KEPT:
                break
            pair = pd.check(c.verdict.flags, self.opts)
            if pair.clean:
                c.pair = pair
                ok.append(c)
            else:
                failed.append(pair)
        if failed:
            self.counts.prune("the prefill/decode pair does not lint clean", len(failed))
            self.notes.append(f"{len(failed)} decode line(s) dropped: their prefill pair does not lint clean "
                              f"(first: {failed[0].first_problem()})")
        if len(ranked) > len(ok) + len(failed):
            self.notes.append(f"--pd: the {len(ok)} best decode lines by the estimate were paired; "
                              f"{len(ranked) - len(ok) - len(failed)} more were not")
        if not ok:
            raise PlanError(f"no prefill/decode pair of {self.model.name} lints clean: "
                            + (failed[0].first_problem() if failed else "no decode line to pair"))
        return ok

    def result(self) -> Result:
        """The kept candidates ranked (the Pareto front first), or PlanError with the closest miss."""
        kept, notes, req = self.kept, self.notes, self.req
        self.counts.kept = len(kept)
        if any(int(c.memory["R"] or 0) >= space.REQUESTS[-1] for c in kept):
            notes.append(f"R reached the search's largest value ({space.REQUESTS[-1]}): more requests may fit; "
                         "the plan does not try them")
        kept = self.kept = self.on_target(kept)
        self.counts.kept = len(kept)
        if not kept:
            misses = self.misses + [(v, v.first_problem()) for v in self.first_miss]
            why = _no_plan(misses, self.counts, self.model, self.gpu.name, req)
            if self.budget_spent or self.out_of_budget():
                why += (f"; the search stopped at its time budget or candidate cap (--budget-s {req.budget_s:g}, a cap of "
                        f"{req.max_candidates} lints) before every setting was tried: a larger "
                        "--budget-s may find one")
            raise PlanError(why)
        if req.pd:
            kept = self.kept = self.paired(kept)
        marks = cost.pareto([(c.score.throughput, c.score.latency_s, c.served) for c in kept])
        for c, m in zip(kept, marks, strict=True):
            c.pareto = m
        kept.sort(key=lambda c: (not c.pareto, -c.score.throughput, c.score.latency_s, -(c.kv_tokens_per_request or 0)))
        shape, kv_how = self.kv_cache.get(next(iter(self.kv_cache), 0), (None, "")) if self.kv_cache else (None, "")
        if shape is None:
            notes.append(f"--min-context could not be checked: {kv_how or 'no KV shape'}")
        opts_line = [f"--model {req.model}", f"--gpu {self.gpu.name}", f"--sglang-version {self.version}"]
        return Result(req, self.version, self.model, self.model_note, self.counts, kept, notes, self.budget_spent,
                      shape.how if shape else kv_how, opts_line)


def run(req: Request) -> Result:
    """The plan: screen the layouts and speculative settings (1), then each other dimension
    alone (2), cross the memory dimensions with R by binary search (3), vary the best
    candidates over the dimensions that do not change their figures (4), rank."""
    s = Search(req)
    layouts, specs, dims = s.search_space()
    ok_layouts = s.screen_layouts(layouts, specs)
    lay0 = ok_layouts[0][0] if ok_layouts else (layouts[0][0] if layouts else ())
    ok_specs = s.screen_specs(lay0, specs)
    ok_dims = s.screen_dimensions(s.base + lay0 + (ok_specs[0].flags if ok_specs else ()), dims)
    # backends and chunked prefill change neither memory nor the cost model's figures: they are
    # searched as variants of the best candidates (phase 4), the rest crossed in phase 3
    variant_dims = [d for d in ok_dims if d[0] in space.VARIANT_DIMENSIONS]
    s.cross(ok_layouts, ok_specs, [d for d in ok_dims if d not in variant_dims])
    s.variants(variant_dims)
    return s.result()


def _algorithm(v: Verdict) -> str:
    """The ``--speculative-algorithm`` a line names, as written."""
    for opt, val in v.flags:
        if opt == "--speculative-algorithm" and isinstance(val, str):
            return val
    return ""


def _signature(v: Verdict) -> tuple[Any, ...]:
    """What SGLang resolves the line to (its ServerArgs fields as kdacheck resolves them)."""
    from kdacheck.report.values import layers

    return tuple((key, repr(value)) for key, (_g, value, *_rest) in layers(v.cfg).items() if key.startswith("sglang."))


def _weights_gib(v: Verdict) -> float | None:
    """The weights per rank in GiB as lint resolved them, else as the plan estimates them (a
    model without a hybrid state pool: parameters × bytes / (tp × pp)); None when neither is
    known (never a placeholder figure)."""
    cfg = v.cfg
    if cfg is None:
        return None
    w = cfg.v("weight_bytes_per_rank") if "weight_bytes_per_rank" in cfg else None
    if isinstance(w, (int, float)) and w > 0:
        return float(w) / 2**30
    m = cfg.model
    if m is None or not m.params:
        return None
    ranks = max(1, int(cfg.v("tp_size") or 1)) * max(1, int(cfg.v("pp_size") or 1))
    return float(m.params * m.weight_bytes_per_param / ranks / 2**30)


def _no_plan(misses: list[tuple[Verdict, str]], counts: Counts, model: Model, gpu: str, req: Request) -> str:
    if not misses:
        return f"no launch of {model.name} on {gpu} could be tried within the budget ({counts.linted} linted)"
    kinds = Counter(why.split(":")[0].split(" ")[0] for _v, why in misses)
    binding, n = kinds.most_common(1)[0]
    # the closest miss: the fewest blocking findings, the most memory left, the shortest line, the most KV left
    def num(v: Verdict, name: str) -> float:
        x = v.cfg.v(name) if v.cfg is not None and name in v.cfg else None
        return float(x) if isinstance(x, (int, float)) else -1e9

    def key(item: tuple[Verdict, str]) -> tuple[int, float, int, float]:
        v, _ = item
        return (len(v.blocking) + (1 if v.error else 0), -num(v, "mem_rest_gib"), len(v.text), -num(v, "mem_kv_rest_gib"))
    v, why = min(misses, key=key)
    weights = ""
    w = _weights_gib(v)
    if v.cfg is not None and num(v, "mem_rest_gib") < 0 and w is not None:
        weights = (f"; the weights alone ({w:.1f} GiB per rank, assumed) exceed the static pool (GPU × mem_fraction_static "
                   f"{v.cfg.v('mem_fraction_static')}): more GPUs (--tp), lighter weights (an FP8 checkpoint) or a larger GPU")
    return (f"no launch of {model.name} on {req.tp or req.gpus or 1} × {gpu} passes every rule and fits: the binding "
            f"constraint is {binding} ({n} of {len(misses)} candidates tried){weights}; closest miss: {v.text} ({why[:300]}); "
            f"{counts.linted} linted")

