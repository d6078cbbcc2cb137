"""Speculative decoding: the algorithm, (S, K, D), adaptive candidates, the verify width, and
the requests the scratch is sized for.

Mirrors 0.5.23 ``srt/arg_groups/speculative_hook.py`` ``handle_speculative_decoding``
(``_handle_eagle_family``, ``_auto_choose_speculative_params``, the NGRAM, DSPARK and DFLASH
handlers, the adaptive initialisation that runs before them) and the default of 48 running
requests under speculation; ``kv_cache_configurator.py`` ``_build_hybrid_req_pool`` for the
scratch width ``max_speculative_num_draft_tokens()``.

Reads: the flags, the model's architecture, ``dp_attention``, ``attn_dp_size``.
Sets: the names of ``algorithm.sets`` and ``requests.sets``; records ``Event``s for what SGLang
refuses or rewrites.
"""

from __future__ import annotations

from typing import Any

from kdacheck import architectures, versions
from kdacheck.resolve.core import Event, Resolved, step

EAGLE_FAMILY = ("EAGLE", "EAGLE3")
BUILTIN_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK")


def adaptive_default_candidates(version: str) -> tuple[int, ...]:
    """The union of the candidate steps of SGLang's ``DEFAULT_ADAPTIVE_CONFIG``."""
    return (0, 1, 3, 5, 7) if versions.at_least(version, versions.ADAPTIVE_FIVE_CANDIDATES) else (0, 1, 3, 7)


@step(
    "speculative decoding",
    mirrors="0.5.23 srt/arg_groups/speculative_hook.py handle_speculative_decoding",
    sets=("speculative_algorithm", "spec_on", "steps", "topk", "draft_tokens", "speculative_adaptive", "adaptive",
          "adaptive_candidates", "d_max", "ngram_breadth", "dspark_gamma", "dflash_block_size", "verify_width_max",
          "speculative_adaptive_config"),
)
def algorithm(r: Resolved) -> None:
    r.flag("speculative_adaptive_config")
    algo_val = r.flag("speculative_algorithm")
    algo = str(algo_val.value).upper() if algo_val.value else None
    if algo == "NEXTN":
        algo = "EAGLE"
        r.put("speculative_algorithm", "EAGLE", "NEXTN is an alias of EAGLE", loc=algo_val.loc)
    elif algo:
        r.put("speculative_algorithm", algo, algo_val.why, algo_val.origin, algo_val.loc)
    r.put("spec_on", algo is not None, "--speculative-algorithm given" if algo else "no speculative decoding")
    s = r.flag("steps", "speculative_num_steps")
    k = r.flag("topk", "speculative_eagle_topk")
    d = r.flag("draft_tokens", "speculative_num_draft_tokens")
    r.flag("speculative_adaptive")
    r.put("adaptive", False, "not asked for")
    if algo is None:
        _d_max(r)
        return
    S, K, D = s.value, k.value, d.value
    arch = r.model.architecture if r.model else None
    # SGLang runs the adaptive disable/init step before the per-algorithm handler.
    if r.user("speculative_adaptive"):
        _adaptive(r, S, K)
        S, K, D = r.v("steps"), r.v("topk"), r.v("draft_tokens")
    adaptive = bool(r.v("adaptive"))
    if algo in EAGLE_FAMILY or algo == "STANDALONE":
        if S is None and not adaptive:
            if K is not None or D is not None:
                r.events.add(Event.TOPK_OR_DRAFT_WITHOUT_STEPS)  # a bare AssertionError; keep the user's values
                _d_max(r)
                return
            big = architectures.lookup(arch).large_draft and algo != "STANDALONE"
            S, K, D = (5, 4, 8) if big else (3, 1, 4)
            if algo == "STANDALONE":
                why = "auto-chosen: STANDALONE always 3/1/4"
            else:
                why = f"auto-chosen for {arch or 'this model'}" + (" (Llama/Grok: 5/4/8)" if big else " (3/1/4)")
            r.put("steps", S, why)
            r.put("topk", K, why)
            r.put("draft_tokens", D, why)
        if S is not None and K is None and not adaptive:
            r.events.add(Event.STEPS_WITHOUT_TOPK)  # `speculative_eagle_topk > 1` on None: TypeError
        if K == 1 and S is not None and D != S + 1:
            if D is not None and not adaptive:
                r.events.add(Event.DRAFT_TOKENS_OVERRIDDEN)
            r.put("draft_tokens", S + 1, "topk 1 ⇒ steps + 1" + (f" (SGLang overrides the given {D})" if D is not None else ""), loc=d.loc)
        if K is not None and K > 1 and D is None:
            r.events.add(Event.TREE_WITHOUT_DRAFT_TOKENS)
    elif algo == "NGRAM":
        breadth = r.flag("ngram_breadth", "speculative_ngram_max_bfs_breadth").value
        r.put("topk", breadth, f"NGRAM: topk = --speculative-ngram-max-bfs-breadth ({r['ngram_breadth'].why})")
        if D is None:
            D = 12
            r.put("draft_tokens", D, "NGRAM default 12")
        if S is None and breadth:
            r.put("steps", D // breadth, f"NGRAM: draft tokens {D} // breadth {breadth}")
    elif algo == "DSPARK":
        r.put("steps", 1, "DSPARK: steps 1")
        r.put("topk", 1, "DSPARK: topk 1")
        gamma = r.flag("dspark_gamma", "speculative_dspark_block_size").value
        if gamma is None and r.draft_block[0] is not None:  # the draft checkpoint's (0.5.23 speculative_hook.py L814-822)
            gamma = r.draft_block[0]
            r.put("dspark_gamma", gamma, r.draft_block[1], "model")
        if gamma is None and D is None:
            gamma = 7
            r.put("dspark_gamma", 7, "DSPARK default gamma 7 (DEFAULT_DSPARK_GAMMA)")
        if gamma is not None and (D is None or gamma + 1 == D):
            r.put("draft_tokens", gamma + 1, f"DSPARK: gamma {gamma} + 1", loc=d.loc)
    elif algo == "DFLASH":
        r.put("steps", 1, "DFLASH: steps 1")
        r.put("topk", 1, "DFLASH: topk 1")
        bs = r.flag("dflash_block_size", "speculative_dflash_block_size").value
        if D is None:
            if bs is not None:
                r.put("draft_tokens", bs, "DFLASH: the block size")
            else:
                r.put("draft_tokens", 16, "DFLASH default 16 (when the draft config has no block size: assumed)", "assumed")
    _verify_width(r)
    _d_max(r)


def _d_max(r: Resolved) -> None:
    D = r.v("draft_tokens")
    if "d_max" not in r.vals and D is not None:
        r.put("d_max", D, "the verify width D (no adaptive)")


def _verify_width(r: Resolved) -> None:
    """The widest verify batch per request, which the scratch is allocated with.

    SGLang allocates the scratch with ``max_speculative_num_draft_tokens()`` =
    max(D, max(candidate steps) + 1 under adaptive) in every version 0.5.19–0.5.23
    (``kv_cache_configurator.py`` ``_build_hybrid_req_pool``), and no algorithm verifies
    more than that per request: the two are equal for every launch configuration.
    """
    D = r.v("draft_tokens")
    if D is None:
        return
    cands = r.v("adaptive_candidates")
    if r.v("adaptive") and cands:
        r.put("verify_width_max", max(max(cands) + 1, D), f"adaptive: widest candidate step {max(cands)} + 1")
    else:
        r.put("verify_width_max", D, "the verify width D")


def _adaptive(r: Resolved, S: Any, K: Any) -> None:
    algo = r.v("speculative_algorithm")
    reasons = []
    if algo not in EAGLE_FAMILY:
        reasons.append(f"algorithm {algo} (only EAGLE/EAGLE3 are supported)")
    elif K is not None and K != 1:
        reasons.append(f"topk {K} (only topk 1 is supported)")
    elif r.v("dp_attention"):
        reasons.append("attention DP")
    elif r.user("enable_multi_layer_eagle"):
        reasons.append("multi-layer EAGLE")
    elif r.user("enable_two_batch_overlap"):
        reasons.append("two-batch overlap")
    elif r.user("enable_pdmux"):
        reasons.append("PD multiplexing (--enable-pdmux)")
    if reasons:
        r.put("adaptive", False, "switched off silently by SGLang: " + ", ".join(reasons), loc=r.place("speculative_adaptive"))
        r.events.add(Event.ADAPTIVE_OFF)
        return
    cands = adaptive_default_candidates(r.version)
    why = f"SGLang {r.version} default candidate steps (union of DEFAULT_ADAPTIVE_CONFIG)"
    path = r.v("speculative_adaptive_config")
    if path:
        conf = json_obj(path) or json_obj(r.cmd.side_files.get(path))
        steps: set[int] = set()
        for key, entry in conf.items():
            if str(key).isdigit() and isinstance(entry, dict) and isinstance(entry.get("candidate_steps"), list):
                steps.update(x for x in entry["candidate_steps"] if isinstance(x, int))
        if steps:
            cands = tuple(sorted(steps))
            why = f"--speculative-adaptive-config {path}: union of the candidate_steps"
        else:
            cands = ()
            why = f"--speculative-adaptive-config {path}: not readable here (candidate steps unknown)"
            if r.cmd.side_files.get(path) is not None:  # read, but not what SGLang reads: say so
                r.cmd.notes.append(f"--speculative-adaptive-config {str(path)[:200]}: no candidate steps kdacheck can read (a JSON "
                                   "object of {\"N\": {\"candidate_steps\": [...]}}, nesting ≤ 32, 64-bit numbers): the candidate steps it sets were not checked")
    r.put("adaptive", True, "--speculative-adaptive", loc=r.place("speculative_adaptive"))
    r.put("adaptive_candidates", list(cands), why)
    r.put("topk", 1, "adaptive: topk 1")
    if S is None and cands:
        S = cands[len(cands) // 2]
        r.put("steps", S, f"adaptive: the middle candidate step {S}")
    if S is not None and cands and S not in cands:
        r.events.add(Event.STEPS_NOT_IN_CANDIDATES)
    if S is not None:
        r.put("draft_tokens", S + 1, "adaptive: steps + 1")
    if cands:
        r.put("d_max", max(max(cands) + 1, (S or 0) + 1), f"adaptive: max candidate step {max(cands)} + 1")


@step(
    "running requests",
    mirrors="0.5.23 srt/arg_groups/speculative_hook.py (48 under speculation); scheduler: requests per attention-DP worker",
    sets=("max_running_requests", "R"),
)
def requests(r: Resolved) -> None:
    model_default = r.vals.get("max_running_requests")  # a model hook's default, before this one (DeepSeek-V4: 256)
    mrr = r.flag("max_running_requests")
    if mrr.value is None and model_default is not None and model_default.origin == "model":
        mrr = r.put("max_running_requests", model_default.value, model_default.why, "model")
    if mrr.value is None and r.v("spec_on"):
        mrr = r.put("max_running_requests", 48, "SGLang default under speculative decoding")
    adp = r.v("attn_dp_size") or 1
    if mrr.value is not None:
        per = int(mrr.value) // adp
        if r.at_least(versions.REQUESTS_PER_WORKER_CLAMPED):
            per = max(1, per)
        r.put("R", max(0, per), f"max running requests {mrr.value} // attention DP {adp}" if adp > 1 else f"max running requests {mrr.value}", loc=mrr.loc)


def json_obj(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        from kdacheck.args import loads_json

        try:
            out = loads_json(value)  # bounded: depth, 64-bit numbers
        except ValueError:
            return {}
        return out if isinstance(out, dict) else {}
    return {}
