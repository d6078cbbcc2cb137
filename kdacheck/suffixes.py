"""Launch files by suffix: the one home of the suffixes kdacheck reads (plain data, importing nothing).

A folder walk considers a file by its suffix (``discover``; container builds by name), the
readers tell a YAML file by it (``readers/detect``, ``readers/relevance``, ``fix``), and the
pre-commit hook's ``files`` pattern (``.pre-commit-hooks.yaml``, held by ``tests/test_precommit.py``)
passes ``HOOK_SUFFIXES``.
"""

from __future__ import annotations

YAML_SUFFIXES = (".yaml", ".yml")
SHELL_SUFFIXES = (".sh", ".bash")
# the suffixes a commit hook passes: the launch files a deployment repository holds
HOOK_SUFFIXES = (*YAML_SUFFIXES, ".json", *SHELL_SUFFIXES, ".ipynb")
# what a folder walk considers (relevance decides after reading): the hook's, and the text
# files a launch line is kept in (.txt, .cmd), read only when they hold one
LINT_SUFFIXES = (*HOOK_SUFFIXES, ".txt", ".cmd")
