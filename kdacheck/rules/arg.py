"""ARG: reading the launch arguments against the target version's flag table.

These problems are found while parsing (``kdacheck.args``), the way SGLang's argparse
parser meets them; each rule reports its share of them.
"""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import messages
from kdacheck.args import ArgKind
from kdacheck.findings import Severity
from kdacheck.messages import CONFIG_UNSUPPORTED_MESSAGE
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Check, Consequence, Hit, rule, unchecked

UNREAD = "ARG009"  # a launch with arguments kdacheck did not read: never a pass (lint.LintRun.exit_code)

_TABLES = "SGLang's argument parser, `srt/server_args.py` `ServerArgs.add_cli_args` (tables in `kdacheck/data/`)"


def reporter(kind: ArgKind) -> Check:
    """The check that reports the parser's problems of one kind (the kind → code table is the
    sequence of ``@rule(...)(reporter(kind))`` registrations below)."""

    def check(cfg: Resolved) -> Iterator[Hit]:
        for issue in cfg.parsed.issues:
            if issue.kind is kind:
                sev = Severity.parse(issue.severity) if issue.severity else None
                edit, fix = issue.edit, issue.fix
                if edit is not None and cfg.cmd.held and any(t.origin == "yaml" and t.loc == issue.loc for t in cfg.cmd.tokens):
                    edit, fix = None, f"{fix} (--fix cannot write it here: {cfg.cmd.held})" if fix else fix
                yield Hit(issue.message, fix, at=issue.loc, severity=sev, edits=(edit,) if edit else ())

    return check


rule(
    "ARG001", Severity.ERROR,
    consequence=Consequence.EXITS,
    name="flag-exists",
    summary="every flag exists in the target SGLang version",
    what="""
        A flag that the target SGLang version's parser does not know. When an older version
        had it, kdacheck names the last version that did and the flag that replaced it.
    """,
    why="SGLang exits at start with `error: unrecognized arguments`.",
    sglang_message="launch_server.py: error: unrecognized arguments: {args}",
    fix="Use the replacement kdacheck names, or remove the flag.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --mamba-scheduler-strategy auto   # SGLang 0.5.23",
    sources=(_TABLES, "Python argparse `parse_args`: unrecognized arguments"),
)(reporter(ArgKind.UNKNOWN_FLAG))


rule(
    "ARG002", Severity.ERROR,
    consequence=Consequence.EXITS,
    name="abbreviation-not-ambiguous",
    summary="an abbreviated flag matches exactly one flag",
    what="""
        SGLang's parser accepts unique prefixes of flags (argparse's `allow_abbrev`). A prefix
        that matches several flags is an error, e.g. `--speculative-draft` (nine flags in
        0.5.23) or `--cuda-graph-max-bs` (removed after 0.5.19; in 0.5.23 it is a prefix of
        `--cuda-graph-max-bs-decode` and `--cuda-graph-max-bs-prefill`).
    """,
    why="SGLang exits at start with argparse's `ambiguous option` error.",
    sglang_message="launch_server.py: error: ambiguous option: {option} could match {matches}",
    fix="Write the whole flag name.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --cuda-graph-max-bs 32   # SGLang 0.5.23",
    sources=(_TABLES, "Python argparse `_parse_optional`: ambiguous option"),
)(reporter(ArgKind.AMBIGUOUS_PREFIX))


rule(
    "ARG003", Severity.INFO,
    consequence=Consequence.REFUSES,
    name="full-flag-names",
    summary="abbreviated flags work only until a new flag shares the prefix",
    what="""
        A unique abbreviation (`--tp`, `--speculative-algo`, `--mem-fraction`,
        `--trust-remote`) is accepted today, but the next SGLang release that adds a flag with
        the same prefix turns it into an `ambiguous option` error (ARG002). A note, not a
        warning: SGLang's own documentation and cookbooks write `--tp`, it works in every
        release kdacheck knows, and the day a release makes it ambiguous, linting for that
        release reports ARG002, an error. `kdacheck lint --fix` writes the full names.
    """,
    why="Launch lines outlive SGLang versions; abbreviations break on upgrade.",
    fix="Write the full flag name kdacheck shows.",
    example="python3 -m sglang.launch_server --model moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --trust-remote",
    sources=(_TABLES,),
)(reporter(ArgKind.ABBREVIATION))


rule(
    "ARG004", Severity.ERROR,
    consequence=Consequence.EXITS,
    name="value-type-and-choice",
    summary="values have the flag's type and are among its choices",
    what="""
        Each value is converted with the flag's type (int, float, JSON, human-readable int)
        and checked against its choices, as argparse does; a flag that needs a value gets one,
        a switch gets none.
    """,
    why="SGLang exits at start with `argument --X: invalid int value` or `invalid choice`.",
    sglang_message="launch_server.py: error: argument {flag}: invalid {type} value: {value}",
    fix="Give a value of the right type, or one of the listed choices.",
    example="python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --speculative-num-steps three",
    sources=(_TABLES,),
)(reporter(ArgKind.BAD_VALUE))


rule(
    "ARG005", Severity.INFO,
    consequence=Consequence.RUNS_OTHER,
    name="no-deprecated-spelling",
    summary="deprecated spellings still accepted: use the current one",
    what="""
        A flag the target version still accepts through a deprecated action
        (`DeprecatedAliasStoreAction`, `DeprecatedStoreTrueAction`, ...), e.g.
        `--cuda-graph-max-bs` and `--mamba-scheduler-strategy` in 0.5.19.
    """,
    why="""
        The target version accepts the spelling and does what it says (a note, not a failure:
        SGLang's own documentation still writes `--enable-dp-attention`); it prints a
        deprecation warning and disappears in a later release (ARG001 then).
    """,
    fix="Write the current flag kdacheck names.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --cuda-graph-max-bs 32   # SGLang 0.5.19",
    sources=(_TABLES,),
)(reporter(ArgKind.DEPRECATED))


rule(
    "ARG006", Severity.ERROR,
    consequence=Consequence.EXITS,
    name="config-keys-use-dashes",
    summary="--config YAML keys need the dash spelling",
    what="""
        SGLang turns each key of a `--config` YAML into `--KEY` verbatim. A key written with
        underscores (`speculative_num_steps`) becomes the unknown flag
        `--speculative_num_steps`.
    """,
    why="SGLang exits with `unrecognized arguments` for the underscore key.",
    fix="Rename the key to its dash spelling (`speculative-num-steps`).",
    example="""
        # args.yaml
        model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct
        speculative_num_steps: 3
    """,
    sources=("0.5.23 `srt/server_args_config_parser.py` (ConfigArgumentMerger: keys become `--KEY`)",),
)(reporter(ArgKind.YAML_UNDERSCORE_KEY))


rule(
    "ARG007", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="json-flags-are-objects",
    summary="JSON-valued flags hold JSON objects with known keys",
    what="""
        `--hisparse-config` and `--model-loader-extra-config` take an inline JSON object;
        kdacheck parses it and checks the keys SGLang reads (`top_k`, `device_buffer_size`,
        `host_to_device_ratio`, `swap_in_block_size`, `algorithm`, `backend`,
        `min_sparse_prompt_len`, `page_size` for HiSparse). `--speculative-adaptive-config` is
        a path to a JSON file: when the file is at hand kdacheck reads it too.
    """,
    why="""
        SGLang fails at start on invalid JSON (`Failed to parse hisparse_config: ...`). An
        unknown HiSparse key is passed on silently to `sparse_extra_config`, so the setting you
        meant never applies: reported as a warning.
    """,
    fix="Quote a valid JSON object and use the key names kdacheck lists.",
    example="""python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --enable-hisparse --hisparse-config '{"topk": 2048}'""",
    sources=(
        "0.5.19–0.5.23 `srt/mem_cache/sparsity/factory.py` `parse_hisparse_config` (L115; unknown keys go to `sparse_extra_config`)",
        "0.5.23 `srt/arg_groups/fields/spec.py` L241-244 (`--speculative-adaptive-config` is a file path)",
        "0.5.23 `srt/configs/load_config.py` L137 (`model_loader_extra_config` parsed with `orjson.loads`)",
    ),
)(reporter(ArgKind.BAD_JSON))


rule(
    "ARG008", Severity.WARNING,
    consequence=Consequence.RUNS_OTHER,
    name="flag-given-once",
    summary="a flag given twice: say which value applies",
    what="""
        A flag given twice in one command, twice in a YAML file, or in both the `--config`
        YAML and the command line. argparse keeps the last value; the command line overrides
        the `--config` file.
    """,
    why="Two values for one setting means someone believes the other one applies.",
    fix="Keep one of them.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --tp-size 8",
    sources=(_TABLES, "0.5.23 `srt/server_args_config_parser.py` (command line after the config's arguments)"),
)(reporter(ArgKind.REPEATED))


def _unread(cfg: Resolved) -> Iterator[Hit]:
    """One "could not be checked" per place the reader could not read (``LaunchCommand.unread``);
    the rules that ran saw the launch without those arguments, so the run counts it as a rule
    resting on a value not known statically (``--strict`` fails on it)."""
    for u in cfg.cmd.unread[:100]:
        if "ARG009" not in cfg.unknown_checks:
            cfg.unknown_checks.append("ARG009")
        hit = unchecked(f"not read: {u.what}; SGLang gets arguments here that kdacheck did not see")
        yield Hit(hit.message, "write the arguments in the launch, or give the variable with `--env NAME=VALUE`",
                  at=u.loc, severity=hit.severity)


rule(
    "ARG009", Severity.INFO,
    consequence=Consequence.REFUSES,
    name="launch-read",
    summary="every argument of the launch was read",
    what="""
        A launch whose arguments kdacheck could not read: an expansion it does not follow
        where a flag would stand (`$EXTRA_ARGS`, `"${ARGS[@]}"` of an array the file does not
        set, a `$(...)`, a Kubernetes `$(VAR)` set from a secret), a program with no
        arguments after it at all, a `--config` in a ConfigMap that is not in the file or
        its folder, a field of a structured recipe kdacheck does not map to flags, or a
        file that names an SGLang entry point (or carries SGLang flags) in which no launch
        could be read at all. The other rules saw the launch without them, so the launch
        is "not checked", never "starts", and the run exits 2 (a launch kdacheck did not read
        never passes) unless ARG009 is suppressed there with a reason or ignored.
    """,
    why="The flags SGLang gets there are unknown here: any rule might fail on them at start.",
    fix="Write the arguments in the launch, or give the variable with `--env NAME=VALUE` (`--env-file`).",
    example='python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct "${EXTRA_ARGS[@]}"',
    sources=("0.5.23 `srt/server_args.py` `prepare_server_args`: SGLang parses every argument it is given; "
             "bash(1) \"Arrays\" and \"Parameter Expansion\" for what the shell passes",),
)(_unread)


rule(
    "ARG010", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="config-keys-the-merger-writes",
    summary="--config YAML keys name flags SGLang's config merger can write as arguments",
    what="""
        SGLang's `--config` merger writes each YAML key as command-line arguments, and only
        knows how for `store_true` flags and flags taking one value (0.5.19-0.5.22: argparse's
        `store` and `store_true` classes only). A key of any other flag (27 in 0.5.23: the
        `BooleanOptionalAction` pairs such as `enable-tf32-matmul` / `no-enable-tf32-matmul`,
        the deprecated `enable-dp-attention` and `disable-cuda-graph`, `lora-paths`) is
        refused whatever its value, `false` included. Up to 0.5.22 the table is keyed by the
        flag's `dest`, so a deprecated alias sharing a dest makes the current key refused too
        (0.5.19: `mamba-radix-cache-strategy`). NVIDIA Dynamo's SGLang worker reads its
        `--config` through the same merger. The table per version is data:
        `kdacheck/data/config_merger-<version>.json`, read from the wheel by
        `benchmarks/sglang_diff/config_merger.py`.
    """,
    why="SGLang stops before parsing its arguments with a ValueError naming the key and the action class.",
    sglang_message=CONFIG_UNSUPPORTED_MESSAGE,
    fix="Take the key out of the YAML and give the flag on the command line (where argparse reads it); a `false` deprecated switch can just go.",
    example="""
        # args.yaml
        model-path: meta-llama/Meta-Llama-3-8B-Instruct
        enable-dp-attention: false
    """,
    sources=(
        "0.5.23 `srt/utils/server_args_config_parser.py` L34-66 `ConfigArgumentMerger.__init__` (`unsupported_actions`), "
        "L169-173 `_convert_config_to_args`; 0.5.19-0.5.22 L26-43, L146-150 (keyed by dest; store and store_true only)",
        "0.5.23 `srt/arg_groups/argparse_actions.py`: SGLang's own action classes (bases: argparse.Action)",
        _TABLES,
    ),
)(reporter(ArgKind.CONFIG_UNSUPPORTED))


rule(
    "ARG016", Severity.WARNING,
    consequence=Consequence.SILENTLY_OTHER,
    name="config-file-as-its-own-word",
    summary="`--config FILE`, two words: SGLang never reads `--config=FILE`",
    what="""
        SGLang merges a `--config` YAML into its arguments only when the word `--config` itself
        is on the command line (`"--config" in argv`). `--config=FILE` (or an abbreviation such
        as `--conf FILE`) goes to argparse as its plain `--config` string option: stored, and the
        file never opened. The server starts with none of the file's keys; kdacheck checks the
        launch as SGLang runs it, without them.
    """,
    why="Every setting in the file (model, parallelism, speculative decoding) is silently dropped.",
    fix="Write `--config FILE` as two words.",
    example="python -m sglang.launch_server --config=sglang.yaml",
    sources=("0.5.23 `srt/server_args.py` L683-689 `prepare_server_args` and L400-404 (the `--config` option); "
             "0.5.19 L4265, 0.5.21 L594: the same test",),
)(reporter(ArgKind.CONFIG_NOT_MERGED))
@rule(
    "ARG011", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="config-file-the-merger-reads",
    summary="one --config, naming a .yaml/.yml file whose root is a mapping",
    what="""
        SGLang's `--config` merger runs before argparse and refuses, in this order: a second
        `--config` word, a `--config` with no file after it, a file name whose suffix is not
        `.yaml` or `.yml` (a JSON file included, whatever it holds), and a YAML file whose
        root is not a mapping of flag names to values (a list, a scalar). kdacheck reads the
        file inside the tree; the name checks need no file. A `--config=FILE` word is not the
        merger's: argparse takes it.
    """,
    why="SGLang stops before parsing its arguments with a ValueError.",
    sglang_message="\n".join((messages.CONFIG_MULTIPLE, messages.CONFIG_NO_FILE, messages.CONFIG_NOT_YAML, messages.CONFIG_NOT_A_MAPPING)),
    fix="Give one `--config` naming a `.yaml` file that maps flag names to values.",
    example="kdacheck lint examples/errors/ARG011-config-json.sh",
    sources=(
        "0.5.23 `srt/utils/server_args_config_parser.py` L74-173 `ConfigArgumentMerger`: `_extract_config_file_path` "
        "L108-122, `_parse_yaml_config` L124-153, `_validate_yaml_file` L155-162 (0.5.19 L85-139: the same checks)",
        "kdacheck/readers/detect.py `merger_refusal`, `expand_config` (LaunchCommand.config_refused)",
    ),
)
def arg011(cfg: Resolved) -> Iterator[Hit]:
    refused = cfg.cmd.config_refused
    if refused is not None:
        message, at = refused
        yield Hit(message, "give one `--config FILE.yaml` (a mapping of flag names to values), or the flags themselves", at=at)
