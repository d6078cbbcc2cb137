"""Known SGLang runtime bugs as data (``data/known_bugs.json``) and the one evaluator of their conditions.

Each entry names a version range (``affected`` ≤ version < ``fixed``; ``fixed`` null: open), a
condition that is a list of predicates, all of which must hold, and its public source (``url``).
The condition language is data, never code: a predicate is one of

    {"value": NAME, "in": [...]}   a resolved value (``Resolved.v``) equals one of these
    {"value": NAME, "set": true}   a resolved value is present (not None); false: absent
    {"value": NAME, "gt": N}       a resolved number is greater than N
    {"flag": DEST, "in": [...]}    a flag as written (``Resolved.user``: not SGLang's default, which
                                   for a version kdacheck has no table of is not known)
    {"env": NAME, "in": [...]}     an environment variable the launch sets (``LaunchCommand.env``)
    {"model": WORD}                the model's family (``Family`` value) is WORD, or "hybrid"
                                   (SGLang keeps recurrent state for it)

A predicate kdacheck cannot decide (an unknown model) is false: the table warns only on what it
knows. ``load`` validates the whole table (tests/test_known_bugs.py holds every entry to it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from kdacheck.versions import vtuple

if TYPE_CHECKING:
    from kdacheck.resolve.core import Resolved

SOURCE_PREFIX = "https://github.com/sgl-project/sglang/"
OPS = ("in", "set", "gt")


@dataclass(frozen=True)
class Bug:
    id: str
    summary: str
    url: str
    also: tuple[str, ...]
    affected: str
    fixed: str | None
    fixed_note: str
    when: tuple[dict[str, Any], ...]
    workaround: str

    def in_range(self, version: str) -> bool:
        v = vtuple(version)
        return vtuple(self.affected) <= v and (self.fixed is None or v < vtuple(self.fixed))


def _problem(e: dict[str, Any]) -> str | None:
    """What is wrong with one entry, or None."""
    for key in ("id", "summary", "url", "affected", "fixed_note", "workaround"):
        if not isinstance(e.get(key), str) or not e[key]:
            return f"{key} missing"
    urls = [e["url"], *e.get("also", [])]
    if not all(isinstance(u, str) and u.startswith(SOURCE_PREFIX) and u.rsplit("/", 1)[-1].isdigit() for u in urls):
        return "a source is not an sglang issue or pull request URL"
    try:
        lo = vtuple(e["affected"])
        hi = vtuple(e["fixed"]) if e.get("fixed") is not None else None
    except (TypeError, ValueError, AttributeError):
        return "a version is not a version"
    if not lo or (e.get("fixed") is not None and not hi):
        return "a version is not a version"
    if hi is not None and not lo < hi:
        return "fixed is not after affected"
    when = e.get("when")
    if not isinstance(when, list) or not when:
        return "no condition"
    for p in when:
        kinds = [k for k in ("value", "flag", "env", "model") if k in p]
        if len(kinds) != 1 or not isinstance(p[kinds[0]], str):
            return f"predicate {p!r}: one of value, flag, env, model"
        if kinds[0] == "model":
            if set(p) != {"model"}:
                return f"predicate {p!r}: model takes no operator"
            continue
        ops = [k for k in p if k in OPS]
        if len(ops) != 1 or len(p) != 2 or (kinds[0] in ("env", "flag") and ops != ["in"]):
            return f"predicate {p!r}: one operator of {OPS} (env, flag: in)"
    return None


@lru_cache(maxsize=1)
def load() -> tuple[Bug, ...]:
    doc = json.loads(resources.files("kdacheck").joinpath("data/known_bugs.json").read_text(encoding="utf-8"))
    out = []
    for e in doc["bugs"]:
        problem = _problem(e)
        if problem:
            raise ValueError(f"kdacheck/data/known_bugs.json {e.get('id')!r}: {problem}")
        out.append(Bug(e["id"], e["summary"], e["url"], tuple(e.get("also", ())), e["affected"], e.get("fixed"),
                       e["fixed_note"], tuple(e["when"]), e["workaround"]))
    return tuple(out)


# Variables rules read besides the table's: SGLang's EnvBool switches of its start-up checks (speculative_hook.py
# SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION: SPEC014 for DFLASH and DSPARK under attention DP, SPEC018 for the
# algorithms it allows; PAR003: SGLANG_ENABLE_PP_SPEC; PD008: SGLANG_DISAGG_STAGING_BUFFER, SGLANG_RUST_SERVER)
RULE_ENV = frozenset({"SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION", "SGLANG_ENABLE_PP_SPEC", "SGLANG_DISAGG_STAGING_BUFFER",
                      "SGLANG_RUST_SERVER"})


@lru_cache(maxsize=1)
def env_names() -> frozenset[str]:
    """The environment variables the table and the rules read (the readers keep these, and only these)."""
    return frozenset(p["env"] for b in load() for p in b.when if "env" in p) | RULE_ENV


def value_names() -> frozenset[str]:
    return frozenset(p["value"] for b in load() for p in b.when if "value" in p)


def flag_names() -> frozenset[str]:
    return frozenset(p["flag"] for b in load() for p in b.when if "flag" in p)


def _holds(p: dict[str, Any], cfg: Resolved) -> bool:
    if "model" in p:
        fam = cfg.family
        if fam is None:
            return False
        return bool(fam.hybrid) if p["model"] == "hybrid" else fam.value == p["model"]
    if "env" in p:
        got = cfg.cmd.env.get(p["env"])
        return got is not None and got in p["in"]
    if "flag" in p:
        given = cfg.user(p["flag"])
        return isinstance(given, str) and given in p["in"]
    val = cfg.v(p["value"])
    if "set" in p:
        return (val is not None) is bool(p["set"])
    if "gt" in p:
        return isinstance(val, (int, float)) and not isinstance(val, bool) and val > p["gt"]
    if isinstance(val, str):
        return any(isinstance(x, str) and x.upper() == val.upper() for x in p["in"])
    return any(val is x or (type(val) is type(x) and val == x) for x in p["in"])


def matching(cfg: Resolved, version: str) -> list[Bug]:
    """The table's entries whose range holds ``version`` and whose condition ``cfg`` meets."""
    return [b for b in load() if b.in_range(version) and all(_holds(p, cfg) for p in b.when)]
