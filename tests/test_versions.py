"""A rename or removal in a new SGLang version is never silent.

Every dest kdacheck reads (the flag reads of ``resolve/``, ``rules/``, ``plan/``,
``architectures/``, ``fix.py`` and ``runner.py``) is in the newest flag table or declared in
``versions`` (RENAMES: read by its new name; REMOVED); every SGLang option they spell is the
newest table's (or REMOVED); ``flags.dest`` refuses a dest only older tables have; and a RENAMES
line respells the messages, the fixes and ``plan``'s search for every older target.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from kdacheck import flags, versions
from kdacheck.flags import Flag, FlagTable

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "kdacheck"
SOURCES = sorted([*PKG.glob("resolve/*.py"), *PKG.glob("rules/*.py"), *PKG.glob("plan/*.py"), *PKG.glob("architectures/*.py"),
                  PKG / "fix.py", PKG / "runner.py"])
# the calls that read a flag by its dest: Resolved.flag/user/given/written, Parsed.value, flags.dest/spell/stored,
# plan/space.py's speller, rules/spec.py's _loc_of; (function, which string argument is the dest)
DEST_CALLS = {"flag": -1, "user": 0, "given": 0, "written": 0, "value": 0, "dest": 0, "spell": 0, "stored": 0, "o": 0, "_loc_of": -1}
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]")


def dests_read() -> Iterator[tuple[str, str]]:
    """(dest, where) for every string a flag-reading call passes as a dest."""
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(node.func, ast.Name) else ""
            if name not in DEST_CALLS:
                continue
            strings = [a.value for a in node.args[:2] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if strings:
                yield strings[DEST_CALLS[name]] if len(strings) > 1 else strings[0], f"{path.relative_to(ROOT)}:{node.lineno}"


def undeclared_dests(newest: FlagTable) -> list[str]:
    """The dests read that ``newest`` lacks and ``versions`` does not declare; and any string of
    those folders that is a dest only older tables have."""
    declared = set(versions.RENAMES) | set(versions.REMOVED)
    bad = [f"{where}: {d}" for d, where in dests_read() if not newest.has_dest(d) and d not in declared]
    # an old dest's name may stay a resolved value's name (``r.flag("old", "new")``); reads of it are caught above
    old_names = {old for steps in versions.RENAMES.values() for _, old in steps}
    older_only = flags.all_dests() - set(newest.by_dest) - declared - old_names
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in older_only:
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value} (only older SGLang tables have it)")
    return bad


def undeclared_options(newest: FlagTable) -> list[str]:
    """SGLang options spelled in those folders that some table has and ``newest`` does not."""
    known = {o for v in versions.KNOWN for o in flags.table(v).by_option} | set(newest.by_option)
    bad = []
    for path in SOURCES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for o in _OPTION.findall(line):
                if o in known and o not in newest.by_option and o not in versions.REMOVED:
                    bad.append(f"{path.relative_to(ROOT)}:{n}: {o}")
    return bad


def test_every_dest_kdacheck_reads_is_the_newest_tables_or_declared() -> None:
    found = dict(dests_read())
    assert len(found) > 60 and "speculative_num_steps" in found  # the scan sees the reads
    assert not undeclared_dests(flags.table(versions.NEWEST))


def test_every_option_kdacheck_spells_is_the_newest_tables_or_declared() -> None:
    assert not undeclared_options(flags.table(versions.NEWEST))


def test_renames_and_removals_are_what_the_tables_say() -> None:
    for new, steps in versions.RENAMES.items():
        assert flags.table(versions.NEWEST).has_dest(new), new
        for first, old in steps:
            assert all(flags.table(v).has_dest(old) != versions.at_least(v, first) for v in versions.KNOWN), (new, old)
    for name, first in versions.REMOVED.items():
        key = "by_option" if name.startswith("--") else "by_dest"
        assert all((name in getattr(flags.table(v), key)) != versions.at_least(v, first) for v in versions.KNOWN), name


def test_dest_refuses_a_dest_only_older_tables_have() -> None:
    older_only = sorted(flags.all_dests() - set(flags.table(versions.NEWEST).by_dest) - set(versions.REMOVED))
    assert older_only
    for v in versions.KNOWN:
        with pytest.raises(flags.UnknownDest, match="RENAMES"):
            flags.dest(older_only[0], v)
    with pytest.raises(flags.UnknownDest, match="no SGLang flag table"):
        flags.dest("mamba_track_intervall", versions.NEWEST)


RENAMED_VERSION = "0.5.99"


@pytest.fixture
def renamed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A newest SGLang that renames ``page_size`` to ``kv_page_size`` (``--kv-page-size``)."""
    base = flags.table(versions.NEWEST)
    moved = [Flag(("--kv-page-size",), "kv_page_size", f.action, f.nargs, f.type, f.default, f.choices)
             if f.dest == "page_size" else f for f in base.flags]
    fake = FlagTable(RENAMED_VERSION, moved)
    real = flags.table
    known = (*versions.KNOWN, RENAMED_VERSION)
    monkeypatch.setattr(versions, "KNOWN", known)
    monkeypatch.setattr(versions, "NEWEST", RENAMED_VERSION)
    monkeypatch.setattr(flags, "KNOWN_VERSIONS", known)
    monkeypatch.setattr(flags, "NEWEST", RENAMED_VERSION)
    monkeypatch.setattr(flags, "table", lambda v: fake if v == RENAMED_VERSION else real(v))
    for cached in (flags.all_dests, flags.respellings):
        cached.cache_clear()
    yield
    for cached in (flags.all_dests, flags.respellings):
        cached.cache_clear()


@pytest.mark.usefixtures("renamed")
def test_a_rename_without_its_versions_line_fails_loudly() -> None:
    fake = flags.table(RENAMED_VERSION)
    assert any(d.endswith(": page_size") for d in undeclared_dests(fake))
    assert any(o.endswith(": --page-size") for o in undeclared_options(fake))
    for v in (versions.KNOWN[0], RENAMED_VERSION):
        with pytest.raises(flags.UnknownDest, match="RENAMES"):
            flags.dest("page_size", v)


@pytest.mark.usefixtures("renamed")
def test_a_renames_line_respells_messages_fixes_and_the_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    from kdacheck.plan import space

    monkeypatch.setitem(versions.RENAMES, "kv_page_size", ((RENAMED_VERSION, "page_size"),))
    old = versions.KNOWN[-2]
    assert flags.dest("kv_page_size", old) == "page_size"
    assert flags.spell("kv_page_size", old) == "--page-size"
    assert flags.spell("kv_page_size", RENAMED_VERSION) == "--kv-page-size"
    text = "set `--mamba-track-interval 256` (a multiple of --kv-page-size)"
    assert flags.respell(text, old) == "set `--mamba-track-interval 256` (a multiple of --page-size)"
    assert flags.respell(text, RENAMED_VERSION) == text
    assert space._speller(old)("kv_page_size") == "--page-size"


def test_every_known_version_has_its_wheel_data_and_the_newest_its_goldens() -> None:
    """The pieces of "A new SGLang version" (docs/architecture.md): a table not in KNOWN, or a
    known version without its hooks table, fails here; so does a newest version without its
    golden, its floor, its state golden or its radix-cache list."""
    from tests.test_sglang_golden import CAUSE_FLOORS, FLOORS

    data = PKG / "data"
    tables = {p.name[len("sglang-"):-len("-flags.json")] for p in data.glob("sglang-*-flags.json")}
    assert tables == set(versions.KNOWN), "every flag table in versions.KNOWN and every known version with its table"
    missing = [v for v in versions.KNOWN if not (data / f"speculative_hooks-{v}.json").is_file()]
    assert not missing, f"the speculative hooks table of {missing} (speculative_hooks.py WHEEL)"
    golden, newest = ROOT / "tests" / "data" / "sglang-golden", versions.NEWEST
    assert (golden / f"{newest}.jsonl").is_file(), f"SGLang {newest}'s verdicts (benchmarks/sglang_diff)"
    assert newest in FLOORS and newest in CAUSE_FLOORS, f"the agreement floors of {newest} (tests/test_sglang_golden.py)"
    assert (golden / f"state-{newest}.json").is_file(), f"SGLang {newest}'s state shapes (state_shapes.py)"
    assert newest in json.loads((golden / "mamba-radix-cache-archs.json").read_text()), f"SGLang {newest}'s radix-cache list"


def test_flags_are_read_by_dest_only_through_the_guarded_accessors() -> None:
    """Outside ``Resolved`` (resolve/core.py), no module reads ``Parsed.given`` or ``Parsed.unknown``
    by a raw key: ``Resolved.written`` / ``given`` / ``user`` go through ``flags.dest``."""
    raw = re.compile(r"parsed\.(given|unknown)(\.get\(|\[)|[\"']\w+[\"']\s+(not\s+)?in\s+\w+\.parsed\.(given|unknown)\b")
    bad = [f"{p.relative_to(ROOT)}:{n}: {line.strip()[:90]}" for p in SOURCES if p.name != "core.py"
           for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if raw.search(line)]
    assert not bad, bad
