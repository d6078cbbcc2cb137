"""The rule catalogue and the engine that runs it over a resolved configuration."""

from __future__ import annotations

import kdacheck.rules.specalgo  # noqa: F401  (registration: SPEC018-SPEC020)
from kdacheck import flags as flagmod
from kdacheck.findings import NOT_CHECKED, Edit, Evidence, Finding, Severity
from kdacheck.resolve import Resolved
from kdacheck.rules import arg, attn, build, gpu, hsp, kda, mem, model, par, pd, radix, sglang, spec  # noqa: F401  (registration)
from kdacheck.rules.base import REGISTRY, Hit, Rule, rule, unchecked

__all__ = ["REGISTRY", "Hit", "Rule", "all_rules", "check", "rule", "select_rules", "unchecked"]


def all_rules() -> list[Rule]:
    return sorted(REGISTRY.values(), key=lambda r: (_ORDER.index(r.prefix) if r.prefix in _ORDER else 99, r.code))


_ORDER = ["ARG", "MODEL", "PAR", "BUILD", "ATTN", "GPU", "SPEC", "KDA", "MEM", "RADIX", "RSSM", "HSP", "PD", "SGLANG"]


def select_rules(select: list[str] | None, ignore: list[str] | None, extend: list[str] | None = None) -> list[Rule]:
    """Rules chosen by code or prefix, the ruff way: select, then extend-select, minus ignore."""

    def matches(code: str, pats: list[str]) -> bool:
        return any(code.startswith(p.strip().upper()) for p in pats if p.strip())

    rules = all_rules()
    for option, pats in (("--select", select), ("--ignore", ignore), ("--extend-select", extend)):
        for p in pats or []:
            pat = p.strip().upper()
            if pat and pat != "ALL" and not any(r.code.startswith(pat) for r in rules):
                import difflib

                prefixes = sorted({r.prefix for r in rules})
                close = difflib.get_close_matches(pat, [r.code for r in rules] + prefixes, n=1)
                hint = f"; did you mean {close[0]}?" if close else f"; did you mean one of {', '.join(prefixes)} (`kdacheck rules`)?"
                raise ValueError(f"{option} {p.strip()}: no rule code starts with `{pat}`{hint}")
    if select and any(p.strip().upper() == "ALL" for p in select):
        select = None
    chosen = [r for r in rules if matches(r.code, select)] if select else list(rules)
    if extend:
        chosen += [r for r in rules if matches(r.code, extend) and r not in chosen]
    if ignore:
        chosen = [r for r in chosen if not matches(r.code, ignore)]
    return chosen


def unknown_hit(why: str, hits: list[Hit]) -> Hit:
    """One "could not be checked" in place of a rule's hits that rest on an unknown value."""
    import re

    var = re.search(r"`\$\{?([A-Za-z_][A-Za-z0-9_]*)", why)
    fix = f"give it with `--env {var.group(1)}=...`" if var else "write the value in the launch, or give it with `--env`"
    at = next((h.at for h in hits if h.at is not None), None)
    return Hit(f"{NOT_CHECKED}: {why}", fix, hits[0].values if hits else (), at, Severity.INFO)


def evidence(cfg: Resolved, names: tuple[str, ...]) -> tuple[Evidence, ...]:
    out = []
    for n in names:  # resolved values, or flags by their dest (``Hit.values``)
        val = cfg.vals.get(n)
        if val is not None:
            out.append(Evidence(n, str(val.value), val.why))
    return tuple(out)


def _edits(cfg: Resolved, hit: Hit) -> tuple[Edit, ...]:
    """The edits a hit's ``sets`` make (kdacheck.fix is imported only for a hit that has some)."""
    if not hit.sets:
        return ()
    from kdacheck.fix import set_flag

    return tuple(e for name, value, safe in hit.sets for e in set_flag(cfg, name, value, safe))


def _cannot_set(cfg: Resolved, name: str) -> str:
    from kdacheck.fix import cannot_set

    return cannot_set(cfg, name)


def check(cfg: Resolved, rules: list[Rule] | None = None) -> list[Finding]:
    """Every finding of every applicable rule, in one pass."""
    findings: list[Finding] = []
    chosen = [r for r in (rules if rules is not None else all_rules()) if r.applies_to(cfg.version)]
    if cfg.model is None:  # rules that need the geometry do not run; MODEL001 names the relevant ones
        cfg.not_checked = model.not_checked(cfg, chosen) if cfg.user("model_path") else []
        chosen = [r for r in chosen if r.needs not in ("model", "state")]
    elif cfg.model.unmodelled:  # a config read, but its state not modelled: MODEL001 names what is not checked
        cfg.not_checked = model.not_checked(cfg, chosen)
        chosen = [r for r in chosen if r.code not in cfg.not_checked]
    for r in sorted(chosen, key=lambda r: r.code == "MODEL001"):  # MODEL001 reads not_checked: last
        cfg.taint_seen = None
        hits = list(r.check(cfg))
        why = cfg.taint_seen or next((cfg.tainted[n] for h in hits for n in h.values if n in cfg.tainted), None)
        if why is not None and hits and not all(h.message.startswith(NOT_CHECKED) for h in hits):
            # the rule's verdict rests on a value that is not known statically: say so, never guess
            hits = [unknown_hit(why, hits)]
            cfg.unknown_checks.append(r.code)
        elif not hits and cfg.taint_seen is not None and r.code not in cfg.unknown_checks:
            cfg.unknown_checks.append(r.code)  # a pass that read an unknown value is no pass: "as far as checked"
        for hit in hits:
            sets = _edits(cfg, hit)
            findings.append(
                Finding(
                    code=r.code,
                    severity=hit.severity if hit.severity is not None else r.severity,
                    message=flagmod.respell(hit.message, cfg.version),  # written with the newest options
                    location=hit.at or cfg.place(*hit.values),
                    fix=flagmod.respell(f"{hit.fix} ({_cannot_set(cfg, hit.sets[0][0])})" if hit.fix and hit.sets and not sets else hit.fix,
                                        cfg.version) if hit.fix else None,
                    evidence=evidence(cfg, hit.values) + tuple(Evidence(n, v, "picture") for n, v in hit.pictures),
                    source=cfg.cmd.role,
                    edits=hit.edits + sets,
                )
            )
    return findings
