"""SGLang's launch flags, per version, read from the tables shipped in ``kdacheck/data``.

Each table was read from SGLang's own argument parser: option strings, ``dest``, argparse
action class, ``nargs``, type, default and choices. Lookups follow argparse: exact option
strings first, then unique prefixes (SGLang's parser keeps ``allow_abbrev``).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from dataclasses import dataclass

from kdacheck import versions

KNOWN_VERSIONS = versions.KNOWN
NEWEST = versions.NEWEST
vtuple = versions.vtuple


@dataclass(frozen=True)
class Flag:
    options: tuple[str, ...]
    dest: str
    action: str
    nargs: int | str | None
    type: str | None
    default: object
    choices: tuple[str, ...] | None

    @property
    def name(self) -> str:
        """The canonical spelling: the first option string."""
        return self.options[0]

    @property
    def deprecated(self) -> bool:
        return self.action.startswith("Deprecated")

    @property
    def takes_value(self) -> bool:
        return self.nargs != 0 and self.action not in (
            "_StoreTrueAction",
            "_StoreFalseAction",
            "BooleanOptionalAction",
            "DeprecatedStoreTrueAction",
            "DeprecatedAction",
        )


class FlagTable:
    """The flags of one SGLang version."""

    def __init__(self, version: str, flags: list[Flag]) -> None:
        self.version = version
        self.flags = flags
        self.by_option: dict[str, Flag] = {o: f for f in flags for o in f.options}
        self.by_dest: dict[str, list[Flag]] = {}
        for f in flags:
            self.by_dest.setdefault(f.dest, []).append(f)
        self._sorted_options = sorted(self.by_option)

    def prefix_matches(self, prefix: str) -> list[str]:
        """Option strings that start with ``prefix`` (argparse's abbreviation rule)."""
        import bisect

        i = bisect.bisect_left(self._sorted_options, prefix)
        out: list[str] = []
        while i < len(self._sorted_options) and self._sorted_options[i].startswith(prefix):
            out.append(self._sorted_options[i])
            i += 1
        return out

    def current_option(self, dest: str) -> str | None:
        """The non-deprecated option string that sets ``dest``, if there is one."""
        for f in self.by_dest.get(dest, []):
            if not f.deprecated:
                return f.name
        return None

    def default(self, dest: str) -> object:
        for f in self.by_dest.get(dest, []):
            if not f.deprecated:
                return f.default
        flags = self.by_dest.get(dest)
        return flags[0].default if flags else None

    def has_dest(self, dest: str) -> bool:
        return dest in self.by_dest


class UnknownDest(KeyError):
    """A rule or step read a dest that the newest SGLang table does not have: a typo, or a flag
    a new version renamed (add the rename to kdacheck.versions.RENAMES and read the new name) or
    dropped (kdacheck.versions.REMOVED)."""


@functools.cache
def all_dests() -> frozenset[str]:
    """Every dest of every supported version's flag table."""
    return frozenset(d for v in KNOWN_VERSIONS for d in table(v).by_dest)


def stored(name: str, version: str) -> str:
    """The dest ``version`` stores the newest SGLang's dest ``name`` under: ``name`` itself, or
    its older name for a version before a rename (``kdacheck.versions.RENAMES``); unchecked."""
    for first, old in versions.RENAMES.get(name, ()):
        if not versions.at_least(version, first):
            name = old
    return name


def dest(name: str, version: str) -> str:
    """The dest ``version`` stores the flag ``name`` (as the newest SGLang names it) under
    (:func:`stored`). A name the newest table lacks is UnknownDest unless ``versions`` declares
    it (RENAMES: the new name of a renamed dest; REMOVED: a dest SGLang dropped): the one guard every raw flag read goes through, so a renamed,
    dropped or misspelt flag never silently reads as None, for any target version."""
    if table(NEWEST).has_dest(name) or name in versions.RENAMES or name in versions.REMOVED:
        return stored(name, version)
    if name in all_dests():
        raise UnknownDest(f"{name}: only SGLang tables before {NEWEST} have this dest: read its new name and add the rename "
                          "to kdacheck.versions.RENAMES, or add its removal to kdacheck.versions.REMOVED")
    raise UnknownDest(f"{name}: no SGLang flag table ({KNOWN_VERSIONS[0]}–{KNOWN_VERSIONS[-1]}) has this dest")


def spell(name: str, version: str) -> str:
    """The option that sets dest ``name`` in ``version`` as SGLang spells it there (its current
    option, else a deprecated one it still accepts), for messages and fixes."""
    d = dest(name, version)
    t = table(version)
    flags = t.by_dest.get(d, [])
    option = t.current_option(d) or (flags[0].name if flags else None)
    return option or "--" + d.replace("_", "-")


@functools.cache
def respellings(version: str) -> dict[str, str]:
    """The options of the newest SGLang that ``version`` spells otherwise: each option of a dest
    renamed after ``version`` (``versions.RENAMES``) → ``version``'s option for it. Empty when
    nothing kdacheck reads was renamed."""
    newest = table(NEWEST)
    return {o: spell(new, version) for new in versions.RENAMES if stored(new, version) != new
            for f in newest.by_dest.get(new, []) for o in f.options}


_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]")


def respell(text: str, version: str) -> str:
    """``text`` (a rule's message or fix, written with the newest SGLang's options) with each
    option spelled as ``version`` spells it: a rename in ``versions.RENAMES`` respells every
    message and fix at once."""
    table_ = respellings(version)
    if not table_:
        return text
    return _OPTION.sub(lambda m: table_.get(m.group(0), m.group(0)), text)


def _flag(d: dict[str, object]) -> Flag:
    choices = d.get("choices")
    return Flag(
        options=tuple(d["options"]),  # type: ignore[arg-type]
        dest=str(d["dest"]),
        action=str(d["action"]),
        nargs=d.get("nargs"),  # type: ignore[arg-type]
        type=d.get("type"),  # type: ignore[arg-type]
        default=d.get("default"),
        choices=tuple(str(c) for c in choices) if isinstance(choices, list) else None,
    )


def _data(name: str) -> bytes:
    """A file of ``kdacheck/data``: read next to this module (importlib.resources, which works
    from a zip too, costs 5 ms to import: a third of a lint's own start-up)."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "data", name), "rb") as f:
            return f.read()
    except OSError:
        from importlib import resources

        return resources.files("kdacheck").joinpath(f"data/{name}").read_bytes()


# Measured (2 cores): reading and parsing one table's JSON is 1.5 ms and building its 531 Flag
# objects 2.3 ms; unpickling a cached FlagTable takes 3.0 ms, so no cache is kept.
@functools.cache
def table(version: str) -> FlagTable:
    if version not in KNOWN_VERSIONS:
        raise ValueError(
            f"unknown SGLang version {version!r}: kdacheck knows {', '.join(KNOWN_VERSIONS)}"
        )
    data = json.loads(_data(f"sglang-{version}-flags.json"))
    return FlagTable(version, [_flag(d) for d in data["flags"]])


def option_names() -> set[str]:
    """Every option string of every known version's table, read from the tables' JSON without
    building their flags (deciding whether a YAML is a ``--config`` needs the names only)."""
    names: set[str] = set()
    for v in KNOWN_VERSIONS:
        for d in json.loads(_data(f"sglang-{v}-flags.json"))["flags"]:
            names.update(d["options"])
    return names


@functools.cache
def new_flags() -> dict[str, str]:
    """What SGLang's deprecated actions tell the operator to write instead (``new_flag=``)."""
    return {k: v for k, v in json.loads(_data("new-flags.json")).items() if not k.startswith("_")}


def successor(option: str, target: FlagTable) -> str | None:
    """The spelling to use instead of ``option`` in the ``target`` version, if one is known:
    SGLang's own ``new_flag`` hint, else the current option for the same ``dest``."""
    hint = new_flags().get(option)
    if hint:
        return hint
    for v in reversed(KNOWN_VERSIONS):
        old = table(v).by_option.get(option)
        if old is not None:
            current = target.current_option(old.dest)
            return current if current and current != option else None
    return None


_EGG = re.compile(r"^sglang([-.][^/]*)?\.egg-(info|link)$", re.IGNORECASE)


def installed_sglang() -> str | None:
    """The installed SGLang's version, from its ``sglang-X.Y.Z.dist-info`` folder on sys.path
    (what importlib.metadata finds first, without its 25 ms scan of every distribution); egg
    installs, rare, are asked of importlib.metadata."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            low = name.lower()
            if low.startswith("sglang-") and low.endswith(".dist-info"):
                return name[len("sglang-") : -len(".dist-info")]
            if _EGG.match(name):
                try:
                    from importlib import metadata

                    return metadata.version("sglang")
                except Exception:
                    return None
    return None


def normalize_version(text: str) -> str:
    """``v0.5.23``, ``0.5.23.post1``, ``0.5.23rc1`` and ``v0.5.19-cu126`` (an image tag) → the
    release they belong to, ``0.5.23``; anything else unchanged (and then refused if unknown)."""
    m = re.match(r"v?(\d+\.\d+\.\d+)(?:\.post\d+|rc\d+|\.dev\d+|-[A-Za-z0-9._-]+)?$", text.strip())
    return m.group(1) if m else text.strip()


def pick_version(requested: str | None) -> tuple[str, str]:
    """The target SGLang version and why: the request, the installed SGLang, or the newest.

    The installed version is read from the distribution's metadata; SGLang is never imported.
    """
    if requested:
        requested = normalize_version(requested)
        if requested not in KNOWN_VERSIONS:
            raise ValueError(
                f"unknown SGLang version {requested!r}: kdacheck knows {', '.join(KNOWN_VERSIONS)}"
            )
        return requested, "--sglang-version"
    installed = installed_sglang()
    if installed is None:
        return NEWEST, "newest known (no SGLang installed)"
    it = vtuple(installed)
    if installed in KNOWN_VERSIONS:
        return installed, "installed SGLang"
    older = [v for v in KNOWN_VERSIONS if vtuple(v) <= it]
    if older:
        return older[-1], f"installed SGLang {installed}, nearest known older version"
    return KNOWN_VERSIONS[0], f"installed SGLang {installed} predates the tables: oldest known"


def dump_installed() -> dict[str, object]:
    """The flag table of the SGLang importable here, read from its own parser (a developer command:
    ``python -m kdacheck.flags --dump > kdacheck/data/sglang-X-flags.json``). Imports SGLang."""
    import argparse

    from sglang.srt.server_args import ServerArgs  # type: ignore[import-not-found]

    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    out = []
    for a in parser._actions:
        if not a.option_strings or isinstance(a, argparse._HelpAction):
            continue
        default = a.default if isinstance(a.default, (str, int, float, bool, type(None), list)) else str(a.default)
        out.append({
            "options": list(a.option_strings), "dest": a.dest, "action": type(a).__name__,
            "nargs": a.nargs, "type": getattr(a.type, "__name__", None) if a.type is not None else None,
            "default": default, "choices": [str(c) for c in a.choices] if a.choices is not None else None,
        })
    return {"sglang_version": installed_sglang(), "allow_abbrev": parser.allow_abbrev, "flags": out}


if __name__ == "__main__":
    if sys.argv[1:] != ["--dump"]:
        sys.exit("usage: python -m kdacheck.flags --dump > kdacheck/data/sglang-X-flags.json")
    json.dump(dump_installed(), sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")
