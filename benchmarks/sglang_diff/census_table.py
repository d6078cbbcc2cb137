#!/usr/bin/env python3
"""Rewrite kdacheck/data/census.txt's explicit sections after a new refusals-<version>.json.

    python benchmarks/sglang_diff/census_table.py > /tmp/census.txt && mv /tmp/census.txt kdacheck/data/census.txt

Keeps the ``[out]`` patterns and every explicit entry as they are; a site no line maps gets an
explicit line: ``[covered]`` with the codes of a covered entry of the same function whose guard
text its message holds (the same refusal under a shifted ordinal), else ``[uncovered]`` with a
guard of its own message. Read each new ``[uncovered]`` line against the rules (``kdacheck rules``
and kdacheck/rules/): a refusal a rule reports moves to ``[covered]`` by hand, a whole area out of
scope becomes an ``[out]`` pattern with its reason. Standard library and kdacheck only.
"""

from __future__ import annotations

import re
import sys

from kdacheck import census


def guard(message: str) -> str:
    """The longest verbatim piece of a message (placeholders and the table's separators cut out)."""
    pieces = [p.strip() for p in re.split(r"\{[^}]*\}|\n|  # | = | ~ | -- ", message)]
    best = max(pieces, key=len, default="")
    return best[:60].strip()


def _key(p: census.Pattern) -> tuple[str, int, str]:
    """File and function, then the ordinal as a number, then the guard."""
    fn, _, n = p.glob.rpartition("#")
    return fn, int(n) if n.isdigit() else 0, p.text or ""


def render(table: census.Table, out_lines: list[str]) -> str:
    covered = sorted((p for ps in table.explicit.values() for p in ps if p.kind == census.COVERED), key=_key)
    uncovered = sorted((p for ps in table.explicit.values() for p in ps if p.kind == census.UNCOVERED), key=_key)

    def head(p: census.Pattern) -> str:
        return p.glob + (f" ~ {p.text}" if p.text else "")

    lines = [*out_lines, "", "[covered]"]
    lines += [f"{head(p)} = {p.detail}" for p in covered]
    lines += ["", "# in scope (kdacheck models what the refusal reads), no rule reports it yet", "[uncovered]"]
    lines += [head(p) + (f"  # {p.detail}" if p.detail else "") for p in uncovered]
    return "\n".join(lines) + "\n"


def main(path: str = "kdacheck/data/census.txt") -> str:
    text = open(path, encoding="utf-8").read()
    out_lines = text.split("\n[covered]", 1)[0].rstrip("\n").splitlines()
    table = census.parse(text)
    for version in census.census_versions():
        for site in census.load_sites(version):
            if table.verdict(site) is not None:
                continue
            sid, msg = str(site["id"]), str(site["message"])
            fn = sid.rsplit("#", 1)[0]
            same = [p for key, ps in table.explicit.items() if key.rsplit("#", 1)[0] == fn for p in ps
                    if p.kind == census.COVERED and p.text and p.text in msg]
            p = (census.Pattern(sid, same[0].text, census.COVERED, same[0].detail) if same
                 else census.Pattern(sid, guard(msg) or None, census.UNCOVERED, ""))
            if p not in table.explicit.get(sid, []):
                table.explicit.setdefault(sid, []).append(p)
    return render(table, out_lines)


if __name__ == "__main__":
    sys.stdout.write(main(*sys.argv[1:]))
