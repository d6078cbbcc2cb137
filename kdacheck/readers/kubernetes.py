"""Kubernetes workloads: each container's launch, named after its workload and role.

A container's ``command`` and ``args`` are joined as the kubelet joins them, ``$(VAR)``
substituted from its ``env:``; a ``sh -c`` script is read as shell with that env. Roles of
multi-pod workloads (LeaderWorkerSet, RoleBasedGroup, KubeRay) are named by ``ROLE_KEYS`` and
``ROLE_LISTS``; Argo's ``container:``, KServe's ``predictor.model`` and RayJob's ``entrypoint``
are read in place.
"""

from __future__ import annotations

import re

import yaml

from kdacheck.readers import bounds
from kdacheck.readers.base import LaunchCommand, Token
from kdacheck.readers.shell import find_launch
from kdacheck.readers.yamlfiles import (
    Budget,
    argv_words,
    list_append,
    mapping_get,
    memo,
    node_at,
    node_loc,
    pairs,
    script_launches,
    substitute,
    substituted,
)

_K8S_VAR = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


def container_env(container: yaml.Node) -> tuple[dict[str, str], set[str]]:
    """A container's ``env``: literal values, and the names set from elsewhere (``valueFrom``).
    Read once per env list per file (``env: *e`` in many containers is one list), each use
    charged to the file's budget, so many alias uses are refused by the budget, not slow."""
    env = mapping_get(container, "env")
    if not isinstance(env, yaml.SequenceNode):
        return {}, set()
    bounds.charge_nodes(1 + len(env.value), f"{node_at(env)}: a container's env")
    m = memo()
    key = ("kubernetes", env)
    if key not in m.envs:
        m.envs[key] = _k8s_env(env)
    read: tuple[dict[str, str], set[str]] = m.envs[key]
    return read


def _k8s_env(env: yaml.SequenceNode) -> tuple[dict[str, str], set[str]]:
    """The variables of an env list, each ``$(A)`` of an earlier entry substituted (bounded
    before it is built), and the names set from elsewhere."""
    values: dict[str, str] = {}
    opaque: set[str] = set()
    for item in env.value:
        name, value = mapping_get(item, "name"), mapping_get(item, "value")
        if not isinstance(name, yaml.ScalarNode):
            continue
        if isinstance(value, yaml.ScalarNode):
            what = f"{node_at(value)}: the kubelet's `$(VAR)` in env `{name.value[:100]}`"
            values[name.value] = substituted(str(value.value), _K8S_VAR, lambda m: _k8s_value(m, values), what)[0]
        else:
            opaque.add(name.value)
    return values, opaque


def _k8s_value(m: re.Match[str], values: dict[str, str]) -> str | None:
    """The kubelet's value for one ``$(VAR)`` (``$$`` is ``$``); None when not in the env."""
    return "$" if m.group(0) == "$$" else values.get(m.group(1))


def expand_k8s(words: list[Token], values: dict[str, str], opaque: set[str]) -> list[Token]:
    """``$(VAR)`` in command and args, as the kubelet expands them from the container's env
    (``$$`` is a literal ``$``; an undefined name stays as written, and is unknown here)."""

    def why(m: re.Match[str]) -> str:
        name = m.group(1)
        src = "set from a secret, a config map or a field (valueFrom)" if name in opaque else "not in the container's env"
        return f"`$({name})` is {src}"

    return substitute(words, _K8S_VAR, lambda m: _k8s_value(m, values), why, "the kubelet's `$(VAR)` in command or args")


def container_launches(container: yaml.Node, path: str, name: str, budget: Budget, lines: list[str] | None) -> list[LaunchCommand]:
    values, opaque = container_env(container)
    words = argv_words(mapping_get(container, "command"), path, budget) + argv_words(mapping_get(container, "args"), path, budget)
    words = expand_k8s(words, values, opaque)
    k = find_launch(words)
    image = mapping_get(container, "image")
    hint = None
    if isinstance(image, yaml.ScalarNode):
        from kdacheck.versions import image_version

        tagged = image_version(str(image.value))
        hint = (tagged, node_loc(path, image)) if tagged else None
    if k is not None:
        c = LaunchCommand(path, words[k:], "kubernetes", words[0].loc, name, program=words[:k], append=None)
        c.version_hint = hint
        args = mapping_get(container, "args")
        holder = args if isinstance(args, yaml.SequenceNode) and args.value else mapping_get(container, "command")
        c.append, c.append_why = list_append(holder, lines)
        return [c]
    # sh -c "python -m sglang.launch_server ...": the script is one string, read as shell with
    # the container's env (after the kubelet's $(VAR) expansion).
    for node in _string_nodes(container):
        if "sglang" in node.value and any(c.isspace() for c in node.value):
            cmds = script_launches(node, path, budget, lines, values, name, "kubernetes", _K8S_VAR,
                                   lambda m: _k8s_value(m, values))
            for c in cmds:
                c.version_hint = hint
            if cmds:
                return cmds
    return []


def _string_nodes(container: yaml.Node) -> list[yaml.ScalarNode]:
    out: list[yaml.ScalarNode] = []
    for key in ("command", "args"):
        node = mapping_get(container, key)
        if isinstance(node, yaml.SequenceNode):
            out += [n for n in node.value if isinstance(n, yaml.ScalarNode)]
        elif isinstance(node, yaml.ScalarNode):
            out.append(node)
    return out


# Keys whose pod templates are one role of a multi-pod workload: LeaderWorkerSet's
# `leaderWorkerTemplate.leaderTemplate`/`workerTemplate`, RoleBasedGroup's leader/worker template
# patches (v1alpha1 `leaderWorkerSet.patchLeaderTemplate`, v1alpha2
# `leaderWorkerPattern.leaderTemplatePatch`), KubeRay's `headGroupSpec` (RayCluster, and inside
# RayService `rayClusterConfig` and RayJob `rayClusterSpec`).
ROLE_KEYS = {"leaderTemplate": "leader", "workerTemplate": "worker", "patchLeaderTemplate": "leader patch",
             "patchWorkerTemplate": "worker patch", "leaderTemplatePatch": "leader patch",
             "workerTemplatePatch": "worker patch", "headGroupSpec": "head"}
# Lists whose items are named roles: RoleBasedGroup `spec.roles[].name`, KubeRay
# `workerGroupSpecs[].groupName`.
ROLE_LISTS = {"roles": ("name", "role"), "workerGroupSpecs": ("groupName", "worker group")}


def _label(owner: str, role: str, rest: str) -> str:
    return ", ".join(p for p in (owner, role, rest) if p)


def _walk_containers(node: yaml.Node, path: str, owner: str, budget: Budget, lines: list[str] | None, depth: int = 0,
                     role: str = "") -> list[LaunchCommand]:
    """Every container's launch, named ``OWNER[, ROLE], container NAME``: the role is the
    template or list item it sits in (ROLE_KEYS, ROLE_LISTS), so a leader, a worker, a prefill
    and a decode of one manifest are told apart."""
    budget.spend(node, depth)
    found: list[LaunchCommand] = []
    if isinstance(node, yaml.MappingNode):
        for k, v in pairs(node):
            key = k.value if isinstance(k, yaml.ScalarNode) else ""
            if key in ("containers", "initContainers") and isinstance(v, yaml.SequenceNode):
                for c in v.value:
                    budget.spend(c, depth + 2)
                    cname = mapping_get(c, "name")
                    label = _label(owner, role, f"container {cname.value}" if isinstance(cname, yaml.ScalarNode) else "")
                    found += container_launches(c, path, label, budget, lines)
            elif key in ("container", "model") and isinstance(v, yaml.MappingNode) and (
                    mapping_get(v, "command") is not None or mapping_get(v, "args") is not None):
                # Argo templates' `container:`, KServe's `predictor.model`: one container
                found += container_launches(v, path, _label(owner, role, key), budget, lines)
            elif key == "entrypoint" and isinstance(v, yaml.ScalarNode) and "sglang" in str(v.value):
                # KubeRay RayJob `spec.entrypoint`: a shell command run on the head
                from kdacheck.readers.shell import looks_like_shell_launch

                if looks_like_shell_launch(str(v.value)):
                    # run by Ray's job submission as a shell command: no kubelet $(VAR) expansion
                    found += script_launches(v, path, budget, lines, {}, _label(owner, role, "entrypoint"), "rayjob")
            elif key in ROLE_LISTS and isinstance(v, yaml.SequenceNode):
                name_key, what = ROLE_LISTS[key]
                for n, item in enumerate(v.value, 1):
                    name = mapping_get(item, name_key)
                    sub = f"{what} {name.value if isinstance(name, yaml.ScalarNode) and name.value else n}"
                    found += _walk_containers(item, path, owner, budget, lines, depth + 2, _label("", role, sub))
            else:
                sub = _label("", role, ROLE_KEYS[key]) if key in ROLE_KEYS else role
                found += _walk_containers(v, path, owner, budget, lines, depth + 1, sub)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            found += _walk_containers(item, path, owner, budget, lines, depth + 1, role)
    return found


def is_kubernetes(doc: yaml.Node) -> bool:
    return mapping_get(doc, "apiVersion") is not None and mapping_get(doc, "kind") is not None


def read_kubernetes(doc: yaml.Node, path: str, lines: list[str] | None = None) -> list[LaunchCommand]:
    kind = mapping_get(doc, "kind")
    meta = mapping_get(doc, "metadata")
    name = mapping_get(meta, "name") if meta is not None else None
    owner = f"{kind.value if isinstance(kind, yaml.ScalarNode) else '?'}/{name.value if isinstance(name, yaml.ScalarNode) else '?'}"
    return _walk_containers(doc, path, owner, Budget(path), lines)
