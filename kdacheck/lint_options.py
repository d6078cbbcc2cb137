"""The options of ``kdacheck lint`` as plain data, for its fast start (``kdacheck.fastpath``).

Generated from ``cli.lint``'s Typer declarations: ``python -m kdacheck.fastpath > kdacheck/lint_options.py``.
tests/test_lint_imports.py fails when the two differ. Importing this module imports nothing.

Each row: (parameter name, option strings, kind, choices, environment variable, default).
Kinds: "arguments" (positional, any number), "argument", "str", "int", "strs"/"ints"
(repeatable), "choice"/"choices" (one of the choices; repeatable), "flag" (store true),
"flag-pair" (--x/--no-x), "count" (a flag counted: -q, -qq).
"""

from __future__ import annotations

Option = tuple[str, tuple[str, ...], str, tuple[str, ...], str | None, object]

OPTIONS: tuple[Option, ...] = (
    ('paths', (), 'arguments', (), None, None),
    ('cmd', ('--cmd',), 'str', (), None, None),
    ('model', ('--model',), 'str', (), 'KDACHECK_MODEL', None),
    ('gpu', ('--gpu',), 'str', (), 'KDACHECK_GPU', None),
    ('sglang_version', ('--sglang-version',), 'str', (), 'KDACHECK_SGLANG_VERSION', None),
    ('select', ('--select',), 'strs', (), None, None),
    ('ignore', ('--ignore',), 'strs', (), None, None),
    ('extend_select', ('--extend-select',), 'strs', (), None, None),
    ('failure_threshold', ('--failure-threshold',), 'choice', ('error', 'warning', 'info'), 'KDACHECK_FAILURE_THRESHOLD', None),
    ('output_format', ('--output-format',), 'choice', ('full', 'concise', 'json', 'sarif', 'github', 'junit', 'gitlab'), 'KDACHECK_OUTPUT_FORMAT', None),
    ('output_file', ('--output-file', '-o'), 'str', (), None, None),
    ('show_resolved', ('--show-resolved',), 'flag', (), None, False),
    ('exit_zero', ('--exit-zero',), 'flag', (), None, False),
    ('run_after', ('--run',), 'flag', (), None, False),
    ('env', ('--env',), 'strs', (), None, None),
    ('env_file', ('--env-file',), 'str', (), None, None),
    ('stdin_filename', ('--stdin-filename',), 'str', (), None, None),
    ('allow_outside', ('--allow-outside',), 'flag', (), None, False),
    ('only_launch_files', ('--only-launch-files',), 'flag', (), None, False),
    ('force_exclude', ('--force-exclude',), 'flag', (), None, False),
    ('deployment', ('--deployment',), 'flag', (), None, False),
    ('strict', ('--strict',), 'flag', (), None, False),
    ('sglang', ('--sglang',), 'flag', (), None, False),
    ('fix', ('--fix',), 'flag', (), None, False),
    ('unsafe_fixes', ('--unsafe-fixes',), 'flag', (), None, False),
    ('show_diff', ('--diff',), 'flag', (), None, False),
    ('quiet', ('--quiet', '-q'), 'count', (), None, 0),
    ('statistics', ('--statistics',), 'flag', (), None, False),
    ('show_settings', ('--show-settings',), 'flag', (), None, False),
    ('color', ('--color',), 'choice', ('auto', 'always', 'never'), 'KDACHECK_COLOR', None),
    ('offline', ('--offline',), 'flag', (), None, False),
    ('isolated', ('--isolated',), 'flag', (), None, False),
    ('per_file_ignores', ('--per-file-ignores',), 'strs', (), None, None),
    ('ignore_noqa', ('--ignore-noqa',), 'flag', (), None, False),
    ('add_noqa', ('--add-noqa',), 'flag', (), None, False),
    ('baseline', ('--baseline',), 'str', (), None, None),
    ('write_baseline', ('--write-baseline',), 'str', (), None, None),
)
