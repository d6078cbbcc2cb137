"""A deployment as a whole: each prefill launch paired with each decode launch, and the pair
rules (``kdacheck/rules/pd.py``) run over the pairs.

A deployment is the launches of one file (a LeaderWorkerSet, RoleBasedGroup, Dynamo graph or
srt-slurm recipe holds both roles) or of the files named with ``lint --deployment``. A launch's
role is its ``--disaggregation-mode`` as SGLang resolves it. Launches that agree on every value
the pair rules compare are one kind: each kind of prefill is compared with each kind of decode,
at most ``MAX_KINDS`` of each (a note says when more were left out), so the work is linear in the
launches plus a bounded number of comparisons, each charged to the file's budget. Findings land
on the first decode launch of their kind, naming both roles; a file with prefill roles and no
decode role (or the reverse) is said in a note.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from kdacheck.readers import bounds
from kdacheck.resolve import Resolved
from kdacheck.results import FileResult
from kdacheck.rules import Rule
from kdacheck.rules.pd import PAIR, attn_tp, check_pair, label, value
from kdacheck.sanitize import visible

MAX_KINDS = 16  # distinct prefill kinds and decode kinds compared (16 x 16 pairs at most)
COMPARED = ("page_size", "kv_cache_dtype", "enable_unified_memory", "dcp_size", "attn_cp_size",
            "enable_kv_cache_sharding", "speculative_algorithm", "model_path")


@dataclass
class Launch:
    """One launch of the deployment: where its result is kept and its resolution."""

    result: FileResult
    index: int

    @property
    def cfg(self) -> Resolved:
        return self.result.resolved[self.index]


def _kind(cfg: Resolved) -> tuple[str, ...]:
    mla = "unknown" if cfg.model is None else str(cfg.model.mla)  # PD004 reads an unknown model as maybe MLA
    return (cfg.version, str(attn_tp(cfg)), mla, *(str(value(cfg, n)) for n in COMPARED))


def _mode(cfg: Resolved) -> str:
    return str(value(cfg, "disaggregation_mode") or "null")


def _names(launches: list[Launch]) -> str:
    shown = ", ".join(f"`{visible(label(x.cfg))}`" for x in launches[:3])
    return shown + (f" and {len(launches) - 3} more" if len(launches) > 3 else "")


def pair_launches(launches: list[Launch], rules: list[Rule], where: str) -> list[str]:
    """Run the pair rules over the deployment ``launches``; their findings are added to the
    decode launches' results. Returns the notes to show (``where``: the file or the files)."""
    budget = bounds.current()
    budget.charge_nodes(len(launches), "pairing prefill and decode roles")
    sides: dict[str, dict[tuple[str, ...], list[Launch]]] = {"prefill": {}, "decode": {}}
    for x in launches:
        mode = _mode(x.cfg)
        if mode in sides:
            sides[mode].setdefault(_kind(x.cfg), []).append(x)
    prefill, decode = sides["prefill"], sides["decode"]
    notes: list[str] = []
    if not prefill and not decode:
        return notes
    if not decode or not prefill:
        have, lack = ("prefill", "decode") if prefill else ("decode", "prefill")
        group = [x for kind in (prefill or decode).values() for x in kind]
        notes.append(f"{where}: {have} role{'s' if len(group) > 1 else ''} {_names(group)} with no {lack} role: "
                     "the pair is not checked (name both sides' files with `--deployment`)")
        return notes
    chosen = [r for r in rules if r.code in PAIR]
    kinds_p, kinds_d = list(prefill.values()), list(decode.values())
    if len(kinds_p) > MAX_KINDS or len(kinds_d) > MAX_KINDS:
        notes.append(f"{where}: {len(kinds_p)} kinds of prefill and {len(kinds_d)} kinds of decode launch: "
                     f"only the first {MAX_KINDS} of each are compared")
    for ds in kinds_d[:MAX_KINDS]:
        d = ds[0]
        for ps in kinds_p[:MAX_KINDS]:
            budget.charge_nodes(len(chosen), "comparing a prefill and a decode role")
            found = check_pair(ps[0].cfg, d.cfg, chosen)
            more = len(ds) - 1
            for f in found:
                if more:
                    f = dataclasses.replace(f, message=f"{f.message} (and {more} more decode role{'s' if more > 1 else ''} alike)")
                d.result.findings.append(f)
                d.result.launch_of.append(d.index)
    return notes


def pair_file(result: FileResult, rules: list[Rule]) -> None:
    """The pairs of one file's launches (its prefill and decode roles)."""
    launches = [Launch(result, i) for i in range(len(result.resolved))]
    result.notes += pair_launches(launches, rules, result.path)
