"""The kinds of file and document that carry launches, in one place.

A file is a notebook (``is_notebook``), a Dockerfile (``is_dockerfile``), YAML/JSON documents or
a shell script, decided by these cheap tests before the reader of its kind is imported (a YAML
lint never loads the notebook or Dockerfile reader). ``DOCUMENT_KINDS`` is the one table of
document kinds among a file's YAML/JSON documents: how each is recognised, read, and judged
worth linting when a folder walk finds it.

``DOCUMENT_KINDS`` is tried in order; the first kind that claims the documents reads them (the
finder, kdacheck/readers/finder.py, then reads by structure whatever the kind did not). A kind
whose documents hold no launch is either fine (a manifest of other workloads) or, where the
format exists to start one server, "not a launch configuration" (exit 2, naming the kind).
A new carrier with a shape of its own is one entry here and its reader module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

import yaml

from kdacheck.readers import carriers, compose, kubernetes
from kdacheck.readers.base import LaunchCommand


def is_notebook(path: str, text: str) -> bool:
    """A ``.ipynb`` by name, or JSON whose object carries ``nbformat`` (standard input)."""
    return path.lower().endswith(".ipynb") or (text.lstrip()[:1] == "{" and re.search(r'"nbformat"\s*:', text[:1 << 20]) is not None)


def is_dockerfile(path: str, text: str) -> bool:
    """A Dockerfile or Containerfile by name, or a text with ``FROM`` and ``CMD``/``ENTRYPOINT`` lines."""
    from kdacheck.discover import is_container_file_name

    if is_container_file_name(path.replace("\\", "/").rsplit("/", 1)[-1]):
        return True
    # [^\S\n]*: a line's own indentation (``\s*`` would rescan every blank line after each line start)
    return bool(re.search(r"(?m)^[^\S\n]*FROM\s+\S", text)) and bool(re.search(r"(?m)^[^\S\n]*(CMD|ENTRYPOINT)\s", text))


Reader = Callable[[list[yaml.Node], str, list[str], "dict[str, str] | None", bool], list[LaunchCommand]]


class DocumentKind(NamedTuple):
    name: str
    claims: Callable[[list[yaml.Node]], bool]  # whether a file's documents are of this kind
    read: Reader  # (documents, path, lines, env, allow_outside) -> launches
    relevant: Callable[[str], bool]  # found in a folder walk: worth linting (text)
    empty: str  # "" when a document of this kind may hold no launch; else what to call it when it does not


def _kubernetes(docs: list[yaml.Node], path: str, lines: list[str], env: dict[str, str] | None,
                allow_outside: bool) -> list[LaunchCommand]:
    return [c for d in docs if kubernetes.is_kubernetes(d) for c in kubernetes.read_kubernetes(d, path, lines)]


def _compose(docs: list[yaml.Node], path: str, lines: list[str], env: dict[str, str] | None,
             allow_outside: bool) -> list[LaunchCommand]:
    """The first document's services (Compose reads one document; a later one is not a service list)."""
    return compose.read_compose(docs[0], path, lines, env, allow_outside)


def _carrier(docs: list[yaml.Node], path: str, lines: list[str], env: dict[str, str] | None,
             allow_outside: bool) -> list[LaunchCommand]:
    return carriers.read(docs[0], path, lines, env) or []


def _names_sglang(text: str) -> bool:
    return "sglang" in text


def _never(text: str) -> bool:
    return False  # read when named; from a walk only when its script names an entry point (checked before)


def _carrier_kind(kind: str, relevant: Callable[[str], bool]) -> DocumentKind:
    return DocumentKind(kind, lambda docs: len(docs) == 1 and carriers.kind_of(docs[0]) == kind, _carrier,
                        relevant, f"{carriers.NAMES[kind]} that starts no SGLang server")


DOCUMENT_KINDS: tuple[DocumentKind, ...] = (
    DocumentKind("kubernetes", lambda docs: any(kubernetes.is_kubernetes(d) for d in docs), _kubernetes, _names_sglang, ""),
    DocumentKind("compose", lambda docs: any(compose.is_compose(d) for d in docs), _compose, _names_sglang, ""),
    _carrier_kind("recipe", _names_sglang),
    _carrier_kind("truss", _never),
    _carrier_kind("github", _never),
    _carrier_kind("skypilot", _never),
)


def kind_of(docs: list[yaml.Node]) -> DocumentKind | None:
    """The kind that claims a file's documents, or None (read by structure alone)."""
    return next((k for k in DOCUMENT_KINDS if k.claims(docs)), None)

