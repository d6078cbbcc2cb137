"""Whether a file found in a folder is a launch configuration worth linting.

Named files are always linted; files a folder walk finds are linted only when they plausibly
are SGLang launch configurations: a GitHub workflow or a Helm values file is skipped, not
linted into a pile of ARG001s; a Dockerfile whose ``CMD``/``ENTRYPOINT`` never names SGLang
(the image of some other program) is skipped too.
"""

from __future__ import annotations

import re

import yaml

from kdacheck.findings import InputError
from kdacheck.readers.carriers import plausible_config_keys
from kdacheck.suffixes import YAML_SUFFIXES

_TOP_KEY = re.compile(r"^([A-Za-z0-9_-]+)\s*:", re.M)


def relevant(path: str, text: str) -> bool:
    """Whether a file found in a folder is worth linting (named files always are)."""
    from kdacheck.readers import kinds, yamlfiles
    from kdacheck.readers.detect import is_helm_template
    from kdacheck.readers.shell import looks_like_shell_launch

    if is_helm_template(path, text):
        return False  # rendered by `helm template`, linted from its output
    if kinds.is_notebook(path, text):
        from kdacheck.readers import notebook

        return notebook.relevant(path, text)  # a notebook whose code cells name SGLang's launcher

    if kinds.is_dockerfile(path, text):
        from kdacheck.readers import dockerfile

        return dockerfile.starts_sglang(text)  # a build that never starts SGLang is not a launch
    if path.lower().endswith(".json"):
        return looks_like_shell_launch(text)  # a JSON document that names an SGLang entry point
    if not path.lower().endswith(YAML_SUFFIXES):
        return looks_like_shell_launch(text) or text.lstrip().startswith("--")
    if looks_like_shell_launch(text):
        return True  # names an SGLang entry point: read, or said unread (never skipped in silence)
    try:  # libyaml, after the size/depth/tag pre-pass: hostile files cost no more here
        docs = yamlfiles.compose_all(text, path)
    except InputError:
        # Broken YAML: report it only if it looks like it was meant for SGLang.
        return "sglang" in text or plausible_config_keys(_TOP_KEY.findall(text))
    if not docs:
        return False
    kind = kinds.kind_of(docs)
    if kind is not None:
        return kind.relevant(text)
    if len(docs) == 1 and isinstance(docs[0], yaml.MappingNode):
        keys = [k.value for k, _v in docs[0].value if isinstance(k, yaml.ScalarNode)]
        return plausible_config_keys(keys)
    return False


