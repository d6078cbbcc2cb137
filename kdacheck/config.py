"""Project configuration: ``[tool.kdacheck]`` in ``pyproject.toml``, or ``kdacheck.toml``.

The nearest file wins, looked for from the linted file's folder upwards (a ``kdacheck.toml``
before a ``pyproject.toml`` in the same folder, and a ``pyproject.toml`` only when it has a
``[tool.kdacheck]`` table), else from the working directory. The command line overrides the
file: ``--select`` replaces ``select``, ``--ignore`` and ``--extend-select`` add to theirs.
An unknown key or a value of the wrong kind is an error (exit code 2) that names the key and
its ``file:line``, the way ruff rejects unknown settings.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kdacheck.findings import Severity
from kdacheck.sanitize import visible_name

if TYPE_CHECKING:
    from kdacheck.gitignore import Pattern
    from kdacheck.gpus import GPU
    from kdacheck.rules import Rule



def _toml() -> Any:
    """tomllib (tomli on Python 3.10), imported only when a configuration file is read."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib

FILES = ("kdacheck.toml", "pyproject.toml")


def _formats() -> dict[str, str]:
    from kdacheck.report import FORMATS

    return FORMATS
SEVERITIES = ("error", "warning", "info")


class ConfigError(Exception):
    """A configuration file kdacheck cannot use: reported with exit code 2."""


@dataclass(frozen=True)
class Settings:
    """What one configuration file says (None / empty: not set there)."""

    path: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    failure_threshold: str | None = None
    gpu: str | None = None
    sglang_version: str | None = None
    model: str | None = None
    output_format: str | None = None
    exclude: tuple[str, ...] = ()
    max_file_size: int | None = None
    mem005_share: float | None = None
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, codes), as ruff's
    severity: tuple[tuple[str, str], ...] = ()  # (code, severity): a rule's findings reported at this severity
    baseline: str | None = None  # lint --baseline's file, relative to this settings file
    lines: dict[str, int] = field(default_factory=dict, compare=False, hash=False)

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path) if self.path else os.getcwd()

    def where(self, key: str) -> str:
        return f"{self.path}:{self.lines.get(key, 1)}"


EMPTY = Settings()


def _codes(value: Any, key: str, where: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise ConfigError(f"{where}: `{key}` must be a list of rule codes or prefixes")
    return tuple(p.strip().upper() for v in items for p in v.split(",") if p.strip())


def _globs(value: Any, key: str, where: str) -> tuple[str, ...]:
    from kdacheck.gitignore import MAX_PATTERNS

    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise ConfigError(f"{where}: `{key}` must be a list of glob patterns")
    if len(items) > MAX_PATTERNS:
        raise ConfigError(f"{where}: `{key}` has {len(items):,} globs (the limit is {MAX_PATTERNS:,})")
    return tuple(items)


def _per_file(value: Any, key: str, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table of glob = [codes]")
    if len(value) > 1000:
        raise ConfigError(f"{where}: `{key}` has {len(value):,} globs (the limit is 1,000)")
    return tuple((str(glob), _codes(codes, f"{key}.{glob}", where)) for glob, codes in value.items())


def _severity(value: Any, key: str, where: str) -> tuple[tuple[str, str], ...]:
    """``severity = {SPEC011 = "warning"}``: each a rule code kdacheck has and a severity."""
    from kdacheck.rules import REGISTRY

    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `{key}` must be a table of CODE = \"error\", \"warning\" or \"info\"")
    out = []
    for code, level in value.items():
        if str(code).upper() not in REGISTRY:
            raise ConfigError(f"{where}: `{key}.{visible_name(str(code)[:40])}`: no rule has this code (see `kdacheck rules`)")
        out.append((str(code).upper(), _text(level, f"{key}.{code}", where, SEVERITIES)))
    return tuple(sorted(out))


def _text(value: Any, key: str, where: str, choices: tuple[str, ...] | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: `{key}` must be a string")
    if choices and value.strip().lower() not in choices:
        raise ConfigError(f"{where}: `{key}` = {value!r}: choose from {', '.join(choices)}")
    return value.strip().lower() if choices else value.strip()


def _key_lines(text: str, pyproject: bool) -> dict[str, int]:
    """Line of each key of kdacheck's table (tomllib does not keep places)."""
    lines: dict[str, int] = {}
    inside = not pyproject  # kdacheck.toml: top-level keys, before any [table]
    header = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]")
    keyline = re.compile(r"""^\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_.-]+))\s*=""")
    for n, line in enumerate(text.splitlines(), 1):
        m = header.match(line)
        if m:
            name = m.group(1).replace('"', "").replace("'", "").replace(" ", "")
            prefix = "tool.kdacheck" if pyproject else ""
            inside = name == prefix
            sub = name[len(prefix) + 1 :] if pyproject and name.startswith(prefix + ".") else (name if not pyproject else None)
            if sub:
                lines.setdefault(sub.split(".")[0], n)
            continue
        k = keyline.match(line)
        if k:
            key = k.group(1) or k.group(2) or k.group(3)
            if inside:
                lines.setdefault(key.split(".")[0], n)
            elif pyproject and key.startswith("tool.kdacheck."):
                lines.setdefault(key.split(".")[2], n)
    return lines


@functools.cache
def load(path: str) -> Settings:
    """Read and check one configuration file."""
    p = Path(path)
    raw = _settings_bytes(p)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start}): TOML files must be UTF-8") from None
    toml = _toml()
    try:
        data = toml.loads(text)
    except toml.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply to read") from None
    pyproject = p.name == "pyproject.toml"
    table = data.get("tool", {}).get("kdacheck", {}) if pyproject else data
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.kdacheck] must be a table")
    lines = _key_lines(text, pyproject)
    s = Settings(path=str(p), lines=lines)
    values: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        where = f"{path}:{lines.get(raw_key, 1)}"
        if key not in KEYS:
            raise ConfigError(
                f"{where}: unknown kdacheck setting `{raw_key}` (known: {', '.join(sorted(KEYS))})"
            )
        values[key.replace("-", "_")] = KEYS[key](value, raw_key, where)
        s.lines[key.replace("-", "_")] = lines.get(raw_key, 1)
    return Settings(**{**s.__dict__, **values})


def _int(value: Any, key: str, where: str, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where}: `{key}` must be a positive whole number of bytes")
    if high is not None and value > high:
        raise ConfigError(f"{where}: `{key}` = {value:,} is over the {high:,}-byte ceiling kdacheck reads a file up to")
    return value


def _share(value: Any, key: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ConfigError(f"{where}: `{key}` must be a number in (0, 1], e.g. 0.10")
    return float(value)


KEYS: dict[str, Any] = {
    "select": _codes,
    "ignore": _codes,
    "extend-select": _codes,
    "failure-threshold": lambda v, k, w: _text(v, k, w, SEVERITIES),
    "gpu": _text,
    "sglang-version": _text,
    "model": _text,
    "output-format": lambda v, k, w: _text(v, k, w, tuple(_formats())),
    "exclude": _globs,
    "max-file-size": lambda v, k, w: _int(v, k, w, 1 << 30),
    "mem005-share": _share,
    "per-file-ignores": _per_file,
    "severity": _severity,
    "baseline": _text,
}


CONFIG_MAX_BYTES = 1 << 20  # a pyproject.toml or kdacheck.toml larger than this is refused


def _settings_bytes(p: Path) -> bytes:
    """A settings file's bytes through kdacheck.confine: inside the repository that holds it
    (a link out of it, or to a device, is refused by name), at most 1 MiB."""
    from kdacheck import confine
    from kdacheck.findings import InputError

    try:
        data = confine.read(p, confine.repository_root(str(p.parent)), CONFIG_MAX_BYTES, str(p))
    except InputError as e:
        raise ConfigError(str(e)) from None
    assert data is not None
    return data


def _has_table(pyproject: Path) -> bool:
    raw = _settings_bytes(pyproject)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        # Not UTF-8 (TOML must be): when it holds kdacheck's table, load() says so (exit 2)
        # rather than the settings being skipped without a word.
        return re.search(rb"^\s*\[\s*tool\.kdacheck\b", raw, re.M) is not None
    if "kdacheck" not in text:
        return False
    toml = _toml()
    try:
        data = toml.loads(text)
    except (toml.TOMLDecodeError, RecursionError):
        return re.search(r"^\s*\[\s*tool\.kdacheck\b", text, re.M) is not None  # let load() say why
    tool = data.get("tool")
    return isinstance(tool, dict) and "kdacheck" in tool


@functools.cache
def find(folder: str) -> str | None:
    """The nearest configuration file at or above ``folder``."""
    d = Path(folder).resolve()
    for cand in (d, *d.parents):
        k = cand / "kdacheck.toml"
        if os.path.lexists(k):  # a link out or a device is refused by name when it is read
            return str(k)
        pp = cand / "pyproject.toml"
        if os.path.lexists(pp) and not pp.is_dir() and _has_table(pp):
            return str(pp)
    return None


def for_folder(folder: str) -> Settings:
    found = find(folder)
    return load(found) if found else EMPTY


def for_file(path: str) -> Settings:
    """The settings that apply to one linted file: nearest to its folder, else the cwd's."""
    if path in ("-", "<stdin>", "<cmd>"):
        return for_folder(os.getcwd())
    found = find(os.path.dirname(os.path.abspath(path)))
    return load(found) if found else for_folder(os.getcwd())


def resolve_model(s: Settings, allow_outside: bool = False) -> str | None:
    """``model`` as a path is relative to the configuration file's folder, and must stay in
    its repository (with the config.json in it): a settings file is part of the tree."""
    if s.model and s.path and (s.model.startswith((".", "/")) or os.sep in s.model):
        candidate = os.path.join(s.folder, s.model)
        if os.path.exists(candidate):
            from kdacheck import confine
            from kdacheck.findings import InputError

            root = None if allow_outside else confine.repository_root(s.folder)
            try:
                confine.check(candidate, root, f"{s.where('model')}: model {s.model}")
                inner = os.path.join(candidate, "config.json")
                if os.path.isdir(candidate) and os.path.lexists(inner):
                    confine.check(inner, root, f"{s.where('model')}: model {s.model}: config.json")
            except InputError as e:
                raise ConfigError(str(e)) from None
            return candidate
    return s.model


# --- settings + command line → lint options ---------------------------------------------------


@dataclass
class Options:
    """What ``lint`` and ``run`` need to check one file: built by :func:`options` from the
    configuration file and the command line, the same way for both commands."""

    version: str
    model: str | None = None
    gpu: GPU | None = None
    rules: list[Rule] | None = None
    max_bytes: int = 10 * 1024 * 1024
    mem005_share: float = 0.10
    sglang: bool = False  # --sglang: SGLang's own resolution as a self-check (kdacheck.sglang)
    env: dict[str, str] = field(default_factory=dict)  # --env / --env-file: shell variables the files do not set
    allow_outside: bool = False  # --allow-outside: --config files outside the linted repository are read
    offline: bool = False  # --offline: no model config.json is asked of the Hugging Face Hub
    ignore_noqa: bool = False  # --ignore-noqa: every `# kdacheck: ignore` comment read as if absent
    deployment: bool = False  # --deployment: the run pairs prefill and decode roles across the files, not per file
    severity: dict[str, Severity] = field(default_factory=dict)  # `severity`: code -> the severity its findings get
    version_why: str = ""  # where the version came from ("--sglang-version": also a configuration's)
    file_ignores: tuple[tuple[Any, tuple[str, ...]], ...] = ()  # (compiled glob, codes) from per-file-ignores
    file_ignore_sets: list[Any] = field(default_factory=list, repr=False, compare=False)  # the same globs, indexed (gitignore.PatternSet)
    ignored_codes: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)  # path -> codes per-file-ignores drops there


@dataclass(frozen=True)
class Overrides:
    """What the command line says; it wins over the configuration file."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    gpu: str | None = None
    sglang_version: str | None = None
    model: str | None = None
    sglang: bool = False
    env: tuple[tuple[str, str], ...] = ()
    allow_outside: bool = False
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # --per-file-ignores GLOB:CODES
    isolated: bool = False  # --isolated: no configuration file is read
    offline: bool = False  # --offline: never ask the Hub for a model's config.json
    ignore_noqa: bool = False  # --ignore-noqa: inline suppressions ignored
    deployment: bool = False  # --deployment: the files named are one deployment (kdacheck.pairs)


@functools.cache
def options(s: Settings, cli: Overrides) -> Options:
    """The lint options for files governed by ``s``: the command line first, then the file."""
    from kdacheck import flags as flagmod
    from kdacheck.findings import InputError
    from kdacheck.gpus import gpu as get_gpu
    from kdacheck.model_source import load_model
    from kdacheck.rules import select_rules

    def checked(key: str, from_cli: bool, fn: Any, value: Any) -> Any:
        try:
            return fn(value)
        except (ValueError, InputError) as e:
            msg = str(e)
            raise ConfigError(msg if from_cli or s.path is None else f"{s.where(key)}: {msg}") from None

    version, version_why = checked("sglang_version", cli.sglang_version is not None, flagmod.pick_version, cli.sglang_version or s.sglang_version)
    gpu_name = cli.gpu or s.gpu
    profile = checked("gpu", cli.gpu is not None, get_gpu, gpu_name) if gpu_name else None
    model = cli.model or resolve_model(s, cli.allow_outside)
    if model:
        checked("model", cli.model is not None, lambda m: load_model(m, None), model)
    select = cli.select if cli.select is not None else s.select
    try:
        rules = select_rules(
            list(select) if select is not None else None,
            list(s.ignore + cli.ignore) or None,
            list(s.extend_select + cli.extend_select) or None,
        )
    except ValueError as e:
        raise ConfigError(str(e) if s.path is None or cli.select or cli.ignore or cli.extend_select
                          else f"{s.path}: {e}") from None
    opts = Options(version=version, model=model, gpu=profile, rules=rules, sglang=cli.sglang, env=dict(cli.env), allow_outside=cli.allow_outside, version_why=version_why,
                   offline=cli.offline, ignore_noqa=cli.ignore_noqa, deployment=cli.deployment)
    if s.max_file_size is not None:
        opts.max_bytes = s.max_file_size
    if s.mem005_share is not None:
        opts.mem005_share = s.mem005_share
    opts.severity = {code: Severity.parse(level) for code, level in s.severity}
    from kdacheck.gitignore import compile_pattern, pattern_sets

    pairs = [(s.folder, g, c) for g, c in s.per_file_ignores] + [(os.getcwd(), g, c) for g, c in cli.per_file_ignores]
    opts.file_ignores = tuple((p, codes) for folder, glob, codes in pairs if (p := compile_pattern(glob, folder)) is not None)
    opts.file_ignore_sets = pattern_sets(p for p, _codes in opts.file_ignores)
    return opts


def ignored_here(opts: Options, path: str, code: str) -> bool:
    """Whether ``per-file-ignores`` drops ``code`` for the linted file ``path``. The globs are
    matched once per file (the codes they drop there kept), then each finding is a look-up."""
    codes = opts.ignored_codes.get(path)
    if codes is None:
        from kdacheck.gitignore import matching

        hit = {id(p) for p in matching(path, False, opts.file_ignore_sets)}
        codes = tuple(sorted({c for p, cs in opts.file_ignores if id(p) in hit for c in cs}))
        opts.ignored_codes[path] = codes
    return any(code.startswith(c) for c in codes)


def environment(pairs: list[str], env_file: str | None, allow_outside: bool = False) -> dict[str, str]:
    """``--env KEY=VALUE`` and ``--env-file FILE`` (``KEY=VALUE`` lines, ``#`` comments,
    ``export`` allowed): the variables a launch file uses without setting them. The command
    line wins over the file. The file is read through kdacheck.confine: inside the working
    directory's repository (unless ``--allow-outside``), a regular file of at most 1 MiB."""
    from kdacheck import confine
    from kdacheck.findings import InputError

    out: dict[str, str] = {}
    lines: list[tuple[str, str]] = []
    if env_file is not None:
        root = None if allow_outside else confine.repository_root(os.getcwd())
        try:
            data = confine.read(env_file, root, 1 << 20, f"--env-file {env_file}")
            assert data is not None
            text = data.decode("utf-8-sig")
        except InputError as e:
            raise ConfigError(str(e)) from None
        except UnicodeDecodeError as e:
            raise ConfigError(f"--env-file {visible_name(env_file)}: not UTF-8 text (byte {e.start})") from None
        lines += [(f"{visible_name(env_file)}:{n}", ln.strip().removeprefix("export ").strip()) for n, ln in enumerate(text.split("\n"), 1)
                  if ln.strip() and not ln.strip().startswith("#")]
    lines += [("--env", x) for x in pairs]
    for where, item in lines:
        key, eq, value = item.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise ConfigError(f"{where}: `{item[:60]}` is not KEY=VALUE")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key] = value
    return out


def exclude_patterns(settings: list[Settings]) -> list[Pattern]:
    """The ``exclude`` globs of these configurations, each relative to its file's folder."""
    from kdacheck.gitignore import MAX_PATTERNS, compile_pattern

    out: list[Pattern] = []
    for s in dict.fromkeys(settings):  # the working directory's and a folder's may be one file
        for g in s.exclude:
            p = compile_pattern(g, s.folder, s.where("exclude"))
            if p is not None:
                out.append(p)
        if len(out) > MAX_PATTERNS:
            raise ConfigError(f"{s.where('exclude')}: `exclude`: over {MAX_PATTERNS:,} globs in all the settings files of this run")
    return out


def reset() -> None:
    """Forget cached lookups (each ``kdacheck lint`` starts afresh: files may have changed)."""
    find.cache_clear()
    load.cache_clear()
    options.cache_clear()


def describe(paths: list[str], cli: Overrides, threshold: str | None, output_format: str | None) -> str:
    """``lint --show-settings``: what applies to the first path (or the working directory),
    and where each value comes from."""
    target = paths[0] if paths else os.getcwd()
    s = EMPTY if cli.isolated else (for_folder(target) if os.path.isdir(target) else for_file(target))
    opts = options(s, cli)

    def src(key: str, from_cli: Any, env: str | None = None) -> str:
        if from_cli not in (None, (), False):
            return "command line" + (f" or {env}" if env and os.environ.get(env) else "")
        return s.where(key) if s.path and key in s.lines else "default"

    rules = [r.code for r in opts.rules] if opts.rules is not None else ["all"]
    rows = [
        ("settings file", s.path or ("none (--isolated)" if cli.isolated else "none found"), ""),
        ("sglang-version", opts.version, opts.version_why or src("sglang_version", cli.sglang_version, "KDACHECK_SGLANG_VERSION")),
        ("gpu", opts.gpu.name if opts.gpu else "none (memory rules say what they need)", src("gpu", cli.gpu, "KDACHECK_GPU")),
        ("model", opts.model or "from each launch's --model-path", src("model", cli.model, "KDACHECK_MODEL")),
        ("failure-threshold", threshold or s.failure_threshold or "warning", src("failure_threshold", threshold, "KDACHECK_FAILURE_THRESHOLD")),
        ("output-format", output_format or s.output_format or "full (github under GitHub Actions)", src("output_format", output_format, "KDACHECK_OUTPUT_FORMAT")),
        ("rules", f"{len(rules)}: {', '.join(rules)}" if rules != ["all"] else "all", src("select", cli.select)),
        ("ignore", ", ".join(s.ignore + cli.ignore) or "none", src("ignore", cli.ignore)),
        ("per-file-ignores", "; ".join(f"{g}: {','.join(c)}" for g, c in s.per_file_ignores + cli.per_file_ignores) or "none", src("per_file_ignores", cli.per_file_ignores)),
        ("exclude", ", ".join(s.exclude) or "none", src("exclude", None)),
        ("max-file-size", f"{opts.max_bytes:,} bytes", src("max_file_size", None)),
        ("mem005-share", f"{opts.mem005_share:g}", src("mem005_share", None)),
        ("severity", ", ".join(f"{c} = {v}" for c, v in s.severity) or "each rule's own", src("severity", None)),
        ("baseline", s.baseline or "none", src("baseline", None)),
        ("env", ", ".join(k for k, _v in cli.env) or "none", "command line" if cli.env else "default"),
        ("allow-outside", str(cli.allow_outside).lower(), "command line" if cli.allow_outside else "default"),
    ]
    width = max(len(k) for k, _v, _w in rows)
    from kdacheck.sanitize import visible_name

    return "\n".join(f"{k:<{width}}  {visible_name(str(v))}" + (f"  ({visible_name(w)})" if w else "") for k, v, w in rows)
