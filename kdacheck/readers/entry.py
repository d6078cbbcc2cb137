"""The programs that start an SGLang server: one table, each entry saying whose parser reads its flags.

A launch is found by its program, whatever carries it (a shell line, a container's ``command``
and ``args``, a list anywhere in a YAML or JSON document): the words up to and including the
program are the launch's ``program``, the rest its arguments. Every entry here reads its flags
with SGLang's own parser (``ServerArgs.add_cli_args``) and config merger; a wrapper adds flags
of its own, which are its, not SGLang's: they are taken out of the arguments, named in a note,
and never reported as unknown SGLang flags (ARG001).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from kdacheck.readers.base import LaunchCommand, Token


@dataclass(frozen=True)
class EntryPoint:
    """One program that starts an SGLang server.

    ``modules``: run as ``python -m MODULE`` (or as the module's file); ``cli``: a command and its
    sub-command (``sglang serve``). ``parser``: whose argument parser reads the flags after it.
    ``own``: the program's own flags (name → values it takes: 0 a switch, 1 a value, -1 values up to
    the next flag); ``own_prefix``: a prefix every own flag has (the router's ``--router-``)."""

    name: str
    modules: tuple[str, ...] = ()
    cli: tuple[str, str] | None = None
    parser: str = "SGLang's `ServerArgs.add_cli_args` and `ConfigArgumentMerger`"
    own: dict[str, int] = field(default_factory=dict)
    own_prefix: str = ""
    source: str = ""


def _switches(*names: str) -> dict[str, int]:
    """Boolean flags with their ``--no-`` forms (Dynamo's ``add_negatable_bool_argument``)."""
    out: dict[str, int] = {}
    for n in names:
        out[n] = 0
        out["--no-" + n[2:]] = 0
    return out


# NVIDIA Dynamo's SGLang worker: `python3 -m dynamo.sglang` parses SGLang's flags with SGLang's
# own parser and config merger, beside its own groups (ai-dynamo/dynamo
# components/src/dynamo/common/configuration/groups/runtime_args.py `DynamoRuntimeArgGroup` and
# components/src/dynamo/sglang/backend_args.py `DynamoSGLangArgGroup`, commit
# 02ae17cce37049e29399bb9fab260c55b68c46e5; older releases' `--migration-limit`, `--store-kv`,
# `--dyn-endpoint-types`, `--component` from components/src/dynamo/sglang/args.py).
DYNAMO_OWN: dict[str, int] = {
    **{f: 1 for f in (
        "--namespace", "--endpoint", "--kv-state-endpoint", "--discovery-backend", "--request-plane",
        "--response-plane", "--event-plane", "--dyn-tool-call-parser", "--dyn-reasoning-parser",
        "--dyn-default-thinking-mode", "--dyn-structural-tag-scope", "--dyn-structural-tag-schema",
        "--custom-jinja-template", "--endpoint-types", "--dyn-endpoint-types", "--dump-config-to",
        "--multimodal-embedding-cache-capacity-gb", "--media-output-fs-url", "--media-output-http-url",
        "--health-check-payload", "--engine-request-limit", "--tcp-tls-cert-path", "--tcp-tls-key-path",
        "--tcp-tls-ca-cert-path", "--tcp-tls-server-name", "--tcp-tls-handshake-timeout",
        "--tcp-tls-client-cert-path", "--tcp-tls-client-key-path", "--tcp-tls-client-ca-cert-path",
        "--nats-tls-ca-cert-path", "--nats-tls-client-cert-path", "--nats-tls-client-key-path",
        "--disagg-config", "--disagg-config-key", "--afd-attention-ratio", "--afd-ffn-endpoint",
        "--afd-microbatch-size", "--afd-sync-timeout-ms", "--migration-limit", "--store-kv", "--component")},
    **{f: -1 for f in ("--connector", "--output-modalities")},
    "--dyn-structural-tag": -1,  # nargs="?"
    **_switches("--fpm-trace", "--exclude-tools-when-tool-choice-none", "--dyn-enable-structural-tag",
                "--multimodal-embedding-cache-publisher", "--tcp-tls-insecure", "--nats-tls-insecure",
                "--use-sglang-tokenizer", "--multimodal-processor", "--multimodal-encode-worker",
                "--multimodal-worker", "--embedding-worker", "--image-diffusion-worker",
                "--video-generation-worker", "--enable-local-indexer"),
}

ENTRY_POINTS: tuple[EntryPoint, ...] = (
    EntryPoint("sglang.launch_server", modules=("sglang.launch_server", "sglang.launch_server.py"),
               source="sgl-project/sglang python/sglang/launch_server.py"),
    EntryPoint("sglang serve", cli=("sglang", "serve"), source="sgl-project/sglang python/sglang/cli/serve.py"),
    # The router's launcher starts SGLang servers and a router in one process: SGLang's flags,
    # and the router's, each spelled `--router-...` (sgl-project/sglang sgl-router
    # py_src/sglang_router/launch_server.py: `ServerArgs.add_cli_args` then
    # `RouterArgs.add_cli_args(parser, use_router_prefix=True)`).
    EntryPoint("sglang_router.launch_server", modules=("sglang_router.launch_server",), own_prefix="--router-",
               source="sgl-project/sglang sgl-router/py_src/sglang_router/launch_server.py"),
    EntryPoint("dynamo.sglang", modules=("dynamo.sglang", "dynamo.sglang.worker", "dynamo.sglang.decode_worker"),
               own=DYNAMO_OWN, source="ai-dynamo/dynamo components/src/dynamo/sglang/args.py"),
)

_BY_MODULE = {m: e for e in ENTRY_POINTS for m in e.modules}
_BY_CLI = {e.cli: e for e in ENTRY_POINTS if e.cli}
# What a text must hold to name one of them (a cheap test before anything is read).
MENTION = re.compile(r"sglang\.launch_server|sglang/launch_server|sglang serve|sglang_router\.launch_server|dynamo\.sglang\b")


_wrapper_lookup: Callable[[str], EntryPoint | None] | None = None


def set_wrapper_lookup(fn: Callable[[str], EntryPoint | None] | None) -> None:
    """How ``python -m MODULE`` of a module not in the table is looked up as a wrapper passing
    SGLang's flags through (``readers/wrappers.py`` sets it per file; None: not looked up)."""
    global _wrapper_lookup
    _wrapper_lookup = fn


def match(words: list[Token]) -> tuple[int, EntryPoint] | None:
    """(index of the first argument, the entry point) of one simple command, or None.

    The program may stand behind ``env``, ``exec``, ``nohup``, ``numactl``, ``docker run IMAGE``,
    ``torchrun``, ``srun``, ``uv run`` and the like: anything before it is skipped."""
    for j, w in enumerate(words):
        text = w.text
        nxt = words[j + 1].text if j + 1 < len(words) else None
        if text == "-m" and nxt in _BY_MODULE:
            return j + 2, _BY_MODULE[nxt]
        if text == "-m" and nxt is not None and _wrapper_lookup is not None and j > 0 and "python" in words[j - 1].text:
            wrapper = _wrapper_lookup(nxt)  # a module of the tree that hands SGLang the command line
            if wrapper is not None:
                return j + 2, wrapper
        is_script = text.endswith("sglang/launch_server.py") or (text in _BY_MODULE and text.startswith("sglang."))
        if is_script and (j == 0 or words[j - 1].text != "-m"):
            return j + 1, _BY_MODULE["sglang.launch_server"]
        if (text == "sglang" or text.endswith("/sglang")) and nxt == "serve":
            return j + 2, _BY_CLI["sglang", "serve"]
    return None


def find_launch(words: list[Token]) -> int | None:
    """Index of the first SGLang argument in one simple command, or None if not a launch."""
    m = match(words)
    return None if m is None else m[0]


def mentions(text: str) -> bool:
    """Whether a text names an SGLang entry point (it may hold a launch)."""
    return MENTION.search(text) is not None


def of(cmd: LaunchCommand) -> EntryPoint | None:
    """The entry point that starts ``cmd`` (None: a ``--config`` file, bare arguments)."""
    m = match(cmd.program) if cmd.program else None
    return None if m is None else m[1]


def take_own_flags(cmd: LaunchCommand) -> LaunchCommand:
    """``cmd`` without the flags that are its program's own, not SGLang's (Dynamo's
    ``--discovery-backend``, the router's ``--router-policy``), named in a note."""
    e = of(cmd)
    if e is not None and e.name.startswith("wrapper "):
        cmd.notes.append(f"{cmd.loc}: `python -m {e.modules[0]}` is a wrapper module ({e.source}): its flags are read as SGLang's")
    if e is None or not (e.own or e.own_prefix):
        return cmd
    kept: list[Token] = []
    taken: list[str] = []
    toks = cmd.tokens
    i = 0
    while i < len(toks):
        t = toks[i]
        name = t.text.split("=", 1)[0]
        n = e.own.get(name)
        if n is None and e.own_prefix and name.startswith(e.own_prefix):
            n = -1  # the router's flags: a switch or values up to the next flag
        if n is None or t.origin != "cli" or not name.startswith("--"):
            kept.append(t)
            i += 1
            continue
        taken.append(name)
        i += 1
        if "=" in t.text:
            continue
        while i < len(toks) and n != 0 and not toks[i].text.startswith("--"):
            i += 1
            if n == 1:
                break
    if taken:
        names = ", ".join(f"`{n}`" for n in dict.fromkeys(taken))
        cmd.notes.append(f"{cmd.loc}: {names}: {e.name}'s own flag{'s' if len(set(taken)) > 1 else ''}, not SGLang's "
                         f"(read by {e.name}, not checked here)")
        cmd.tokens = kept
    return cmd
