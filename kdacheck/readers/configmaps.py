"""An SGLang ``--config`` held in a Kubernetes ConfigMap and mounted where the launch names it.

``--config /etc/sglang/config.yaml`` in a container, a ``volumeMounts`` entry mounting a volume
at ``/etc/sglang`` (or at the file itself, with ``subPath``), the volume a ``configMap`` (its
``items`` mapping keys to file names, else every key a file of its own name), and a ConfigMap of
that name in the same file or in a manifest of the same folder: the key's text is the launch's
config, read as SGLang's config merger reads a file (its arguments first, the command line
after them), each key at its place inside the ConfigMap.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass

import yaml

from kdacheck import confine
from kdacheck.findings import InputError
from kdacheck.readers import bounds
from kdacheck.readers.base import LaunchCommand, Token, Unread
from kdacheck.readers.yamlfiles import compose_all, config_tokens, mapping_get, node_at, pairs
from kdacheck.suffixes import YAML_SUFFIXES

MANIFEST_BYTES = 1 << 20  # bytes of a sibling manifest read for its ConfigMaps
MAX_SIBLINGS = 64  # sibling manifests read for ConfigMaps


@dataclass(frozen=True)
class Mount:
    path: str  # mountPath
    volume: str
    sub_path: str


@dataclass
class Volumes:
    """What one file (and its folder) says about mounts: mounts, ConfigMap volumes, ConfigMaps."""

    mounts: list[Mount]
    volumes: dict[str, tuple[str, dict[str, str]]]  # volume → (ConfigMap name, file name → key)
    maps: dict[str, tuple[yaml.MappingNode, list[str]]]  # ConfigMap name → its data, its file's lines


def _scalar(node: yaml.Node | None) -> str:
    return str(node.value) if isinstance(node, yaml.ScalarNode) else ""


def collect(docs: list[yaml.Node], lines: list[str]) -> Volumes:
    """Mounts, ConfigMap volumes and ConfigMaps of ``docs`` (every mapping, at any depth)."""
    v = Volumes([], {}, {})
    stack: list[tuple[yaml.Node, int]] = [(d, 0) for d in docs]
    while stack:
        node, d = stack.pop()
        bounds.charge_nodes(1, f"{node_at(node)}: a YAML node")
        if d > 64:
            continue
        if isinstance(node, yaml.SequenceNode):
            stack += [(n, d + 1) for n in node.value]
            continue
        if not isinstance(node, yaml.MappingNode):
            continue
        if _scalar(mapping_get(node, "kind")) == "ConfigMap":
            data = mapping_get(node, "data")
            meta = mapping_get(node, "metadata")
            if isinstance(data, yaml.MappingNode) and meta is not None:
                v.maps.setdefault(_scalar(mapping_get(meta, "name")), (data, lines))
        cm = mapping_get(node, "configMap")
        if isinstance(cm, yaml.MappingNode) and _scalar(mapping_get(node, "name")):
            items = mapping_get(cm, "items")
            files = {_scalar(mapping_get(i, "path")): _scalar(mapping_get(i, "key"))
                     for i in (items.value if isinstance(items, yaml.SequenceNode) else [])}
            v.volumes[_scalar(mapping_get(node, "name"))] = (_scalar(mapping_get(cm, "name")), files)
        mounts = mapping_get(node, "volumeMounts")
        for m in mounts.value if isinstance(mounts, yaml.SequenceNode) else []:
            mp, name = _scalar(mapping_get(m, "mountPath")), _scalar(mapping_get(m, "name"))
            if mp and name:
                v.mounts.append(Mount(posixpath.normpath(mp), name, _scalar(mapping_get(m, "subPath"))))
        stack += [(val, d + 1) for _k, val in pairs(node)]
    return v


def _siblings(path: str, vols: Volumes) -> None:
    """The ConfigMaps of the YAML manifests beside ``path`` (read inside its repository, bounded)."""
    folder = os.path.dirname(path) or "."
    root = confine.repository_root(folder)
    try:
        names = sorted(n for n in os.listdir(folder) if n.lower().endswith(YAML_SUFFIXES))[:MAX_SIBLINGS]
    except OSError:
        return
    for n in names:
        other = os.path.join(folder, n)
        if os.path.abspath(other) == os.path.abspath(path):
            continue
        try:
            text = confine.read_text(other, root, MANIFEST_BYTES, other, missing_ok=True)
            if text is None or "ConfigMap" not in text:
                continue
            found = collect(compose_all(text, other, keep=False), text.splitlines())
        except InputError:
            continue  # a sibling that is not readable YAML holds no ConfigMap kdacheck can use
        for k, held in found.maps.items():
            vols.maps.setdefault(k, held)


def _source(name: str, vols: Volumes) -> tuple[str, str, Mount] | None:
    """(ConfigMap name, key, mount) of the file ``name`` where a ConfigMap volume is mounted."""
    target = posixpath.normpath(name)
    for m in vols.mounts:
        if m.volume not in vols.volumes:
            continue
        cm, files = vols.volumes[m.volume]
        if m.sub_path and target == m.path:
            rel = m.sub_path
        elif not m.sub_path and target.startswith(m.path.rstrip("/") + "/"):
            rel = target[len(m.path.rstrip("/")) + 1:]
        else:
            continue
        key = files.get(rel, rel if not files else "")
        if key:
            return cm, key, m
    return None


def _block(lines: list[str], first: int) -> list[str]:
    """The file lines of a literal block from ``first``: those indented at least as its first one."""
    indent = None
    out: list[str] = []
    for raw in lines[first:]:
        if raw.strip():
            here = len(raw) - len(raw.lstrip(" "))
            indent = here if indent is None else indent
            if here < indent:
                break
        out.append(raw)
    return out


def _tokens(value: yaml.Node, lines: list[str], where: str) -> tuple[list[Token], list[Token]]:
    """The ConfigMap key's text read as an SGLang ``--config`` (its tokens, and its keys set to
    false: ``LaunchCommand.config_off``): a literal block read in place (each
    key at its line and column in the file), any other string read as its own text at the value."""
    if not isinstance(value, yaml.ScalarNode):
        raise InputError(f"{node_at(value)}: {where}: a ConfigMap value must be a string")
    path = value.start_mark.name
    if value.style == "|":
        first = value.start_mark.line + 1  # the block's first line (0-based)
        text = "\n" * first + "\n".join(_block(lines, first))
    else:
        text = str(value.value)
    bounds.charge_chars(len(text), f"{node_at(value)}: {where}")
    docs = compose_all(text, path, keep=False)
    if not docs:
        return [], []
    off: list[Token] = []
    toks = config_tokens(docs[0], path, off)
    if value.style == "|":
        return toks, off
    at = node_at(value)
    return [Token(t.text, at, t.origin, t.is_flag, t.unknown) for t in toks], [Token(t.text, at, t.origin, t.is_flag) for t in off]


def _config_ref(cmd: LaunchCommand) -> tuple[int, int, str, Token] | None:
    """(index, count of tokens, file name, the value's token) of the launch's ``--config``."""
    toks = cmd.tokens
    for i, t in enumerate(toks):
        if t.origin != "cli" or t.unknown:
            continue
        if t.text == "--config" and i + 1 < len(toks) and not toks[i + 1].unknown:
            return i, 2, toks[i + 1].text, toks[i + 1]
        # `--config=FILE`: SGLang never reads the file (args.ArgKind.CONFIG_NOT_MERGED), nor does kdacheck
    return None


def _fix_limits(c: LaunchCommand, cm: str, key: str, value: yaml.Node, here: bool) -> None:
    """What ``--fix`` cannot do to a launch whose arguments come from a ConfigMap key, said with the
    finding rather than skipped: a key's text in another manifest, or written as a quoted or
    folded string, is not edited (its words are not placed where they are written); a flag is
    not added to a ConfigMap (only after a command-line word of the launch's own, if it has one)."""
    if not here:
        c.held = (f"the key is held in ConfigMap `{cm}` key `{key}` in {value.start_mark.name}, another manifest: "
                  "--fix edits only the file it lints; change the key there")
    elif isinstance(value, yaml.ScalarNode) and value.style != "|":
        c.held = (f"the key is held in ConfigMap `{cm}` key `{key}` written as a {'quoted' if value.style else 'plain'} "
                  "string, not a `|` block: --fix does not rewrite it; change the key there")
    if not any(t.origin == "cli" for t in c.tokens):
        c.append = None
        c.append_why = (f"the launch's arguments are all in ConfigMap `{cm}` key `{key}` (its --config): --fix does not "
                        "add a key to a ConfigMap's text; add it to the key (or the flag to the command)")


def expand(cmds: list[LaunchCommand], docs: list[yaml.Node], path: str, lines: list[str]) -> list[LaunchCommand]:
    """Each launch whose ``--config`` names a mounted ConfigMap key, with that config read in."""
    refs = [(c, r) for c in cmds if (r := _config_ref(c)) is not None and r[2].startswith("/")]
    if not refs:
        return cmds
    vols = collect(docs, lines)
    for c, (i, n, name, ref) in refs:
        found = _source(name, vols)
        if found is None:
            continue
        cm, key, mount = found
        if cm not in vols.maps and not path.startswith("<"):
            _siblings(path, vols)
        data, its_lines = vols.maps.get(cm, (None, lines))
        value = mapping_get(data, key) if data is not None else None
        said = f"{ref.loc}: --config {name[:200]}"
        rest = c.tokens[:i] + c.tokens[i + n:]
        if value is None:
            what = f"ConfigMap `{cm}` key `{key}` (mounted at {mount.path}) is not in this file or its folder"
            c.tokens = rest
            c.unread.append(Unread(ref.loc, f"--config {name[:200]}: {what}"))
            c.notes.append(f"{said}: {what}: its arguments were not read, so not checked")
            continue
        toks, c.config_off = _tokens(value, its_lines, f"ConfigMap `{cm}` key `{key}`")
        c.tokens = toks + rest
        _fix_limits(c, cm, key, value, its_lines is lines)
        c.notes.append(f"{said}: read from ConfigMap `{cm}` key `{key}` at {node_at(value)} (mounted at {mount.path})")
    return cmds
