"""Launches found by what would run them, in any YAML or JSON document.

The named readers (kubernetes.py, compose.py; carriers.py: recipes, Truss,
SkyPilot, workflows) know their formats' roles and substitutions. Every other place is found
here by structure, as a container runtime or a shell would run it, in any document of any kind
(an operator's custom resource such as Dynamo's ``DynamoGraphDeployment`` or OME's
``ClusterServingRuntime``, or a shape no reader knows):

- a mapping with ``command`` / ``args`` (a container, whatever key holds it): its words, as the
  kubelet joins them, with its ``env:`` list (``$(VAR)`` substituted in a Kubernetes document);
- a list of strings whose program is an SGLang entry point (kdacheck/readers/entry.py);
- a string a shell would run that names one (``sh -c`` bodies, folded ``>-`` and literal ``|``
  blocks), read by the shell lexer with the variables beside it (``env:``, ``envs:``: a map, a
  list of ``{name, value}``, or a list of ``NAME=VALUE`` strings as dstack writes it).

Each launch is named after its path in the document (``spec.services.decode.extraPodSpec.
mainContainer``). A node a named reader already read (a launch of its starts inside it) is not
read again. Every node visited, alias re-visits included, is charged to the file's budget.
"""

from __future__ import annotations

import re

import yaml

from kdacheck.readers.base import LaunchCommand
from kdacheck.readers.entry import find_launch, mentions
from kdacheck.readers.kubernetes import container_launches, is_kubernetes
from kdacheck.readers.yamlfiles import (
    MERGE_TAG,
    Budget,
    argv_words,
    list_append,
    mapping_get,
    pairs,
    script_launches,
)

Span = tuple[int, int]  # (first line, last line) of a launch a reader already gave


def find(docs: list[yaml.Node], path: str, lines: list[str] | None, taken: list[LaunchCommand],
         env: dict[str, str] | None = None) -> list[LaunchCommand]:
    """The launches of ``docs`` that no launch in ``taken`` already covers."""
    budget = Budget(path)
    spans = [(c.loc.line, c.loc.line) for c in taken]
    starts = {(c.loc.line, c.loc.col) for c in taken}  # an aliased node a reader read is one launch, wherever used
    out: list[LaunchCommand] = []
    barren: set[yaml.Node] = set()
    for doc in docs:
        walker = _Walker(path, lines, budget, spans, _owner(doc), is_kubernetes(doc), dict(env or {}), barren)
        walker.walk(doc, [], 0)
        out += [c for c in walker.found if (c.loc.line, c.loc.col) not in starts]
    return out


def _owner(doc: yaml.Node) -> str:
    """``Kind/name`` of a Kubernetes-style document, else empty."""
    kind, meta = mapping_get(doc, "kind"), mapping_get(doc, "metadata")
    name = mapping_get(meta, "name") if meta is not None else None
    if not isinstance(kind, yaml.ScalarNode):
        return ""
    return f"{kind.value}/{name.value if isinstance(name, yaml.ScalarNode) else '?'}"


def _env_map(node: yaml.Node | None) -> dict[str, str]:
    """An ``envs:``/``env:`` mapping of plain values."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(k.value): str(v.value) for k, v in pairs(node)
            if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)}


_NAME_VALUE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)  # a shell variable's name, then its value


def _env_list(node: yaml.Node | None) -> dict[str, str]:
    """An ``env:`` list: a container's ``{name, value}`` items, and ``NAME=VALUE`` strings (dstack's
    ``env:``, a Compose-style list). A bare ``NAME`` is set outside the file, so unknown here; a
    string that does not start with a variable's name sets nothing."""
    if not isinstance(node, yaml.SequenceNode):
        return {}
    out: dict[str, str] = {}
    for item in node.value:
        if isinstance(item, yaml.ScalarNode):
            m = _NAME_VALUE.fullmatch(str(item.value))
            if m:
                out[m.group(1)] = m.group(2)
            continue
        name, value = mapping_get(item, "name"), mapping_get(item, "value")
        if isinstance(name, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode):
            out[str(name.value)] = str(value.value)
    return out


class _Walker:
    """One document's walk: where it is (the key path), the variables in scope, what it found."""

    def __init__(self, path: str, lines: list[str] | None, budget: Budget, spans: list[Span], owner: str,
                 kube: bool, env: dict[str, str], barren: set[yaml.Node]) -> None:
        self.path, self.lines, self.budget, self.spans = path, lines, budget, spans
        self.owner, self.kube = owner, kube
        # the variables in scope, innermost last: merged only where a script is read (``script``)
        self.scopes: tuple[dict[str, str], ...] = (env,)
        self.found: list[LaunchCommand] = []
        # collections walked that held no launch: an alias or merge key using one again is not
        # walked again (charged once per use); one that held a launch is, under each path (its role)
        self.barren = barren
        self.envs: dict[yaml.Node, dict[str, str]] = {}

    def name(self, keys: list[str]) -> str:
        where = ".".join(keys).replace(".[", "[")
        return ", ".join(p for p in (self.owner, where) if p)

    def read(self, node: yaml.Node) -> bool:
        """Whether ``node`` is not yet read by a reader (no launch given starts inside it)."""
        first, last = node.start_mark.line + 1, node.end_mark.line + 1
        return not any(first <= a <= last for a, _b in self.spans)

    def walk(self, node: yaml.Node, keys: list[str], depth: int) -> None:
        self.budget.spend(node, depth)
        if node in self.barren:
            return
        if isinstance(node, yaml.ScalarNode):
            if isinstance(node.value, str) and node.tag.endswith(":str"):
                self.script(node, keys)
            return
        before = len(self.found)
        if isinstance(node, yaml.MappingNode):
            self.mapping(node, keys, depth)
        elif isinstance(node, yaml.SequenceNode) and not self.argv(node, keys):
            for n, item in enumerate(node.value):
                self.walk(item, [*keys, f"[{n}]"], depth + 1)
        if len(self.found) == before:
            self.barren.add(node)

    def mapping(self, node: yaml.MappingNode, keys: list[str], depth: int) -> None:
        saved = self.scopes
        own = {k.value for k, _v in node.value if isinstance(k, yaml.ScalarNode)}
        if any(k.tag == MERGE_TAG for k, _v in node.value):
            own |= {"env", "envs", "command", "args"}  # may come through the merge: looked up
        local = self.env_of(node, depth) if own & {"env", "envs"} else {}
        if local:
            self.scopes = (*saved, local)
        skip: set[str] = set()
        if own & {"command", "args"} and (mapping_get(node, "command") is not None or mapping_get(node, "args") is not None):
            skip = self.container(node, keys)
        for k, v in node.value:  # a `<<` merge source is walked as one node (once, however many merge it)
            if k.tag == MERGE_TAG:
                if not skip:
                    self.walk(v, keys, depth + 1)
                continue
            key = str(k.value) if isinstance(k, yaml.ScalarNode) else "?"
            if key not in skip:
                self.walk(v, [*keys, key], depth + 1)
        self.scopes = saved

    def env_of(self, node: yaml.MappingNode, depth: int) -> dict[str, str]:
        """The variables a mapping's ``env:``/``envs:`` set (a map or a list of {name, value}),
        read and charged once per env node of the file (an alias using it again costs its node)."""
        local: dict[str, str] = {}
        for key in ("envs", "env"):
            held = mapping_get(node, key)
            if held is None:
                continue
            if held not in self.envs:
                self.envs[held] = {**_env_map(held), **_env_list(held)}
                self.budget.spend(held, depth, len(self.envs[held]))
            local.update(self.envs[held])
        return local

    def container(self, node: yaml.MappingNode, keys: list[str]) -> set[str]:
        """A mapping with ``command``/``args``: read as a container; the keys it read."""
        if not self.read(node):
            return {"command", "args"}
        name = self.name(keys)
        if self.kube:  # the kubelet's $(VAR) from the container's env, as the Kubernetes reader does
            cmds = container_launches(node, self.path, name, self.budget, self.lines)
        else:
            words = argv_words(mapping_get(node, "command"), self.path, self.budget) + \
                argv_words(mapping_get(node, "args"), self.path, self.budget)
            k = find_launch(words)
            cmds = []
            if k is not None:
                c = LaunchCommand(self.path, words[k:], "kubernetes", words[0].loc, name, program=words[:k], append=None)
                args = mapping_get(node, "args")
                holder = args if isinstance(args, yaml.SequenceNode) and args.value else mapping_get(node, "command")
                c.append, c.append_why = list_append(holder, self.lines)
                cmds = [c]
        self.found += cmds
        return {"command", "args"} if cmds else set()

    def argv(self, node: yaml.SequenceNode, keys: list[str]) -> bool:
        """A list of strings whose program is an entry point: one exec-form launch."""
        items = node.value
        if len(items) < 2 or not all(isinstance(i, yaml.ScalarNode) for i in items) or not self.read(node):
            return False
        words = argv_words(node, self.path, self.budget)
        k = find_launch(words)
        if k is None:
            return False
        c = LaunchCommand(self.path, words[k:], "kubernetes", words[0].loc, self.name(keys), program=words[:k], append=None)
        c.append, c.append_why = list_append(node, self.lines)
        self.found.append(c)
        return True

    def script(self, node: yaml.ScalarNode, keys: list[str]) -> None:
        """A string a shell would run, naming an entry point."""
        if not mentions(node.value) or not any(ch.isspace() for ch in node.value) or not self.read(node):
            return
        env = {k: v for scope in self.scopes for k, v in scope.items()}
        self.budget.spend(node, 0, len(env))  # the scope this launch reads, charged where it is read
        self.found += script_launches(node, self.path, self.budget, self.lines, env, self.name(keys), "yaml-script")
