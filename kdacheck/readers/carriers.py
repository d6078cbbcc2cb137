"""YAML documents that carry an SGLang launch inside a larger document.

Each carrier is recognised by its own top-level shape and gives one launch per role, named
after the role, so a finding says which part of the document it is about:

- **srt-slurm benchmark recipes**: ``backend: {type: sglang, sglang_config: {prefill: {...},
  decode: {...}}}``; each role's mapping is read as SGLang's ``--config`` YAML (flags as keys),
  the recipe's own keys (``name``, ``slurm``, ``resources``, ...) never are.
- **Truss**: ``docker_server.start_command``, a shell line (often ``sh -c "..."``).
- **SkyPilot task YAML**: ``run:`` (with ``envs:`` as its variables).
- **GitHub Actions workflows**: each step's ``run:`` (with workflow, job and step ``env:``).

Scripts are read by the shell reader (kdacheck/readers/shell.py), placed inside the file.
"""

from __future__ import annotations

import functools
import re

import yaml

from kdacheck.readers.base import LaunchCommand, Token
from kdacheck.readers.yamlfiles import (
    _Budget,
    _loc,
    _mapping_get,
    _script_launches,
    config_tokens,
    pairs,
)

MAX_ROLES = 64  # roles in one recipe, jobs and steps in one workflow are bounded by the YAML budget


def kind_of(doc: yaml.Node) -> str | None:
    """Which carrier a document is ("recipe", "truss", "skypilot", "github"), or None."""
    if not isinstance(doc, yaml.MappingNode):
        return None
    backend = _mapping_get(doc, "backend")
    if isinstance(_mapping_get(backend, "sglang_config") if backend is not None else None, yaml.MappingNode):
        return "recipe"
    if isinstance(_mapping_get(doc, "docker_server"), yaml.MappingNode):
        return "truss"
    if isinstance(_mapping_get(doc, "jobs"), yaml.MappingNode) and (
            _mapping_get(doc, "on") is not None or _mapping_get(doc, "true") is not None):
        return "github"
    if isinstance(_mapping_get(doc, "run"), yaml.ScalarNode) and any(
            _mapping_get(doc, k) is not None for k in ("resources", "setup", "envs", "num_nodes", "workdir", "service")):
        return "skypilot"
    return None


NAMES = {"recipe": "an srt-slurm recipe", "truss": "a Truss config", "skypilot": "a SkyPilot task",
         "github": "a GitHub workflow"}


def read(doc: yaml.Node, path: str, lines: list[str] | None, env: dict[str, str] | None = None) -> list[LaunchCommand] | None:
    """The launches a carrier document holds (None: not a carrier)."""
    kind = kind_of(doc)
    budget = _Budget(path)
    if kind == "recipe":
        return _recipe(doc, path)
    if kind == "truss":
        node = _mapping_get(_mapping_get(doc, "docker_server") or doc, "start_command")
        return _script(node, path, budget, lines, dict(env or {}), "docker_server.start_command", kind)
    if kind == "skypilot":
        values = {**_env(_mapping_get(doc, "envs")), **(env or {})}
        return _script(_mapping_get(doc, "run"), path, budget, lines, values, "run", kind)
    if kind == "github":
        return _workflow(doc, path, budget, lines, env)
    return None


def _env(node: yaml.Node | None) -> dict[str, str]:
    """A mapping of plain scalar values (``env:``, ``envs:``) as shell variables."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {k.value: str(v.value)[:100_000] for k, v in pairs(node)[:10_000]
            if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode) and "${{" not in str(v.value)}


# A GitHub Actions expression naming an env variable: the runner substitutes it into the
# script before the shell runs it (docs "Contexts": env context; "Expressions").
_GH_ENV = re.compile(r"\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _script(node: yaml.Node | None, path: str, budget: _Budget, lines: list[str] | None, values: dict[str, str],
            name: str, kind: str) -> list[LaunchCommand]:
    if not isinstance(node, yaml.ScalarNode) or "sglang" not in node.value:
        return []
    if kind == "github":  # ${{ env.X }} known where env: sets X; other expressions stay unknown to the shell
        return _script_launches(node, path, budget, lines, values, name, kind, _GH_ENV, lambda m: values.get(m.group(1)))
    return _script_launches(node, path, budget, lines, values, name, kind)


def _recipe(doc: yaml.Node, path: str) -> list[LaunchCommand]:
    """One launch per role of ``backend.sglang_config``; ``model.path`` is the model when a
    role does not name one (srt-slurm mounts it and passes it)."""
    backend = _mapping_get(doc, "backend")
    roles = _mapping_get(backend, "sglang_config") if backend is not None else None
    assert isinstance(roles, yaml.MappingNode)
    model = _mapping_get(doc, "model")
    model_path = _mapping_get(model, "path") if isinstance(model, yaml.MappingNode) else None
    out: list[LaunchCommand] = []
    for k, v in pairs(roles)[:MAX_ROLES]:
        if not isinstance(k, yaml.ScalarNode) or not isinstance(v, yaml.MappingNode):
            continue
        tokens = config_tokens(v, path)
        if isinstance(model_path, yaml.ScalarNode) and not any(t.text in ("--model-path", "--model") for t in tokens):
            where = _loc(path, model_path)
            tokens = [Token("--model-path", where, "yaml", True), Token(str(model_path.value), where, "yaml", False), *tokens]
        out.append(LaunchCommand(path, tokens, "recipe", _loc(path, k), k.value))
    return out


def _workflow(doc: yaml.Node, path: str, budget: _Budget, lines: list[str] | None,
              env: dict[str, str] | None) -> list[LaunchCommand]:
    """Every step ``run:`` of every job that starts SGLang, named ``job ID, step NAME``."""
    jobs = _mapping_get(doc, "jobs")
    assert isinstance(jobs, yaml.MappingNode)
    top = _env(_mapping_get(doc, "env"))
    out: list[LaunchCommand] = []
    for jk, job in pairs(jobs)[:MAX_ROLES]:
        steps = _mapping_get(job, "steps")
        if not isinstance(jk, yaml.ScalarNode) or not isinstance(steps, yaml.SequenceNode):
            continue
        job_env = {**top, **_env(_mapping_get(job, "env"))}
        for n, step in enumerate(steps.value[:1_000], 1):
            sname = _mapping_get(step, "name")
            label = f"job {jk.value}, step {sname.value if isinstance(sname, yaml.ScalarNode) else n}"
            values = {**job_env, **_env(_mapping_get(step, "env")), **(env or {})}
            out += _script(_mapping_get(step, "run"), path, budget, lines, values, label, "github")
    return out


def not_a_launch_configuration(path: str, what: str) -> str:
    """The one message for a YAML that holds no launch kdacheck can read."""
    return f"{path}: not a launch configuration ({what}); nothing in it was checked"



@functools.cache
def _flag_names() -> tuple[frozenset[str], frozenset[str]]:
    """SGLang flag names without dashes, in dash and underscore spelling: (multi-word, one-word)."""
    from kdacheck import flags

    names: set[str] = set()
    for v in flags.KNOWN_VERSIONS:
        for opt in flags.table(v).by_option:
            if opt.startswith("--"):
                names.add(opt[2:])
                names.add(opt[2:].replace("-", "_"))
    multi = frozenset(n for n in names if "-" in n or "_" in n)
    return multi, frozenset(names - multi)


def plausible_config_keys(keys: list[str]) -> bool:
    """A mapping is plausibly an SGLang ``--config`` when a key is a multi-word SGLang flag
    (``model-path``, ``tp_size``), or when more than half its keys (two or more) are one-word flags
    (``model``, ``port``, ``host`` alone are too common elsewhere)."""
    multi, single = _flag_names()
    if any(k in multi for k in keys):
        return True
    return len(keys) >= 2 and 2 * sum(k in single for k in keys) > len(keys)


def config_like(doc: yaml.Node) -> bool:
    """Whether a named YAML document may be an SGLang ``--config``: a mapping that is plausibly
    one, or has at least one key that is an SGLang flag (its other keys are then ARG001s), or
    an empty one, or not a mapping at all (read_config then says a --config must be one).
    Anything else is "not a launch configuration", never read key by key."""
    if not isinstance(doc, yaml.MappingNode):
        return True  # read_config says what a --config must be
    keys = [k.value for k, _v in doc.value if isinstance(k, yaml.ScalarNode)]
    multi, single = _flag_names()
    # a one-word flag (`model`, `port`) counts only with a flag's value, not a section (`model: {name: ...}`)
    flat = [k.value for k, v in doc.value if isinstance(k, yaml.ScalarNode) and not isinstance(v, yaml.MappingNode)]
    return plausible_config_keys(keys) or any(k in multi for k in keys) or any(k in single for k in flat) or not keys
