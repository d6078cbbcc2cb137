"""Pick the reader for a file by its content, and splice in ``--config`` files."""

from __future__ import annotations

import dataclasses
import os
import re
import stat
from pathlib import Path

from kdacheck import confine, messages
from kdacheck.findings import InputError, Location
from kdacheck.readers import (
    argsfiles,
    bounds,
    carriers,
    configmaps,
    entry,
    finder,
    kinds,
    wrappers,
    yamlfiles,
)
from kdacheck.readers.base import Append, LaunchCommand, Token, Unread
from kdacheck.readers.shell import looks_like_shell_launch, read_shell, tokenize
from kdacheck.suffixes import YAML_SUFFIXES

MAX_BYTES = 10 * 1024 * 1024
MAX_COMMANDS = 1_000  # launch commands in one file


def decode(data: bytes, path: str) -> str:
    if b"\x00" in data[:65536]:
        raise InputError(f"{path}: binary file, not a launch configuration")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text (byte {e.start})") from None


def read_bytes(path: str, max_bytes: int = MAX_BYTES) -> bytes:
    p = Path(path)
    try:
        st = p.stat()
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: is a directory (give it as a folder to search, not --config)")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: not a regular file (a pipe or device); use - for standard input")
        size = st.st_size
        if size > max_bytes:
            raise InputError(f"{path}: {size:,} bytes is over the {max_bytes:,}-byte limit")
        with p.open("rb") as f:  # what stat says plus a little (a file growing while read), never the budget up front
            data = f.read(min(max_bytes, size + 65536) + 1)
    except InputError:
        raise
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as e:
        if e.errno == 40:  # ELOOP
            raise InputError(f"{path}: symbolic link loop") from None
        raise InputError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise InputError(f"{path}: over the {max_bytes:,}-byte limit")
    return confine.recorded(path, data)


def read_text(text: str, path: str, base_dir: str | None = None, max_bytes: int = MAX_BYTES,
              env: dict[str, str] | None = None, allow_outside: bool = False) -> list[LaunchCommand]:
    """Launch commands in ``text``; ``path`` is what findings will name."""
    bounds.start(path)  # every expansion of this file charges one budget
    folder = base_dir if base_dir is not None else (os.getcwd() if path in ("<cmd>", "<stdin>", "-") else None)
    tree = None if allow_outside or folder is None else repository_root(folder)
    argsfiles.start(folder, tree)  # `$(cat args.txt)`
    wrappers.start(folder, tree)  # `python -m serve`: a module of the tree passing SGLang's flags through
    cmds = [entry.take_own_flags(c) for c in _read(text, path, env, allow_outside)] or unread_launch(text, path)
    if len(cmds) > MAX_COMMANDS:
        raise InputError(f"{path}: {len(cmds):,} launch commands in one file (the limit is {MAX_COMMANDS:,})")
    cache: dict[str, ConfigRead | None] = {}  # a --config named by many commands of this file is read once
    root = None if allow_outside else repository_root(base_dir)
    texts: dict[str, str | None] = {}
    return [read_side_files(expand_config(c, base_dir, max_bytes, root, cache), base_dir, root, texts) for c in cmds]


_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)")


def unread_launch(text: str, path: str) -> list[LaunchCommand]:
    """Where a file names an SGLang entry point or carries SGLang flags but no launch was read
    in it: one launch standing for what was not read, at the first place that names one, its
    arguments unread (ARG009: "not checked", counted, failing --strict), never a silent pass."""
    m = entry.MENTION.search(text)
    what = f"`{m.group(0)}` is named here" if m else ""
    if m is None:
        multi, _single = carriers.flag_names()
        flags = [f for f in _FLAG.finditer(text[:MAX_BYTES]) if f.group(1) in multi]
        if len({f.group(1) for f in flags}) < 2:
            return []
        m, what = flags[0], f"SGLang flags are given here (`{flags[0].group(0)}`, ...)"
    line = text.count("\n", 0, m.start()) + 1
    loc = Location(path, line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1)
    why = f"{what}, but kdacheck found no launch it could read in this file"
    return [LaunchCommand(path, [], "unread", loc, "not read", unread=[Unread(loc, why)],
                          notes=[f"{loc}: {why}: not checked"], append=None, append_why="no launch was read")]


# A --config named by many files of a run is parsed once: its tokens are kept by what it holds
# (sha256 of the bytes, so a file --fix rewrote in place, even to the same size within one mtime
# tick, is parsed again) and by its name as given (the tokens' places name it so). Each file that
# names it still reads it once (cheap, and --fix writes only what a lint read: confine.recorded).
MAX_KEPT_TOKENS = 200_000  # tokens of --config files kept between the files of a run (about 300 B each: 60 MB; a 90,000-key file is 180,000)
ConfigRead = tuple[list[Token], list[Token]]  # a --config's tokens, and its keys set to false (LaunchCommand.config_off)
_parsed: dict[tuple[str, str, int], ConfigRead | None] = {}  # (name as given, sha256, byte limit) -> tokens


SIDE_FILE_FLAGS = ("--speculative-adaptive-config",)  # flags whose value is a file SGLang reads
SIDE_FILE_BYTES = 1 << 20


def _target(name: str, base_dir: str | None) -> Path:
    target = Path(name)
    return target if target.is_absolute() or base_dir is None else Path(base_dir) / target


def read_side_files(cmd: LaunchCommand, base_dir: str | None, root: str | None, texts: dict[str, str | None]) -> LaunchCommand:
    """The files a launch names besides ``--config`` (``--speculative-adaptive-config``, a
    JSON file SGLang reads at start-up: 0.5.23 ``srt/speculative/adaptive_spec_params.py``),
    read relative to the launch file, bounded, once per file; refused unread outside ``root``."""
    toks = cmd.tokens
    for i, t in enumerate(toks):
        flag, _, inline = t.text.partition("=")
        if flag not in SIDE_FILE_FLAGS or t.unknown:
            continue
        ref = t if inline else (toks[i + 1] if i + 1 < len(toks) else None)
        name = inline or (ref.text if ref is not None else "")
        if ref is None or not name or ref.unknown or name.lstrip().startswith("{") or "\0" in name:
            continue  # inline JSON, or a value kdacheck cannot know
        target = _target(name, base_dir)
        refuse_outside(target, root, f"{ref.loc}: {flag} {name[:200]}")
        key = os.path.realpath(target)
        if key not in texts:
            try:
                texts[key] = decode(read_bytes(str(target), SIDE_FILE_BYTES), str(target)) if target.is_file() else None
            except (OSError, InputError):  # too long a name, a loop, too big, not text: candidates unknown
                texts[key] = None
        cmd.side_files[name] = texts[key]
        if texts[key] is None:
            cmd.notes.append(f"{ref.loc}: {flag} {name[:200]}: not found beside the launch file (or not a readable JSON text "
                             "file): the candidate steps it sets were not checked")
    return cmd


def repository_root(base_dir: str | None) -> str:
    """The tree a linted file may read beside itself: its git repository, else its folder
    (found from the folder as named: see kdacheck.confine)."""
    return confine.repository_root(base_dir)


inside = confine.inside


def refuse_outside(target: Path, root: str | None, what: str) -> None:
    """Exit 2, unread, for a file or folder a launch names outside the repository (``root``
    None: ``--allow-outside``); ``what`` is how the launch named it (``place: --flag name``)."""
    confine.check(target, root, what)


def _read(text: str, path: str, env: dict[str, str] | None = None, allow_outside: bool = False) -> list[LaunchCommand]:
    if kinds.is_notebook(path, text):
        from kdacheck.readers import notebook

        return notebook.read_notebook(text, path, env, MAX_COMMANDS)
    if kinds.is_dockerfile(path, text):
        from kdacheck.readers import dockerfile

        return dockerfile.read_dockerfile(text, path)
    is_yaml_name = path.lower().endswith(YAML_SUFFIXES)
    if is_helm_template(path, text):
        raise InputError(f"{path}: an unrendered Helm template ({{{{ ... }}}}): lint what `helm template` renders "
                         "(helm template CHART | kdacheck lint -)")
    if is_yaml_name or path.lower().endswith(".json") or _looks_like_yaml(text):
        return _read_documents(text, path, env, allow_outside)
    cmds = read_shell(text, path, env)
    if not cmds and text.lstrip().startswith("--"):
        # Bare SGLang arguments, no program name.
        toks = [t for t in tokenize(text, path, env=env) if t.text != "\n"]
        cmds = [LaunchCommand(path, toks, "shell", toks[0].loc if toks else Location(path), append=Append(" ", "shell"))]
    return cmds


def _read_documents(text: str, path: str, env: dict[str, str] | None, allow_outside: bool) -> list[LaunchCommand]:
    """A YAML or JSON text: what the reader of its kind gives (kinds.DOCUMENT_KINDS: Kubernetes
    workloads, Compose, the carriers), then every launch the finder reads by structure in what they did not read; an
    SGLang ``--config`` only when nothing else is a launch and its keys are SGLang's."""
    docs = yamlfiles.compose_all(text, path)
    if not docs:
        return []
    lines = text.splitlines()
    kind = kinds.kind_of(docs)
    named = kind.read(docs, path, lines, env, allow_outside) if kind is not None else []
    found = named + finder.find(docs, path, lines, named, env)
    if found:
        return configmaps.expand(found, docs, path, lines)
    if kind is not None:
        if kind.empty:
            raise InputError(carriers.not_a_launch_configuration(path, kind.empty))
        return []
    if entry.mentions(text) and (len(docs) > 1 or not carriers.config_like(docs[0])):
        return []  # names an entry point, but holds no launch the finder could read: said unread (unread_launch)
    if len(docs) > 1:
        raise InputError(f"{path}: several YAML documents, but no Kubernetes manifest among them")
    if not carriers.config_like(docs[0]):
        yamlfiles.to_python(docs[0], yamlfiles.Budget(path))  # too deep or too big is said first, as for a --config
        raise InputError(carriers.not_a_launch_configuration(
            path, "a YAML document that is neither an SGLang --config (its keys are not SGLang's flags) nor a file known to carry a launch"))
    return [yamlfiles.read_config(docs[0], path)]


_HELM_ACTION = re.compile(r"\{\{-?\s*(?:\.?(?:Values|Release|Chart|Capabilities|Files|Template)\b|include\b|template\b|if\b|range\b|with\b|define\b|toYaml\b|\$|-?\s*/\*)")


def _content(text: str) -> str:
    """The lines of a YAML text that are not comments (a ``{{ .Values.x }}`` in a comment does
    not make a manifest a template)."""
    return "\n".join(ln for ln in text.split("\n") if not ln.lstrip().startswith("#"))


def _in_chart(path: str) -> bool:
    """Whether a ``templates/`` folder holding ``path`` has a ``Chart.yaml`` beside it."""
    p = os.path.abspath(path)
    d = os.path.dirname(p)
    for _ in range(32):
        if os.path.basename(d) == "templates" and os.path.isfile(os.path.join(os.path.dirname(d), "Chart.yaml")):
            return True
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent
    return False


def is_helm_template(path: str, text: str) -> bool:
    """A chart's template before ``helm template`` renders it: a Go template action outside
    comments, and either a chart around it (``templates/`` beside a ``Chart.yaml``) or an
    action only Helm writes (``.Values``, ``include``, ``range``, ...). A plain manifest with
    ``{{`` in a comment, or a ``{{`` in a value under a folder that merely is named
    ``templates``, is read as what it is."""
    if "{{" not in text:
        return False
    body = _content(text)
    if "{{" not in body:
        return False
    return _HELM_ACTION.search(body) is not None or (not path.startswith("<") and _in_chart(path))


_YAML_KEY = re.compile(r"[A-Za-z0-9_.-]+\s*:(\s|$)")


def _looks_like_yaml(text: str) -> bool:
    """Content that is YAML whatever its name (standard input, ``kubectl get -o yaml``, ``helm
    template``): its first line that is not a comment opens a document, a mapping or a list."""
    for line in text.splitlines()[:200]:
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s.startswith(("---", "- ")) or s in ("-",):
            return True
        if _YAML_KEY.match(s) and not s.startswith(("python", "sglang", "exec", "export")):
            return not looks_like_shell_launch(line) or line.startswith(("apiVersion", "kind", "services"))
        return False
    return False


def merger_refusal(toks: list[Token]) -> tuple[str, Location] | None:
    """What SGLang's --config merger (``ConfigArgumentMerger``) refuses by the words alone, in its
    order, before argparse runs: more than one ``--config``, none's value, a name not .yaml/.yml
    (the file's root is checked when it is read). It reads only the words equal to ``--config``:
    a ``--config=FILE`` word is argparse's alone."""
    at = [i for i, t in enumerate(toks) if t.origin == "cli" and t.text == "--config"]
    if len(at) > 1:
        return messages.CONFIG_MULTIPLE, toks[at[1]].loc
    if not at:
        return None
    if at[0] == len(toks) - 1:
        return messages.CONFIG_NO_FILE, toks[at[0]].loc
    ref = toks[at[0] + 1]
    if ref.unknown:
        return None
    suffix = Path(ref.text).suffix
    if suffix.lower() not in (".yaml", ".yml"):
        return messages.CONFIG_NOT_YAML.format(suffix=suffix), ref.loc
    return None


def expand_config(cmd: LaunchCommand, base_dir: str | None, max_bytes: int = MAX_BYTES, root: str | None = None,
                  cache: dict[str, ConfigRead | None] | None = None) -> LaunchCommand:
    """SGLang's ``--config FILE``: the file's arguments come first, the command line after
    them (so it overrides them). With ``root``, a file outside it is refused unread."""
    toks = cmd.tokens
    refused = merger_refusal(toks)
    if refused is not None:
        return dataclasses.replace(cmd, config_refused=refused)
    for i, t in enumerate(toks):
        # only the word `--config` itself: SGLang never reads `--config=FILE` (args.ArgKind.CONFIG_NOT_MERGED)
        if t.origin == "cli" and t.text == "--config":  # a last word with no file: merger_refusal above
            ref, rest = toks[i + 1], toks[:i] + toks[i + 2 :]
            name = ref.text
            target = _target(name, base_dir)
            refuse_outside(target, root, f"{ref.loc}: --config {name[:200]}")
            if not target.is_file():
                cmd.notes.append(f"{ref.loc}: --config {name} not found: its arguments were not checked")
                return cmd
            key = os.path.realpath(target)
            if cache is not None and key in cache:
                cached = cache[key]
            else:
                try:
                    cached = _config_tokens(str(target), max_bytes)
                except yamlfiles.NotAMapping:
                    return dataclasses.replace(cmd, tokens=rest, config_refused=(messages.CONFIG_NOT_A_MAPPING, ref.loc))
                if cache is not None:
                    cache[key] = cached
            if cached is None:
                return dataclasses.replace(cmd, tokens=rest)
            file_tokens, off = cached
            return dataclasses.replace(cmd, tokens=file_tokens + rest, config_off=off)
    return cmd


def _config_tokens(name: str, max_bytes: int) -> ConfigRead | None:
    """The arguments of the ``--config`` file ``name`` and its keys set to false (None: empty),
    read, and parsed once per run for what it holds (see ``_parsed``)."""
    import hashlib

    data = read_bytes(name, max_bytes)
    key = (name, hashlib.sha256(data).hexdigest(), max_bytes)
    if key in _parsed:
        return _parsed[key]
    doc = yamlfiles.compose_one(decode(data, name), name)
    del data
    off: list[Token] = []
    read = None if doc is None else (yamlfiles.config_tokens(doc, name, off), off)

    def size(r: ConfigRead | None) -> int:
        return 0 if r is None else len(r[0]) + len(r[1])

    kept = sum(size(r) for r in _parsed.values())
    while _parsed and kept + size(read) > MAX_KEPT_TOKENS:  # the oldest go first
        kept -= size(_parsed.pop(next(iter(_parsed))))
    if size(read) <= MAX_KEPT_TOKENS:
        _parsed[key] = read
    return read
