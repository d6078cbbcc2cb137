"""Where a model's geometry comes from, in order: ``--model`` (a preset name, a folder or a
config.json), the launch's ``--model-path`` as a local folder (confined to the repository),
the Hugging Face cache, then the presets (``kdacheck.models``). Never a network call.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Any

from kdacheck import model_config
from kdacheck.findings import InputError
from kdacheck.models import SHORT_NAMES, Model, preset


def hf_cache_dirs() -> list[Path]:
    out = []
    if os.environ.get("HF_HUB_CACHE"):
        out.append(Path(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HF_HOME"):
        out.append(Path(os.environ["HF_HOME"]) / "hub")
    with contextlib.suppress(KeyError, RuntimeError):  # no HOME and no passwd entry (OpenShift-style UIDs)
        out.append(Path.home() / ".cache" / "huggingface" / "hub")
    return out


def find_local_config(model_path: str) -> Path | None:
    """``config.json`` for a model path: a local folder, or a snapshot in the HF cache."""
    if len(model_path) > 4096 or "\x00" in model_path:
        return None
    p = Path(model_path)
    try:
        # exists(), not is_file(): a FIFO or a link to /dev/zero named config.json is found, and
        # model_config.read_json refuses it by name ("must be a regular file"), never reads it
        if p.name.endswith(".json") and p.exists() and not p.is_dir():
            return p
        if (p / "config.json").exists():
            return p / "config.json"
        if "/" in model_path and not p.is_absolute():
            org_name = "models--" + model_path.strip("/").replace("/", "--")
            for cache in hf_cache_dirs():
                snaps = sorted((cache / org_name / "snapshots").glob("*/config.json"))[-1:]
                if snaps and snaps[0].exists():
                    return snaps[0]
    except OSError:
        return None
    return None


# A Hub repo id as huggingface_hub checks it before any download (``utils/_validators.py``
# ``validate_repo_id``, huggingface_hub 0.x-2.x): "name" or "namespace/name" (at most one "/"),
# each part 1-96 ASCII letters, digits, "_", "-" or ".", starting and ending with a letter,
# digit or "_" (the regex's word boundaries); neither "--" nor ".." anywhere; not ending in ".git".
_HUB_PART = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?")


def hub_id_problem(path: str) -> str | None:
    """Why huggingface_hub refuses ``path`` as a repo id (None: a valid id), for a model path
    that is no local path. A path that names a file system place (``/``, ``./``, ``../``,
    ``~``), a URI (``s3://``, SGLang fetches object stores itself) or a value with ``$`` (not
    known until the shell runs) is not judged: kdacheck cannot see the server's disks."""
    if not path or path.startswith(("/", ".", "~")) or "://" in path or "$" in path or "\\" in path:
        return None
    if path.count("/") > 1:
        return "a repo id is `name` or `namespace/name` (at most one `/`)"
    if not all(_HUB_PART.fullmatch(part) for part in path.split("/")):
        return ("a repo id uses letters, digits, `-`, `_` or `.`, 1-96 of them per part, "
                "neither starting nor ending with `-` or `.`")
    if "--" in path or ".." in path:
        return "a repo id cannot hold `--` or `..`"
    if path.endswith(".git"):
        return "a repo id cannot end in `.git`"
    return None


def launch_local_path(path: str, base_dir: str | None, root: str | None, flag: str = "--model-path") -> str:
    """A model folder a launch names, as kdacheck reads it: relative to the launch file's folder
    (else the repository root), refused with exit 2 when it lies outside the repository (``root``
    None: ``--allow-outside``). A name that is no local path (``org/name``) is returned as is."""
    from kdacheck.readers.detect import refuse_outside

    if len(path) > 4096 or "\x00" in path:
        return path
    candidates = [Path(path)] if os.path.isabs(path) else [Path(d) / path for d in (base_dir, root) if d]
    for target in candidates:
        try:
            exists = target.exists()
        except OSError:
            continue
        if exists:
            refuse_outside(target, root, f"{flag} {path[:200]}")
            return str(target)
    return path


def load_model(spec: str | None, model_path: str | None, version: str | None = None,
               where: tuple[str | None, str | None] | None = None) -> tuple[Model | None, str]:
    """The model geometry and a sentence saying where it came from.

    ``spec`` is the ``--model`` option (preset name, folder or config.json); else the launch's
    ``--model-path`` is looked up locally, else matched against the presets. ``where``:
    (the launch file's folder, the repository root or None) to confine a launch's local path.
    """
    for candidate, how in ((spec, "--model"), (model_path, "--model-path")):
        if not candidate:
            continue
        if how == "--model-path" and where is not None:
            candidate = launch_local_path(candidate, *where)
        cfg_path = find_local_config(candidate)
        if cfg_path is not None and how == "--model-path" and where is not None and os.path.lexists(candidate):
            from kdacheck import confine

            # a folder in the tree whose config.json is a link out of it
            confine.check(cfg_path, where[1], f"--model-path {candidate[:200]}: {cfg_path.name}")
        if cfg_path is not None:
            name = model_path or candidate
            return model_config.read(cfg_path, name, version), f"{how}: {cfg_path}"
        if how == "--model-path" and hub_id_problem(candidate):
            continue  # SGLang cannot load its config (MODEL002): never a preset's geometry
        found = preset(candidate)
        if found is not None:
            return found, f"{found.source}, matched by {how} {candidate}"
        if how == "--model":
            raise InputError(
                f"--model {candidate}: not a preset ({', '.join(SHORT_NAMES)}), a folder with config.json, or a config.json"
            )
    return None, "no model geometry (unknown model)"


def draft_block_size(draft_path: str | None, where: tuple[str | None, str | None] | None = None) -> tuple[int | None, str]:
    """DSpark's gamma from a local draft checkpoint, as SGLang 0.5.23 reads it
    (``speculative/dspark_config.py:295``: ``dspark_block_size``, else ``dflash_config.block_size``,
    else ``block_size``, ``dflash_utils.py:609-617``); (None, why) when there is none to read,
    as SGLang swallows an unreadable draft config (``speculative_hook.py:796-805``)."""
    if isinstance(draft_path, str) and where is not None:
        draft_path = launch_local_path(draft_path, *where, flag="--speculative-draft-model-path")
    path = find_local_config(draft_path) if isinstance(draft_path, str) else None
    if path is None:
        return None, "no local draft config.json"
    if where is not None and isinstance(draft_path, str) and os.path.lexists(draft_path):
        from kdacheck import confine

        confine.check(path, where[1], f"--speculative-draft-model-path {draft_path[:200]}: {path.name}")
    try:
        data = model_config.read_json(path)
    except InputError:
        return None, f"draft config {path} unreadable"
    raw = data.get("dflash_config")
    dflash: dict[str, Any] = raw if isinstance(raw, dict) else {}
    for field, value in (("dspark_block_size", data.get("dspark_block_size")), ("dflash_config.block_size", dflash.get("block_size")),
                         ("block_size", data.get("block_size"))):
        if value is not None:
            ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4096
            return (value, f"`{field}` of the draft config {path}") if ok else (None, f"`{field}` of {path} is not a block size")
    return None, f"the draft config {path} has no block size"
