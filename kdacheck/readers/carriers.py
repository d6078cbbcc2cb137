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
from collections.abc import Callable, Sequence
from typing import TypeVar

import yaml

from kdacheck.findings import InputError
from kdacheck.readers import bounds
from kdacheck.readers.base import LaunchCommand, Token
from kdacheck.readers.yamlfiles import (
    Budget,
    config_tokens,
    mapping_get,
    memo,
    node_at,
    node_loc,
    ordinal,
    pairs,
    script_launches,
)

MAX_ROLES = 64  # roles in one srt-slurm recipe (prefill, decode, aggregated: a handful in practice)
MAX_JOBS = 256  # jobs in one GitHub workflow
MAX_STEPS = 1_000  # steps in one job


def kind_of(doc: yaml.Node) -> str | None:
    """Which carrier a document is ("recipe", "truss", "skypilot", "github"), or None."""
    if not isinstance(doc, yaml.MappingNode):
        return None
    backend = mapping_get(doc, "backend")
    if isinstance(mapping_get(backend, "sglang_config") if backend is not None else None, yaml.MappingNode):
        return "recipe"
    if isinstance(mapping_get(doc, "docker_server"), yaml.MappingNode):
        return "truss"
    if isinstance(mapping_get(doc, "jobs"), yaml.MappingNode) and (
            mapping_get(doc, "on") is not None or mapping_get(doc, "true") is not None):
        return "github"
    if isinstance(mapping_get(doc, "run"), yaml.ScalarNode) and any(
            mapping_get(doc, k) is not None for k in ("resources", "setup", "envs", "num_nodes", "workdir", "service")):
        return "skypilot"
    return None


NAMES = {"recipe": "an srt-slurm recipe", "truss": "a Truss config", "skypilot": "a SkyPilot task",
         "github": "a GitHub workflow"}


def read(doc: yaml.Node, path: str, lines: list[str] | None, env: dict[str, str] | None = None) -> list[LaunchCommand] | None:
    """The launches a carrier document holds (None: not a carrier)."""
    kind = kind_of(doc)
    budget = Budget(path)
    if kind == "recipe":
        return _recipe(doc, path)
    if kind == "truss":
        node = mapping_get(mapping_get(doc, "docker_server") or doc, "start_command")
        return _script(node, path, budget, lines, dict(env or {}), "docker_server.start_command", kind)
    if kind == "skypilot":
        values = {**_env(mapping_get(doc, "envs")), **(env or {})}
        return _script(mapping_get(doc, "run"), path, budget, lines, values, "run", kind)
    if kind == "github":
        return _workflow(doc, path, budget, lines, env)
    return None


def _env(node: yaml.Node | None) -> dict[str, str]:
    """A mapping of plain scalar values (``env:``, ``envs:``) as shell variables, whole (each
    reader bounds what it builds from them). Read once per node per file (``env: *e`` on many
    steps is one node), each use charged to the file's budget."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    done = pairs(node)
    bounds.charge_nodes(1 + len(done), f"{node_at(node)}: an env map")
    m = memo()
    key = ("env", node)
    if key not in m.envs:
        m.envs[key] = {k.value: str(v.value) for k, v in done
                       if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode) and "${{" not in str(v.value)}
    read: dict[str, str] = m.envs[key]
    return read


Item = TypeVar("Item")


def _within(items: Sequence[Item], cap: int, noun: str, where: str, name_of: Callable[[Item], tuple[yaml.Node, str]]) -> Sequence[Item]:
    """``items``, or exit 2 at the first one past ``cap``, naming it, the cap and what was not
    read: a launch past a cap is never dropped silently."""
    if len(items) <= cap:
        return items
    node, name = name_of(items[cap])
    name = name if len(name) <= 100 else name[:100] + "…"
    raise InputError(f"{node_at(node)}: the {ordinal(cap + 1)} {noun} `{name}`: over {cap:,} {noun}s in one {where}; "
                     f"{noun}s past it were not read")


def _key_name(pair: tuple[yaml.Node, yaml.Node]) -> tuple[yaml.Node, str]:
    return pair[0], str(pair[0].value) if isinstance(pair[0], yaml.ScalarNode) else "?"


# A GitHub Actions expression naming an env variable: the runner substitutes it into the
# script before the shell runs it (docs "Contexts": env context; "Expressions").
_GH_ENV = re.compile(r"\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def _script(node: yaml.Node | None, path: str, budget: Budget, lines: list[str] | None, values: dict[str, str],
            name: str, kind: str) -> list[LaunchCommand]:
    if not isinstance(node, yaml.ScalarNode) or "sglang" not in node.value:
        return []
    if kind == "github":  # ${{ env.X }} known where env: sets X; other expressions stay unknown to the shell
        return script_launches(node, path, budget, lines, values, name, kind, _GH_ENV, lambda m: values.get(m.group(1)))
    return script_launches(node, path, budget, lines, values, name, kind)


def _recipe(doc: yaml.Node, path: str) -> list[LaunchCommand]:
    """One launch per role of ``backend.sglang_config``; ``model.path`` is the model when a
    role does not name one (srt-slurm mounts it and passes it)."""
    backend = mapping_get(doc, "backend")
    roles = mapping_get(backend, "sglang_config") if backend is not None else None
    assert isinstance(roles, yaml.MappingNode)
    model = mapping_get(doc, "model")
    model_path = mapping_get(model, "path") if isinstance(model, yaml.MappingNode) else None
    out: list[LaunchCommand] = []
    for k, v in _within(pairs(roles), MAX_ROLES, "role", "recipe", _key_name):
        if not isinstance(k, yaml.ScalarNode) or not isinstance(v, yaml.MappingNode):
            continue
        tokens = config_tokens(v, path)
        if isinstance(model_path, yaml.ScalarNode) and not any(t.text in ("--model-path", "--model") for t in tokens):
            where = node_loc(path, model_path)
            tokens = [Token("--model-path", where, "yaml", True), Token(str(model_path.value), where, "yaml", False), *tokens]
        cmd = LaunchCommand(path, tokens, "recipe", node_loc(path, k), k.value, append=None,
                            append_why="a role of an srt-slurm recipe is a mapping: --fix does not write into it")
        _ci_blocks(doc, path, cmd)
        out.append(cmd)
    return out


# SGLang's own CI Slurm recipes (sgl-project/sglang scripts/ci/slurm/recipes/, read by
# scripts/ci/slurm/launch_mi355x.sh, commit 0116d4fa8ff85bbb477c4cfc4c713091f0a345b0): beside
# `backend.sglang_config`, a `runtime:` block the launcher turns into flags of both roles, an
# `mtp:` block (EAGLE speculative decoding: `--speculative-algorithm ALGO --speculative-num-steps
# N --speculative-eagle-topk K --speculative-num-draft-tokens D`, and a draft model path), and
# `model.server_args`, words appended to both roles' arguments.
RUNTIME_FLAGS = {"mem_fraction_static": "--mem-fraction-static", "page_size": "--page-size",
                 "max_running_requests": "--max-running-requests", "max_total_tokens": "--max-total-tokens",
                 "chunked_prefill_size": "--chunked-prefill-size", "swa_full_tokens_ratio": "--swa-full-tokens-ratio",
                 "attention_backend": "--attention-backend"}
ROLE_RUNTIME = {"prefill_attention_backend": ("prefill", "--attention-backend"),
                "decode_attention_backend": ("decode", "--attention-backend")}
RUNTIME_PLUMBING = frozenset({"image", "ib_devices", "prefill_port", "decode_port", "prefill_bootstrap_port",
                              "decode_bootstrap_port", "lb_port", "rocm700a", "dist_socket_ifname"})  # the launcher's, not SGLang's
MTP_FLAGS = {"algorithm": "--speculative-algorithm", "num_steps": "--speculative-num-steps",
             "eagle_topk": "--speculative-eagle-topk", "num_draft_tokens": "--speculative-num-draft-tokens",
             "draft_model_path": "--speculative-draft-model-path"}
MTP_DEFAULTS = {"algorithm": "EAGLE", "num_steps": "3", "eagle_topk": "1", "num_draft_tokens": "4"}


def _flag(flag: str, value: yaml.Node) -> list[Token]:
    where = node_loc(value.start_mark.name, value)
    return [Token(flag, where, "yaml", True), Token(str(value.value), where, "yaml", False)]


def _ci_blocks(doc: yaml.Node, path: str, cmd: LaunchCommand) -> None:
    """The flags a CI recipe's `runtime:`, `mtp:` and `model.server_args` give one role, added to
    ``cmd``; a field kdacheck does not map is named unread (ARG009), never dropped in silence."""
    from kdacheck.readers.base import Unread

    runtime = mapping_get(doc, "runtime")
    for k, v in pairs(runtime) if isinstance(runtime, yaml.MappingNode) else []:
        key = str(k.value)
        if key in RUNTIME_FLAGS and isinstance(v, yaml.ScalarNode):
            cmd.tokens += _flag(RUNTIME_FLAGS[key], v)
        elif key in ROLE_RUNTIME and isinstance(v, yaml.ScalarNode):
            if ROLE_RUNTIME[key][0] == cmd.name:
                cmd.tokens += _flag(ROLE_RUNTIME[key][1], v)
        elif key == "image" and isinstance(v, yaml.ScalarNode):
            from kdacheck.versions import image_version

            tagged = image_version(str(v.value))
            cmd.version_hint = (tagged, node_loc(path, v)) if tagged else None
        elif key not in RUNTIME_PLUMBING:
            cmd.unread.append(Unread(node_loc(path, k), f"`runtime.{key}`: a launcher setting kdacheck does not map to SGLang flags"))
    mtp = mapping_get(doc, "mtp")
    enabled = mapping_get(mtp, "enabled") if isinstance(mtp, yaml.MappingNode) else None
    if isinstance(mtp, yaml.MappingNode) and isinstance(enabled, yaml.ScalarNode) and str(enabled.value).lower() == "true":
        for key, flag in MTP_FLAGS.items():
            node = mapping_get(mtp, key)
            if isinstance(node, yaml.ScalarNode):
                cmd.tokens += _flag(flag, node)
            elif key in MTP_DEFAULTS:  # the launcher's default
                cmd.tokens += _flag(flag, yaml.ScalarNode("tag:yaml.org,2002:str", MTP_DEFAULTS[key], enabled.start_mark, enabled.end_mark))
        for k, _v in pairs(mtp):
            if str(k.value) not in MTP_FLAGS and str(k.value) != "enabled":
                cmd.unread.append(Unread(node_loc(path, k), f"`mtp.{k.value}`: a field kdacheck does not map to SGLang flags"))
    model = mapping_get(doc, "model")
    if runtime is not None and not any(t.text in ("--model-path", "--model") for t in cmd.tokens):
        # the launcher passes `--model-path "$MODEL_PATH"` (its environment, not the recipe): unknown here
        where = node_loc(path, model if model is not None else runtime)
        cmd.tokens = [Token("--model-path", where, "yaml", True),
                      Token("$MODEL_PATH", where, "yaml", False, "`$MODEL_PATH` is set by the recipe's launcher, not in "
                            "the recipe (give the model with --model)"), *cmd.tokens]
        cmd.notes.append(f"{where}: the model: the launcher passes `--model-path $MODEL_PATH` from its environment, "
                         "not the recipe: its value is unknown here (give the model with --model)")
    extra = mapping_get(model, "server_args") if isinstance(model, yaml.MappingNode) else None
    if isinstance(extra, yaml.SequenceNode):
        cmd.tokens += [Token(str(n.value), node_loc(path, n)) for n in extra.value if isinstance(n, yaml.ScalarNode)]
    elif extra is not None:
        cmd.unread.append(Unread(node_loc(path, extra), "`model.server_args` is not a list of words"))
    cmd.notes += [f"{u}: not read, so not checked" for u in cmd.unread]


def _workflow(doc: yaml.Node, path: str, budget: Budget, lines: list[str] | None,
              env: dict[str, str] | None) -> list[LaunchCommand]:
    """Every step ``run:`` of every job that starts SGLang, named ``job ID, step NAME``."""
    jobs = mapping_get(doc, "jobs")
    assert isinstance(jobs, yaml.MappingNode)
    top = _env(mapping_get(doc, "env"))
    out: list[LaunchCommand] = []
    for jk, job in _within(pairs(jobs), MAX_JOBS, "job", "workflow", _key_name):
        steps = mapping_get(job, "steps")
        if not isinstance(jk, yaml.ScalarNode) or not isinstance(steps, yaml.SequenceNode):
            continue
        bounds.charge_nodes(len(top), f"{node_at(job)}: the env of job {jk.value[:100]}")  # copied below
        job_env = {**top, **_env(mapping_get(job, "env"))}
        for n, step in enumerate(_within(steps.value, MAX_STEPS, "step", f"job `{jk.value[:100]}`", _step_name), 1):
            sname = mapping_get(step, "name")
            label = f"job {jk.value}, step {sname.value if isinstance(sname, yaml.ScalarNode) else n}"
            step_env = _env(mapping_get(step, "env"))
            bounds.charge_nodes(len(job_env), f"{node_at(step)}: the env of {label}")  # copied below
            values = {**job_env, **step_env, **(env or {})}
            out += _script(mapping_get(step, "run"), path, budget, lines, values, label, "github")
    return out


def _step_name(step: yaml.Node) -> tuple[yaml.Node, str]:
    name = mapping_get(step, "name")
    return step, str(name.value) if isinstance(name, yaml.ScalarNode) else "(no name)"


def not_a_launch_configuration(path: str, what: str) -> str:
    """The one message for a YAML that holds no launch kdacheck can read."""
    return f"{path}: not a launch configuration ({what}); nothing in it was checked"



@functools.cache
def flag_names() -> tuple[frozenset[str], frozenset[str]]:
    """SGLang flag names without dashes, in dash and underscore spelling: (multi-word, one-word)."""
    from kdacheck import flags

    names: set[str] = set()
    for opt in flags.option_names():
        if opt.startswith("--"):
            names.add(opt[2:])
            names.add(opt[2:].replace("-", "_"))
    multi = frozenset(n for n in names if "-" in n or "_" in n)
    return multi, frozenset(names - multi)


def plausible_config_keys(keys: list[str]) -> bool:
    """A mapping is plausibly an SGLang ``--config`` when a key is a multi-word SGLang flag
    (``model-path``, ``tp_size``), or when more than half its keys (two or more) are one-word flags
    (``model``, ``port``, ``host`` alone are too common elsewhere)."""
    multi, single = flag_names()
    if any(k in multi for k in keys):
        return True
    return len(keys) >= 2 and 2 * sum(k in single for k in keys) > len(keys)


def config_like(doc: yaml.Node) -> bool:
    """Whether a named YAML document may be an SGLang ``--config``: a mapping whose keys are
    mostly SGLang's (more than half are SGLang flags in either spelling, or keys spelled as flags
    beside one, or at least a third are multi-word flags or near misses of one, which ARG001 then
    names), or an empty one, or not a mapping at all (read_config then says a --config must be one). Anything else, a deployment descriptor of another tool, is "not a
    launch configuration", never read key by key into a pile of ARG001s."""
    if not isinstance(doc, yaml.MappingNode):
        return True  # read_config says what a --config must be
    keys = [str(k.value) for k, _v in doc.value if isinstance(k, yaml.ScalarNode)]
    if not keys:
        return True
    multi, single = flag_names()
    # a one-word flag (`model`, `port`) counts only with a flag's value, not a section (`model: {name: ...}`)
    flat = {str(k.value) for k, v in doc.value if isinstance(k, yaml.ScalarNode) and not isinstance(v, yaml.MappingNode)}
    strong = sum(k in multi for k in keys)  # multi-word flags: `model-path`, `tp_size`
    if 3 * strong < len(keys) and len(keys) <= MAX_NEAR_MISS_KEYS:
        import difflib

        names = sorted(multi)
        strong += sum(k not in multi and k not in single and bool(difflib.get_close_matches(k, names, 1, 0.85)) for k in keys)
    # beside a multi-word flag, an unknown key spelled as a command-line flag is (`tp-sizee`)
    dashed = sum("-" in k and k not in multi for k in keys) if strong else 0
    ours = strong + dashed + sum(k in single and k in flat for k in keys)
    return 2 * ours > len(keys) or 3 * strong >= len(keys)


MAX_NEAR_MISS_KEYS = 64  # keys looked at for near misses of SGLang flags (a --config has a few dozen)
