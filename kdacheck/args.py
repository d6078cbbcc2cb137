"""Parse a launch command's tokens the way SGLang's argparse parser would.

The result is every flag SGLang would see, with its converted value and place, plus the
argument problems (``ArgKind``) found on the way. Parsing never stops at the first problem.
"""

from __future__ import annotations

import difflib
import enum
import functools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from kdacheck import flags as flagmod
from kdacheck import versions
from kdacheck.findings import Edit, Location
from kdacheck.flags import Flag, FlagTable
from kdacheck.readers.base import LaunchCommand, Token

# Flags whose value is an inline JSON object, with the keys SGLang reads (None: any key).
# (``--speculative-adaptive-config`` is a path to a JSON file, not inline JSON.)
JSON_FLAGS: dict[str, frozenset[str] | None] = {
    "hisparse_config": frozenset(
        {"top_k", "device_buffer_size", "host_to_device_ratio", "swap_in_block_size", "algorithm",
         "backend", "min_sparse_prompt_len", "page_size"}
    ),
    "model_loader_extra_config": None,
}

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
MAX_VALUE_CHARS = 100_000
MAX_SUGGESTIONS = 50  # "did you mean" look-ups per command (difflib costs ~1 ms each)

# Counts SGLang divides by or sizes buffers with: 0 or less is never meant (argparse takes it).
# ``--max-running-requests 0`` is kept by SGLang 0.5.23 and starts (the pools clamp to one
# request per worker; tests/data/sglang-golden): only a negative value is refused here.
MUST_BE_POSITIVE = ("tp_size", "dp_size", "pp_size")
MUST_NOT_BE_NEGATIVE = ("max_running_requests",)


@dataclass(frozen=True)
class Given:
    """A flag as SGLang would receive it: converted value, spelling used, place."""

    dest: str
    value: Any
    raw: str | list[str] | None
    written: str  # the spelling in the file (maybe an abbreviation or deprecated alias)
    flag: Flag
    loc: Location
    value_loc: Location
    origin: str = "cli"


class ArgKind(enum.Enum):
    """The kinds of problem SGLang's argparse parser meets (``kdacheck.rules.arg`` gives them codes)."""

    UNKNOWN_FLAG = "unrecognized arguments"
    AMBIGUOUS_PREFIX = "ambiguous option"
    ABBREVIATION = "a unique abbreviation"
    BAD_VALUE = "invalid value or choice"
    DEPRECATED = "a deprecated spelling"
    YAML_UNDERSCORE_KEY = "a --config key with underscores"
    BAD_JSON = "a JSON value that is not what SGLang reads"
    REPEATED = "a flag given twice"
    CONFIG_UNSUPPORTED = "a --config key SGLang's config merger refuses"
    CONFIG_NOT_MERGED = "a --config file SGLang stores and never reads"


@dataclass(frozen=True)
class ArgIssue:
    kind: ArgKind
    message: str
    loc: Location
    fix: str | None = None
    severity: str | None = None  # overrides the rule's severity ("warning", "info")
    edit: Edit | None = None  # the fix as an edit of the spelling, when it is mechanical


@dataclass(frozen=True)
class Unknown:
    """A flag whose value is not known statically (an unset shell variable, ``$(...)``)."""

    dest: str
    written: str  # the flag as written
    text: str  # the value as written (``$TP``)
    why: str  # ``$TP`` is unset in this file
    loc: Location


@dataclass
class Parsed:
    version: str
    given: dict[str, Given] = field(default_factory=dict)
    issues: list[ArgIssue] = field(default_factory=list)
    occurrences: dict[str, list[Given]] = field(default_factory=dict)
    unknown: dict[str, Unknown] = field(default_factory=dict)  # dest → its unknown value
    opaque: list[Token] = field(default_factory=list)  # unknown words that may hold flags (`$EXTRA_ARGS`)

    def value(self, dest: str, default: Any = None) -> Any:
        """The value given for ``dest`` (a guarded SGLang dest: ``flags.dest``), else ``default``."""
        g = self.given.get(flagmod.dest(dest, self.version))
        return g.value if g is not None else default


def _looks_like_flag(tok: Token) -> bool:
    if tok.is_flag is not None:
        return tok.is_flag
    t = tok.text
    return t.startswith("-") and len(t) > 1 and not _NEGATIVE_NUMBER.match(t)


def _human_int(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)\s*", text)
    if not m:
        raise ValueError
    mult = {"": 1, "k": 1_000, "m": 1_000_000, "g": 1_000_000_000, "t": 1_000_000_000_000}[m.group(2).lower()]
    value = float(m.group(1)) * mult
    if value != int(value):
        raise ValueError
    return int(value)


INT_LIMIT = 2**63 - 1
JSON_MAX_DEPTH = 32


def loads_json(text: str) -> Any:
    """``json.loads`` for untrusted text: ValueError for anything deeper than JSON_MAX_DEPTH
    (json recurses), numbers outside 64 bits or not finite (``1e999``, ``NaN``)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    _check_json_value(value, 0)
    return value


def _check_json_value(value: Any, depth: int) -> None:
    if depth > JSON_MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than {JSON_MAX_DEPTH} levels")
    if isinstance(value, bool):
        return
    if isinstance(value, int) and abs(value) > INT_LIMIT:
        raise ValueError("a JSON number is out of range for a 64-bit integer")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("a JSON number is not finite")
    if isinstance(value, list):
        for v in value:
            _check_json_value(v, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            _check_json_value(v, depth + 1)


def convert(flag: Flag, text: str) -> Any:
    """Convert one value string with the flag's type. Raises ValueError with argparse's words."""
    kind = flag.type
    if len(text) > MAX_VALUE_CHARS:
        raise ValueError(f"value of {len(text):,} characters is too long")
    try:
        if kind == "int":
            value: Any = int(text)
            if abs(value) > INT_LIMIT:
                raise ValueError(f"{text[:40]!r} is out of range for a 64-bit integer")
        elif kind == "float":
            value = float(text)
            if not math.isfinite(value):
                raise ValueError(f"{text!r} is not a finite number")
        elif kind == "human_readable_int":
            value = _human_int(text)
        elif kind in ("loads", "json_list_type"):
            value = loads_json(text)
            if kind == "json_list_type" and not isinstance(value, list):
                raise ValueError("expected a JSON list")
        elif kind == "nullable_str":
            value = None if text.lower() in ("none", "null", "") else text
        else:
            value = text
    except ValueError as e:
        detail = str(e)
        if detail.startswith("invalid literal") or detail.startswith("could not convert") or not detail:
            detail = ""
        name = "JSON" if kind in ("loads", "json_list_type") else (kind or "str")
        raise ValueError(f"invalid {name} value: {text[:80]!r}" + (f" ({detail})" if detail and "Expecting" not in detail else "")) from None
    if flag.choices is not None:
        values = value if isinstance(value, list) else [value]
        for v in values:
            if str(v) not in flag.choices:
                raise ValueError(
                    f"invalid choice: {str(v)[:80]!r} (choose from {', '.join(flag.choices)})"
                )
    return value


# `@args.txt`: argparse reads a file of arguments only where the parser sets `fromfile_prefix_chars`;
# SGLang's does not (`argparse.ArgumentParser(prog="sglang serve")`, 0.5.23 srt/server_args.py:679,
# the same in 0.5.19-0.5.22), so the word reaches it as a literal positional argument.
_FROMFILE = ("; SGLang's parser does not read `@FILE` files of arguments (no `fromfile_prefix_chars`, "
             "srt/server_args.py `prepare_server_args`): it takes the word literally and exits")
_FROMFILE_FIX = "give the file's flags through the shell, `$(cat FILE)`, or as an SGLang `--config FILE.yaml`"
@functools.lru_cache(maxsize=8)
def config_refused(version: str) -> dict[str, str]:
    """The ``--config`` keys SGLang's config merger refuses, each with the action class its
    message names (``data/config_merger-<version>.json``, the newest known at or below
    ``version``; written by ``benchmarks/sglang_diff/config_merger.py`` from the wheel)."""
    from importlib import resources

    known = [v for v in versions.KNOWN if versions.vtuple(v) <= versions.vtuple(version)] or [versions.OLDEST]
    doc = json.loads(resources.files("kdacheck").joinpath(f"data/config_merger-{known[-1]}.json").read_text("utf-8"))
    refused: dict[str, str] = doc["refused"]
    return refused


# srt/server_args.py prepare_server_args (0.5.23 L683; 0.5.19 L4265, 0.5.21 L594): the config file
# is merged only where the word `--config` itself is in argv; `--config=FILE` or an abbreviation is
# stored by argparse (a plain `--config` string option, L400-404) and the file is never opened.
_CONFIG_NOT_MERGED = ("SGLang merges a config file only when `--config` is a word of its own (`\"--config\" in argv`, "
                      "srt/server_args.py `prepare_server_args`); this spelling is stored by argparse and the file is "
                      "never read, so none of its keys apply")


class _Parser:
    def __init__(self, cmd: LaunchCommand, table: FlagTable) -> None:
        self.cmd = cmd
        self.table = table
        self.out = Parsed(table.version)
        self.suggestions: dict[str, list[str]] = {}

    def issue(self, kind: ArgKind, message: str, loc: Location, fix: str | None = None, severity: str | None = None,
              edit: Edit | None = None) -> None:
        self.out.issues.append(ArgIssue(kind, message, loc, fix, severity, edit))

    @staticmethod
    def respell(tok: Token, written: str, new: str, safe: bool = True) -> Edit:
        """The edit that writes flag ``new`` where ``written`` is (a ``--config`` key has no dashes)."""
        if tok.origin == "yaml":
            return Edit(tok.loc, written[2:], new[2:], safe)
        return Edit(tok.loc, written, new, safe)

    def lookup(self, tok: Token, name: str) -> Flag | None:
        """Resolve a spelling to a flag as argparse would, reporting unknown, ambiguous, abbreviated, deprecated and YAML-underscore spellings."""
        table = self.table
        flag = table.by_option.get(name)
        if flag is None and tok.origin == "yaml" and "_" in name:
            dashed = name.replace("_", "-")
            if dashed in table.by_option or table.prefix_matches(dashed):
                self.issue(
                    ArgKind.YAML_UNDERSCORE_KEY,
                    f"`{name[2:]}` in a --config YAML becomes the unknown flag `{name}`: SGLang turns keys into flags verbatim",
                    tok.loc,
                    f"rename the key to `{dashed[2:]}`",
                    edit=self.respell(tok, name, dashed) if dashed in table.by_option else None,
                )
                return None
        if flag is None:
            matches = table.prefix_matches(name) if len(name) > 2 else []
            if len(matches) == 1:
                flag = table.by_option[matches[0]]
                self.issue(
                    ArgKind.ABBREVIATION,
                    f"`{name}` is an abbreviation of `{matches[0]}`: it works only while no other flag starts the same way",
                    tok.loc,
                    f"write `{flag.name}`",
                    edit=self.respell(tok, name, flag.name),
                )
            elif len(matches) > 1:
                shown = ", ".join(matches[:12]) + (" …" if len(matches) > 12 else "")
                msg = f"ambiguous option: `{name}` could match {shown} (SGLang {table.version} exits with \"ambiguous option\")"
                msg += self._removed_note(name)
                self.issue(ArgKind.AMBIGUOUS_PREFIX, msg, tok.loc, self._replacement_fix(name))
                return None
            else:
                msg = f"unrecognized argument `{name}`: SGLang {table.version} has no such flag"
                msg += self._removed_note(name)
                fix = self._replacement_fix(name)
                edit = None
                if fix is None:
                    close = self._close(name)
                    if close:
                        msg += f"; did you mean `{close[0]}`?"
                        fix = f"use `{close[0]}`"
                        edit = self.respell(tok, name, close[0], safe=False)  # a guess: it changes what runs
                self.issue(ArgKind.UNKNOWN_FLAG, msg, tok.loc, fix, edit=edit)
                return None
        if flag.deprecated:
            new = flagmod.successor(name if name in table.by_option else flag.name, table)
            removed = versions.REMOVED_FLAG_ERRORS.get(table.version, {}).get(flag.name)
            if flag.action == "DeprecatedAction" and removed:  # its action calls parser.error: SGLang exits
                self.issue(ArgKind.UNKNOWN_FLAG, f"`{flag.name}`: SGLang {table.version}'s parser exits: {removed}", tok.loc,
                           f"remove `{flag.name}`")
            elif flag.action == "DeprecatedAction":
                self.issue(ArgKind.DEPRECATED, f"`{flag.name}` is deprecated in SGLang {table.version} and has no effect", tok.loc, f"remove `{flag.name}`")
            else:
                hint = f"; use `{new}`" if new else ""
                same = table.by_option.get(new) if new else None  # the same dest, taking a value or not alike: a respelling
                alias = same is not None and same.dest == flag.dest and same.nargs == flag.nargs and (same.action == "store_true") == flag.action.endswith("StoreTrueAction")
                self.issue(ArgKind.DEPRECATED, f"`{flag.name}` is a deprecated spelling in SGLang {table.version}{hint}", tok.loc,
                           f"write `{new}`" if new else None, edit=self.respell(tok, name, new) if alias and new else None)
        return flag

    def _close(self, name: str) -> list[str]:
        """A close flag spelling, for "did you mean" (cached; at most MAX_SUGGESTIONS look-ups)."""
        if name not in self.suggestions:
            if len(self.suggestions) >= MAX_SUGGESTIONS or len(name) > 100:
                return []
            self.suggestions[name] = _close_matches(self.table.version, name)
        return self.suggestions[name]

    def _removed_note(self, name: str) -> str:
        seen = [v for v in flagmod.KNOWN_VERSIONS if name in flagmod.table(v).by_option]
        if not seen:
            return ""
        last = seen[-1]
        if flagmod.vtuple(last) < flagmod.vtuple(self.table.version):
            return f"; `{name}` was removed after SGLang {last}"
        return f"; `{name}` exists only from SGLang {seen[0]} on"

    def _replacement_fix(self, name: str) -> str | None:
        new = flagmod.successor(name, self.table)
        return f"use `{new}`" if new else None

    def merger(self) -> None:
        """SGLang's ``--config`` merger refuses a key whose argparse action it cannot write as argv,
        whatever its value, ``false`` included (0.5.23 ``srt/utils/server_args_config_parser.py``
        L169-173 ``_convert_config_to_args``; 0.5.19-0.5.22 L146-150), before argparse runs."""
        refused = config_refused(self.table.version)
        keys = [t for t in self.cmd.tokens if t.origin == "yaml" and t.is_flag and t.text.startswith("--")]
        off = {id(t) for t in self.cmd.config_off}
        for tok in sorted([*keys, *self.cmd.config_off], key=lambda t: (t.loc.path, t.loc.line, t.loc.col)):
            key = tok.text[2:].replace("-", "_")
            action = refused.get(key)
            if action is None:
                continue
            self.issue(ArgKind.CONFIG_UNSUPPORTED,
                       f"Unsupported config option '{key}' with action '{action}' ({tok.loc.path}:{tok.loc.line}: SGLang "
                       f"{self.table.version}'s --config merger refuses this key whatever its value)", tok.loc,
                       self._merger_fix(tok, key, action, off=id(tok) in off))

    def _merger_fix(self, tok: Token, key: str, action: str, off: bool) -> str:
        """Where the refused key's setting can go instead: the command line (argparse reads it there)."""
        dashed = "--" + key.replace("_", "-")
        if action == "DeprecatedAction" or (off and action != "BooleanOptionalAction"):
            return f"remove `{tok.text[2:]}` from the --config file (false, or no effect: nothing to pass instead)"
        if off:  # `--no-X` (or, for a `no_X` key set to false, `--X`)
            dashed = "--" + dashed[5:] if key.startswith("no_") else "--no-" + dashed[2:]
        new = flagmod.successor(dashed, self.table) if action.startswith("Deprecated") else None
        word = f"`{new}` (the successor of `{dashed}`)" if new else f"`{dashed}`"
        return f"remove `{tok.text[2:]}` from the --config file and pass {word} on the command line"

    def parse(self) -> Parsed:
        self.merger()
        toks = self.cmd.tokens
        i = 0
        while i < len(toks):
            tok = toks[i]
            if tok.unknown and not _looks_like_flag(tok):  # `$EXTRA_ARGS` unset: its flags are unknown
                self.out.opaque.append(tok)
                i += 1
                continue
            if not _looks_like_flag(tok):
                self.issue(ArgKind.UNKNOWN_FLAG, f"unrecognized argument `{tok.text[:80]}` (not a value of any flag)"
                           + (_FROMFILE if tok.text.startswith("@") else ""), tok.loc,
                           _FROMFILE_FIX if tok.text.startswith("@") else None)
                i += 1
                continue
            name, eq, inline = tok.text.partition("=")
            if tok.origin == "yaml":
                name, eq, inline = tok.text, "", ""
            flag = self.lookup(tok, name)
            i += 1
            if flag is not None and flag.dest == "config" and tok.origin == "cli" and (eq or name != "--config"):
                self.issue(ArgKind.CONFIG_NOT_MERGED, f"`{tok.text[:120]}`: {_CONFIG_NOT_MERGED}", tok.loc,
                           f"write `--config {inline[:100] or 'FILE'}` (two words)")
            # Collect the values that follow, the way argparse's nargs would.
            values: list[Token] = []
            if eq:
                values = [Token(inline, Location(tok.loc.path, tok.loc.line, tok.loc.col + len(name) + 1), tok.origin, False,
                                tok.unknown)]
            else:
                want = self._nargs(flag)
                while i < len(toks) and not _looks_like_flag(toks[i]) and (want is None or len(values) < want):
                    values.append(toks[i])
                    i += 1
            if flag is None:
                continue
            self.store(flag, name, tok, values, bool(eq))
        return self.out

    @staticmethod
    def _nargs(flag: Flag | None) -> int | None:
        """How many value tokens to take; None: as many as there are."""
        if flag is None:
            return None  # skip the unknown flag's values too
        if not flag.takes_value:
            return 0
        if flag.nargs is None:
            return 1
        if isinstance(flag.nargs, int):
            return flag.nargs
        return 1 if flag.nargs == "?" else None

    def store(self, flag: Flag, written: str, tok: Token, values: list[Token], inline: bool) -> None:
        nargs = flag.nargs
        if not flag.takes_value:
            if inline:
                self.issue(ArgKind.BAD_VALUE, f"`{flag.name}` takes no value: ignored explicit argument `{values[0].text}`", tok.loc, f"write `{flag.name}` alone")
                return
            value: Any = True
            if flag.action == "BooleanOptionalAction":
                value = not written.startswith("--no-")
            elif flag.action == "DeprecatedStoreConstAction":
                value = True
            self._record(flag, written, tok, value, None, tok.loc)
            return
        unknown = next((v for v in values if v.unknown), None)
        if unknown is not None:  # no type error, no wrong default: the value is unknown
            self.out.unknown[flag.dest] = Unknown(flag.dest, written, unknown.text, unknown.unknown or "", unknown.loc)
            self.out.given.pop(flag.dest, None)
            return
        if nargs in (None, "?") or isinstance(nargs, int):
            need = 1 if nargs is None else nargs if isinstance(nargs, int) else 0
            if len(values) < need:
                self.issue(ArgKind.BAD_VALUE, f"`{flag.name}` expects a value", tok.loc, f"give `{flag.name} <value>`")
                return
            if not values:
                self._record(flag, written, tok, None, None, tok.loc)
                return
            try:
                value = convert(flag, values[0].text)
            except ValueError as e:
                self.issue(ArgKind.BAD_VALUE, f"`{flag.name}`: {e}", values[0].loc, _type_fix(flag))
                return
            if not self._check_json(flag, value, values[0]) or not self._check_positive(flag, value, values[0]):
                return
            self._record(flag, written, tok, value, values[0].text, values[0].loc)
            return
        if nargs == "+" and not values:
            self.issue(ArgKind.BAD_VALUE, f"`{flag.name}` expects at least one value", tok.loc)
            return
        converted = []
        for v in values:
            try:
                converted.append(convert(flag, v.text))
            except ValueError as e:
                self.issue(ArgKind.BAD_VALUE, f"`{flag.name}`: {e}", v.loc, _type_fix(flag))
                return
        self._record(flag, written, tok, converted, [v.text for v in values], values[0].loc if values else tok.loc)

    def _check_positive(self, flag: Flag, value: Any, tok: Token) -> bool:
        """A bad value for a count that must be at least 1; False: do not record the value."""
        low = 1 if flag.dest in MUST_BE_POSITIVE else 0 if flag.dest in MUST_NOT_BE_NEGATIVE else None
        if low is not None and isinstance(value, int) and value < low:
            self.issue(
                ArgKind.BAD_VALUE,
                f"`{flag.name}` must be at least {low}, got {value} (SGLang's argparse takes it and fails later)",
                tok.loc,
                f"give `{flag.name}` a positive value, or drop it for the default",
            )
            return False
        return True

    def _check_json(self, flag: Flag, value: Any, tok: Token) -> bool:
        """The problems of a JSON-object flag; False: the value is unusable, do not record it."""
        if flag.dest not in JSON_FLAGS:
            return True
        known = JSON_FLAGS[flag.dest]
        if isinstance(value, str):
            try:
                value = loads_json(value)
            except ValueError as e:
                self.issue(ArgKind.BAD_JSON, f"`{flag.name}` must hold a JSON object: {e}", tok.loc, "quote a JSON object, e.g. '{\"top_k\": 2048}'")
                return False
        if not isinstance(value, dict):
            self.issue(ArgKind.BAD_JSON, f"`{flag.name}` must hold a JSON object, not {type(value).__name__}", tok.loc)
            return True
        if known is not None:
            for key in value:
                if key not in known:
                    close = difflib.get_close_matches(str(key), known, n=1)
                    hint = f"; did you mean `{close[0]}`?" if close else f" (known: {', '.join(sorted(known))})"
                    self.issue(
                        ArgKind.BAD_JSON,
                        f"`{flag.name}` has an unknown key `{str(key)[:80]}`, which SGLang ignores silently{hint}",
                        tok.loc,
                        f"use `{close[0]}`" if close else None,
                        severity="warning",
                    )
        return True

    def _record(self, flag: Flag, written: str, tok: Token, value: Any, raw: Any, vloc: Location) -> None:
        g = Given(flag.dest, value, raw, written, flag, tok.loc, vloc, tok.origin)
        if flag.action == "LoRAPathAction":
            prev = self.out.given.get(flag.dest)
            if prev is not None:
                g = Given(flag.dest, list(prev.value or []) + list(value or []), raw, written, flag, prev.loc, prev.value_loc)
            self.out.given[flag.dest] = g
            return
        seen = self.out.occurrences.setdefault(flag.dest, [])
        if seen:
            first = seen[-1]
            where = (
                "the command line overrides the --config file"
                if first.origin == "yaml" and tok.origin == "cli"
                else "the last one applies"
            )
            self.issue(
                ArgKind.REPEATED,
                f"`{flag.name}` is given more than once (first at {first.loc}): {where}, so {flag.dest} = {_show(value)}",
                tok.loc,
                f"keep one `{flag.name}`",
            )
        seen.append(g)
        self.out.given[flag.dest] = g


@functools.lru_cache(maxsize=1024)
def _close_matches(version: str, name: str) -> list[str]:
    """difflib's nearest flag spelling (~3 ms over 500 options: cached across commands)."""
    return difflib.get_close_matches(name, flagmod.table(version).by_option.keys(), n=1, cutoff=0.75)


def _show(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (list, dict)) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_fix(flag: Flag) -> str | None:
    if flag.choices:
        return f"use one of {', '.join(flag.choices)}"
    if flag.type:
        return f"give `{flag.name}` a{'n' if flag.type[0] in 'aeiou' else ''} {flag.type} value"
    return None


def parse(cmd: LaunchCommand, version: str) -> Parsed:
    return _Parser(cmd, flagmod.table(version)).parse()
