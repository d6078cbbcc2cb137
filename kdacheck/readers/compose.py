"""Docker Compose files: each service's ``entrypoint`` and ``command`` as Compose joins them.

Compose interpolates ``${VAR}`` from the ``.env`` file beside the file (and ``--env``) before
anything splits a string; a ``sh -c`` script is read as shell with the service's
``environment:``.
"""

from __future__ import annotations

import re

import yaml

from kdacheck.readers import bounds
from kdacheck.readers.base import LaunchCommand, Token
from kdacheck.readers.shell import launches_in_tokens
from kdacheck.readers.yamlfiles import (
    Budget,
    Shifts,
    argv_words,
    expand_refs,
    list_append,
    mapping_get,
    memo,
    moved,
    node_at,
    node_loc,
    pairs,
    refold,
    scalar_shell_tokens,
    script_launches,
    substitute,
    substituted,
    text_origin,
)


def is_compose(doc: yaml.Node) -> bool:
    return isinstance(mapping_get(doc, "services"), yaml.MappingNode)


_COMPOSE_VAR = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def compose_value(m: re.Match[str], env: dict[str, str]) -> str | None:
    """Compose's value for one reference (``$$`` is ``$``); None: unset without a default."""
    if m.group(0) == "$$":
        return "$"
    op, arg = m.group(2), m.group(3) or ""
    value = env.get(m.group(1) or m.group(4))
    unset = value is None or (value == "" and (op or "").startswith(":"))
    if op in ("-", ":-"):
        return arg if unset else str(value)
    if op in ("+", ":+"):
        return "" if unset else arg
    return None if unset else str(value)


def compose_interpolate(words: list[Token], env: dict[str, str]) -> list[Token]:
    """Compose's interpolation of ``${VAR}``, ``${VAR:-d}``, ``${VAR-d}``, ``${VAR:?err}``,
    ``${VAR:+alt}`` and ``$VAR`` from the ``.env`` file beside it and the environment (``--env``);
    ``$$`` is a literal ``$``. An unset variable without a default is unknown."""

    def why(m: re.Match[str]) -> str:
        return f"`${{{m.group(1) or m.group(4)}}}` is not set in the .env file beside it (give it with --env)"

    return substitute(words, _COMPOSE_VAR, lambda m: compose_value(m, env), why, "Compose's `${VAR}` in entrypoint or command")


DOTENV_BYTES = 1 << 20


def read_dotenv(folder: str, allow_outside: bool = False) -> dict[str, str]:
    """The ``.env`` file Compose reads beside the compose file (KEY=VALUE lines): read through
    kdacheck.confine, so a ``.env`` that is a link out of the repository (``/proc/self/environ``,
    ``../secrets.env``), a device or over 1 MiB is refused by name (exit 2), never shown."""
    import os

    from kdacheck import confine

    path = os.path.join(folder, ".env")
    root = None if allow_outside else confine.repository_root(folder)
    text = confine.read_text(path, root, DOTENV_BYTES, path, missing_ok=True)
    if text is None:
        return {}
    out: dict[str, str] = {}
    for line in text.split("\n"):  # Compose's lines: a lone CR or U+2028 does not end one
        s = line.strip()
        if not s or s.startswith("#") or "=" not in s:
            continue
        key, _eq, value = s.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key.strip()):
            out[key.strip()] = value
    return out


def read_compose(doc: yaml.Node, path: str, lines: list[str] | None = None, env: dict[str, str] | None = None,
                 allow_outside: bool = False) -> list[LaunchCommand]:
    import os

    values = {**read_dotenv(os.path.dirname(path) or ".", allow_outside), **(env or {})} if path not in ("<stdin>", "<cmd>") else dict(env or {})
    found = _read_compose(doc, path, lines, values)
    from kdacheck.versions import image_version

    services = mapping_get(doc, "services")
    by_name = {k.value: v for k, v in pairs(services) if isinstance(k, yaml.ScalarNode)} \
        if isinstance(services, yaml.MappingNode) else {}  # the last one wins, as with yaml.safe_load
    for c in found:
        svc = by_name.get(c.name.removeprefix("service "))
        image = mapping_get(svc, "image") if svc is not None else None
        tagged = image_version(str(image.value)) if isinstance(image, yaml.ScalarNode) else None
        if tagged and isinstance(image, yaml.ScalarNode):
            c.version_hint = (tagged, node_loc(path, image))
    return found


def _read_compose(doc: yaml.Node, path: str, lines: list[str] | None = None, values: dict[str, str] | None = None) -> list[LaunchCommand]:
    """Each service's launch: ``entrypoint`` then ``command``, as Compose joins them into one
    argv, each in list or string form. Compose interpolates every string before anything
    splits it (compose-spec "Interpolation"), so ``values`` (the ``.env`` file, ``--env``) are
    known values in the string form exactly as in the list form, and what stays unset is
    unknown. ``sh -c SCRIPT`` is read as a shell script with the service's ``environment:``
    (what the container's shell sees; ``$$VAR`` there is the shell's ``$VAR``)."""
    from kdacheck.readers.shell import _SHELLS, looks_like_shell_launch, read_shell

    services = mapping_get(doc, "services")
    found: list[LaunchCommand] = []
    if not isinstance(services, yaml.MappingNode):
        return found
    budget = Budget(path)
    env = dict(values or {})

    def interpolate(m: re.Match[str]) -> str | None:
        return compose_value(m, env)

    for k, svc in pairs(services):
        budget.spend(svc, 1)
        label = f"service {k.value}" if isinstance(k, yaml.ScalarNode) else "service ?"
        shell_env = _service_environment(svc, env)
        nodes = [n for n in (mapping_get(svc, "entrypoint"), mapping_get(svc, "command")) if n is not None]
        words: list[Token] = []
        shifts: Shifts = {}
        for node in nodes:
            if isinstance(node, yaml.ScalarNode):
                line, col, indent = text_origin(node, lines)
                what = f"{node_loc(path, node)}: Compose's `${{VAR}}` in {label}"
                text, moves = expand_refs(str(node.value), _COMPOSE_VAR, interpolate, line, col, indent, what)
                shifts.update(moves)
                words += scalar_shell_tokens(node, path, budget, lines, None, text)
            else:
                words += compose_interpolate(argv_words(node, path, budget), env)
        cmds = launches_in_tokens(words, path, "compose", label)
        if cmds and isinstance(nodes[-1], yaml.SequenceNode):
            for c in cmds:  # --fix adds a flag as a new item of the last list, in its style
                c.append, c.append_why = list_append(nodes[-1], lines)
        # sh -c SCRIPT: a list item read as a script in place, or a word of the string form
        for node in nodes:
            for item in (node.value if isinstance(node, yaml.SequenceNode) else []):
                if not cmds and isinstance(item, yaml.ScalarNode) and looks_like_shell_launch(str(item.value)) \
                        and any(c.isspace() for c in str(item.value)):
                    cmds = script_launches(item, path, budget, lines, env, label, "compose", _COMPOSE_VAR, interpolate, shell_env)
        for i in range(len(words) - 2):
            if cmds:
                break
            script = words[i + 2]
            if words[i].text.rsplit("/", 1)[-1] in _SHELLS and words[i + 1].text == "-c" and looks_like_shell_launch(script.text):
                raw = lines[script.loc.line - 1] if lines is not None and 0 < script.loc.line <= len(lines) else ""
                quoted = 0 < script.loc.col <= len(raw) and raw[script.loc.col - 1] in "'\""
                cmds = read_shell(script.text, path, shell_env, script.loc.line, script.loc.col + quoted, "compose", label)
        moved(cmds, shifts)
        for node in nodes:
            if isinstance(node, yaml.ScalarNode):
                line, _col, indent = text_origin(node, lines)
                refold(cmds, node, lines, line, indent)
        found += cmds
    return found


def _service_environment(svc: yaml.Node, env: dict[str, str]) -> dict[str, str]:
    """A service's ``environment:`` (a mapping, or a list of ``KEY=VALUE``), interpolated: the
    variables its container's shell sees. Read once per node per file (``environment: *e`` in
    many services is one node), each use charged to the file's budget."""
    node = mapping_get(svc, "environment")
    if not isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
        return {}
    bounds.charge_nodes(1 + len(node.value), f"{node_at(node)}: a service's environment")
    m = memo()
    key = ("compose", node)
    if key not in m.envs:
        m.envs[key] = _compose_environment(node, env)
    read: dict[str, str] = m.envs[key]
    return read


def _compose_environment(node: yaml.MappingNode | yaml.SequenceNode, env: dict[str, str]) -> dict[str, str]:
    """The variables of an ``environment:`` node, each value interpolated (bounded before it is
    built); one still holding a ``$`` is left out (not known)."""
    items: list[tuple[str, yaml.ScalarNode, str]] = []
    if isinstance(node, yaml.MappingNode):
        items = [(str(k.value), v, str(v.value)) for k, v in pairs(node)
                 if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode) and v.tag != "tag:yaml.org,2002:null"]
    else:
        items = [(i.value.split("=", 1)[0], i, i.value.split("=", 1)[1]) for i in node.value
                 if isinstance(i, yaml.ScalarNode) and "=" in str(i.value)]
    out: dict[str, str] = {}
    for key, where, value in items:
        what = f"{node_at(where)}: Compose's `${{VAR}}` in environment `{key[:100]}`"
        text = substituted(value, _COMPOSE_VAR, lambda m: compose_value(m, env), what)[0]
        if "$" not in text:
            out[key] = text
    return out
