"""The refusal census: every place SGLang refuses a launch on its start-up path, and which rule reports it.

``kdacheck/data/refusals-<version>.json`` lists the sites, read from each wheel's source by
``benchmarks/sglang_diff/refusal_census.py`` (its ``SCOPE``: the argument pipeline, the ``--config``
merger, the hybrid state pools, speculative worker set-up, model-runner init). Each site has an
``id`` (``<file>::<function>#<n>``, the n-th refusal of that function) that survives line shifts.

``kdacheck/data/census.txt`` maps every id of every version to one verdict:

- ``covered``: the rule codes that report that refusal (``[covered]``: ``ID ~ TEXT = CODE [CODE...]``);
- ``uncovered``: in scope (kdacheck models what it reads) but no rule reports it yet
  (``[uncovered]``: ``ID ~ TEXT``, a ``#`` comment naming the refusal where a rule is on its way);
- ``out``: out of scope, with its one-line reason (``[out]``: ``GLOB [~ TEXT] -- REASON``, a glob over
  ids, optionally only the sites whose message holds TEXT).

TEXT, a piece of the site's message, holds an explicit entry to its refusal: the ordinal of an id
counts the refusals of its function, so a refusal added above another in a later version shifts
the ids after it, and the guard keeps a verdict from passing to another refusal. An explicit id
wins over a pattern; patterns are tried in order. ``tests/test_census.py`` fails on a
site no line maps, an unknown rule code and an id or pattern no version has. Only ``kdacheck rules
--coverage`` and ``kdacheck.docs`` load this module: lint never does.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field
from importlib import resources

from kdacheck import versions

COVERED, UNCOVERED, OUT = "covered", "in scope, not covered", "out of scope"


@dataclass(frozen=True)
class Pattern:
    """An id glob, optionally only where the site's message holds ``text``; its verdict and detail."""

    glob: str
    text: str | None
    kind: str
    detail: str

    def matches(self, site: dict[str, object]) -> bool:
        return fnmatch.fnmatchcase(str(site["id"]), self.glob) and (self.text is None or self.text in str(site["message"]))


@dataclass
class Table:
    explicit: dict[str, list[Pattern]] = field(default_factory=dict)  # id -> its entries (covered, uncovered)
    out: list[Pattern] = field(default_factory=list)

    def entries(self) -> list[Pattern]:
        return [p for ps in self.explicit.values() for p in ps] + self.out

    def verdict(self, site: dict[str, object], version: str | None = None) -> tuple[str, str] | None:
        """(kind, detail) for a site: the codes, the note, or the reason; None when nothing maps it.
        With ``version``, a site whose rules none runs for that version is in scope, not covered."""
        for p in self.explicit.get(str(site["id"]), []):
            if p.matches(site):
                if p.kind == COVERED and version is not None and not _runs(p.detail.split(), version):
                    return UNCOVERED, f"{p.detail} does not run for {version}"
                return p.kind, p.detail
        for p in self.out:
            if p.matches(site):
                return p.kind, p.detail
        return None


def _runs(codes: list[str], version: str) -> bool:
    from kdacheck.rules import REGISTRY

    return any(c in REGISTRY and REGISTRY[c].applies_to(version) for c in codes)


def _entry(body: str, kind: str, detail: str) -> Pattern:
    glob, _, text = body.partition(" ~ ")
    return Pattern(glob.strip(), text.strip() or None, kind, detail)


def parse(text: str) -> Table:
    """census.txt as a Table; a line it cannot read raises ValueError naming the line.

    ``[covered]``: ``ID [~ TEXT] = CODE [CODE...]``; ``[uncovered]``: ``ID [~ TEXT]  # note``;
    ``[out]``: ``GLOB [~ TEXT] -- REASON``. TEXT holds the entry to the refusal whose message has it,
    so an id whose ordinal names another refusal in another version does not take its verdict.
    """
    table, section = Table(), ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        body, _, note = line.partition("  # ")
        if section == "covered" and " = " in body:
            head, _, codes = body.rpartition(" = ")
            p = _entry(head, COVERED, " ".join(codes.split()))
        elif section == "uncovered" and body.strip():
            p = _entry(body, UNCOVERED, note.strip())
        elif section == "out" and " -- " in body:
            head, _, reason = body.partition(" -- ")
            table.out.append(_entry(head, OUT, reason.strip()))
            continue
        else:
            raise ValueError(f"census.txt line {n}: cannot read {line[:80]!r} in section [{section}]")
        if any(c in p.glob for c in "*?["):
            raise ValueError(f"census.txt line {n}: an explicit id is no glob: {p.glob[:80]!r}")
        table.explicit.setdefault(p.glob, []).append(p)
    return table


def load_table() -> Table:
    return parse(resources.files("kdacheck").joinpath("data/census.txt").read_text(encoding="utf-8"))


def load_sites(version: str) -> list[dict[str, object]]:
    data = json.loads(resources.files("kdacheck").joinpath(f"data/refusals-{version}.json").read_text(encoding="utf-8"))
    sites: list[dict[str, object]] = data["sites"]
    return sites


def census_versions() -> list[str]:
    """The versions kdacheck knows that have a census table."""
    root = resources.files("kdacheck").joinpath("data")
    return [v for v in versions.KNOWN if root.joinpath(f"refusals-{v}.json").is_file()]


def area(site: dict[str, object]) -> str:
    """The file a site is counted under in the coverage table (``model_overrides/`` as one)."""
    f = str(site["file"])
    return "arg_groups/model_overrides/" if f.startswith("arg_groups/model_overrides/") else f


def coverage(version: str, table: Table | None = None) -> dict[str, object]:
    """Per file and in total: covered / in scope not covered / out of scope / unmapped, for one version."""
    table = table or load_table()
    per: dict[str, dict[str, int]] = {}
    uncovered: list[dict[str, object]] = []
    for site in load_sites(version):
        v = table.verdict(site, version)
        kind = v[0] if v else "unmapped"
        row = per.setdefault(area(site), {COVERED: 0, UNCOVERED: 0, OUT: 0, "unmapped": 0})
        row[kind] += 1
        if kind == UNCOVERED:
            uncovered.append({"id": site["id"], "place": f"srt/{site['file']}:{site['line']}",
                              "message": site["message"], "note": v[1] if v else ""})
    total = {k: sum(r[k] for r in per.values()) for k in (COVERED, UNCOVERED, OUT, "unmapped")}
    scope = total[COVERED] + total[UNCOVERED]
    return {"version": version, "sites": sum(total.values()), "total": total,
            "in_scope_coverage": round(100 * total[COVERED] / scope, 1) if scope else 0.0,
            "files": dict(sorted(per.items())), "uncovered": uncovered}


def _cell(row: dict[str, int] | None) -> str:
    return "-" if row is None else f"{row[COVERED]}/{row[UNCOVERED]}/{row[OUT]}"


def coverage_text(table: Table | None = None) -> str:
    """``kdacheck rules --coverage``: per version, then per file and version (covered/uncovered/out)."""
    table = table or load_table()
    vs = census_versions()
    reports = [coverage(v, table) for v in vs]
    lines = ["SGLang start-up refusals (kdacheck/data/refusals-<version>.json) and the rules that report them",
             "", f"{'version':<9} {'sites':>5} {'covered':>7} {'in scope, not covered':>21} {'out of scope':>12} "
             f"{'in-scope coverage':>17}"]
    for r in reports:
        t = r["total"]
        assert isinstance(t, dict)
        lines.append(f"{r['version']:<9} {r['sites']:>5} {t[COVERED]:>7} {t[UNCOVERED]:>21} {t[OUT]:>12} "
                     f"{r['in_scope_coverage']:>16}%" + (f"  ({t['unmapped']} unmapped)" if t["unmapped"] else ""))
    files = sorted({f for r in reports for f in r["files"]})  # type: ignore[attr-defined]
    w = max(len(f) for f in files)
    lines += ["", "per file: covered/in scope not covered/out of scope", "",
              f"{'file (under srt/)':<{w}}  " + "  ".join(f"{v:>11}" for v in vs)]
    for f in files:
        lines.append(f"{f:<{w}}  " + "  ".join(f"{_cell(r['files'].get(f)):>11}" for r in reports))  # type: ignore[attr-defined]
    return "\n".join(lines) + "\n"


def coverage_json(table: Table | None = None) -> list[dict[str, object]]:
    table = table or load_table()
    return [coverage(v, table) for v in census_versions()]


def coverage_markdown(table: Table | None = None) -> str:
    """docs/rules.md's generated section: the newest version's table and its uncovered sites."""
    table = table or load_table()
    r = coverage(census_versions()[-1], table)
    t = r["total"]
    files = r["files"]
    uncovered = r["uncovered"]
    assert isinstance(t, dict) and isinstance(files, dict) and isinstance(uncovered, list)
    out = ["## Refusal census", "",
           f"Every refusal site on SGLang {r['version']}'s start-up path (`kdacheck/data/refusals-{r['version']}.json`, read "
           "from the wheel by `benchmarks/sglang_diff/refusal_census.py`) and the rules that report it "
           "(`kdacheck/data/census.txt`; `kdacheck rules --coverage` for every version). "
           f"{r['sites']} sites: {t[COVERED]} covered, {t[UNCOVERED]} in scope but not covered, {t[OUT]} out of scope; "
           f"{r['in_scope_coverage']}% of the in-scope sites covered.", "",
           "| file (under `srt/`) | covered | in scope, not covered | out of scope |", "|---|---|---|---|"]
    out += [f"| `{f}` | {row[COVERED]} | {row[UNCOVERED]} | {row[OUT]} |" for f, row in files.items()]
    out += ["", "In scope, not covered:", ""]
    for u in uncovered:
        msg = " ".join(str(u["message"]).split()).replace("|", "\\|").replace("`", "'")[:140]
        note = f" ({u['note']})" if u["note"] else ""
        out.append(f"- `{u['place']}`: {msg}{note}")
    return "\n".join(out) + "\n"
