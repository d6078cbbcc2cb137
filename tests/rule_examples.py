"""Each rule's documented ``example=``, linted as the documentation says to lint it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from kdacheck import versions
from kdacheck.results import FileResult
from kdacheck.rules import Rule
from tests.helpers import lint

ROOT = Path(__file__).resolve().parent.parent


def lint_example(r: Rule) -> FileResult:
    """A plain launch line (``# SGLang X`` picks the version), a ``kdacheck lint [--gpu G]
    [--cmd '...' | FILE]`` line, or a ``--config`` YAML whose first line names it."""
    text = r.example or ""
    m = re.search(r"#\s*SGLang (\d+\.\d+\.\d+)", text)
    version = m.group(1) if m else versions.NEWEST
    text = re.sub(r"\s+#\s*SGLang \d+\.\d+\.\d+\s*$", "", text.strip())
    if text.startswith("kdacheck lint"):
        words = shlex.split(text)[2:]
        gpu = words[words.index("--gpu") + 1] if "--gpu" in words else None
        if "--cmd" in words:
            return lint(words[words.index("--cmd") + 1], version, gpu)
        path = ROOT / words[-1]
        return lint(path.read_text(encoding="utf-8"), version, gpu, path=str(path))
    if text.startswith("#") and ".yaml" in text.splitlines()[0]:
        return lint(text, version, path="args.yaml")
    return lint(text, version)
