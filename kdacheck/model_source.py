"""Where a model's config.json comes from, in SGLang's order (transformers' ``AutoConfig``
through huggingface_hub), then kdacheck's own fall-backs:

1. ``--model`` (a preset name, a folder or a config.json) or the launch's ``--model-path`` as a
   local folder (confined to the repository): ``origin`` ``folder``;
2. the Hugging Face cache exactly as huggingface_hub lays it out (:func:`hub_cache_dir`,
   :func:`cached_config`): ``hf-cache``;
3. the bundled index of public config.json files (``kdacheck/data/model_index.json``,
   :mod:`kdacheck.model_index`): ``index``, with its source repository and commit;
4. the Hub itself, config.json only, in memory (:func:`fetch_hub_config`): ``hub``; never
   with ``HF_HUB_OFFLINE`` or ``lint --offline``. Within one run (:func:`hub_run`: a
   ``kdacheck lint``) each model id is resolved once, failures included, through one HTTP
   client (one TLS context), and all fetches share :data:`HUB_RUN_BUDGET` seconds of network
   time; an endpoint that did not answer is not asked again in that run;
5. else no geometry: the family guessed from the name (``models.guess_family``), said so.

Nothing is written anywhere; huggingface_hub and urllib are imported only for a fetch.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from kdacheck import model_config, model_index
from kdacheck.findings import InputError
from kdacheck.models import Model

CACHE_MAX_BYTES = model_config.MAX_CONFIG_BYTES
HUB_MAX_BYTES = 2 << 20  # a config.json from the Hub: 2 MiB at most
HUB_TIMEOUT = 5.0  # seconds each connect or read may wait
HUB_DEADLINE = 15.0  # seconds the whole fetch may take (a server trickling bytes)
HUB_RUN_BUDGET = 10.0  # seconds of network time all of one run's fetches may take together
_TRUE = {"1", "ON", "YES", "TRUE"}  # huggingface_hub constants.py ENV_VARS_TRUE_VALUES


def _expand(value: str) -> str:
    return os.path.expandvars(os.path.expanduser(value))


def hub_cache_dir() -> Path | None:
    """The one cache folder huggingface_hub uses (1.x ``constants.py`` L158-183): ``HF_HUB_CACHE``,
    else the legacy ``HUGGINGFACE_HUB_CACHE``, else ``HF_HOME/hub`` with ``HF_HOME`` defaulting
    to ``$XDG_CACHE_HOME/huggingface``, else ``~/.cache/huggingface``. None: no home to find it."""
    env = os.environ
    try:
        home = _expand(env.get("HF_HOME") or os.path.join(env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                                                           "huggingface"))
        return Path(_expand(env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE") or os.path.join(home, "hub")))
    except (KeyError, RuntimeError):  # no HOME and no passwd entry (OpenShift-style UIDs)
        return None


_REVISION = re.compile(r"[A-Za-z0-9._-]{1,128}")


def cached_config(repo_id: str) -> tuple[bytes, Path] | str | None:
    """``config.json`` of ``repo_id`` at ``main`` in the Hugging Face cache, as huggingface_hub's
    ``try_to_load_from_cache`` finds it (1.x ``file_download.py`` L1572-1613): the folder
    ``models--{org}--{name}``, ``refs/main`` naming the commit, ``snapshots/<commit>/config.json``
    (normally a link into ``blobs/``). Read through :mod:`kdacheck.confine` with the repo's folder
    as the root: a link out of it, a device or a file over the bound is refused, never followed.
    Returns (bytes, path), a sentence why it was not read, or None (not in the cache)."""
    cache = hub_cache_dir()
    if cache is None or hub_id_problem(repo_id) or "/" not in repo_id or repo_id.startswith(("/", ".", "~")):
        return None
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    try:
        if repo.is_symlink():  # huggingface_hub makes real folders; a link would carry the confinement's root with it
            return f"Hugging Face cache {repo.name}: a link to {os.path.realpath(repo)[:200]}, not a folder: not read"
        if not repo.is_dir():
            return None
        ref = repo / "refs" / "main"
        if not ref.is_file():
            return None
        from kdacheck import confine

        root = os.path.realpath(repo)
        revision = (confine.read(ref, root, 256, f"Hugging Face cache {repo.name}/refs/main") or b"").decode("ascii", "replace")
        # huggingface_hub compares the ref's text with the snapshot names as it is (no strip)
        if not _REVISION.fullmatch(revision) or revision in (".", "..") or revision not in os.listdir(repo / "snapshots"):
            return None
        path = repo / "snapshots" / revision / "config.json"
        if not os.path.lexists(path):
            return None
        data = confine.read(path, root, CACHE_MAX_BYTES, f"Hugging Face cache {repo.name}/snapshots/{revision[:12]}/config.json")
    except confine.Refused as e:
        return str(e)
    except OSError as e:
        return f"Hugging Face cache {repo.name}: cannot read: {e.strerror or e}"
    return (data or b""), path


def find_local_config(model_path: str) -> Path | None:
    """``config.json`` for a local model path: the file itself or a folder holding one."""
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


def is_hub_id(path: str) -> bool:
    """A valid Hub repo id that names no place on disk (``org/name``)."""
    return "/" in path and not path.startswith(("/", ".", "~")) and "://" not in path and "$" not in path \
        and "\\" not in path and hub_id_problem(path) is None


def offline() -> bool:
    """``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) as huggingface_hub reads it."""
    return (os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or "").upper() in _TRUE


def hub_endpoint() -> str:
    """``HF_ENDPOINT`` (huggingface_hub ``constants.py`` L69), without its trailing ``/``."""
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")


def hub_url(repo_id: str) -> str:
    """``{HF_ENDPOINT}/{repo}/resolve/main/config.json``: huggingface_hub's ``hf_hub_url`` when
    importable, else the same template (``HUGGINGFACE_CO_URL_TEMPLATE``)."""
    endpoint = hub_endpoint()
    try:
        from huggingface_hub import hf_hub_url

        return str(hf_hub_url(repo_id, "config.json", revision="main", endpoint=endpoint))
    except Exception:  # not installed, or an API that changed: the documented template
        return f"{endpoint}/{repo_id}/resolve/main/config.json"


class _NoRedirect(Exception):
    pass


class HubRun:
    """One run's Hub look-ups: each model id resolved once (an answer or a failure), one
    opener (one TLS context) for every fetch, and one budget of network seconds. An endpoint
    that did not answer (a timeout, a refused connection) is not asked again in the run."""

    def __init__(self) -> None:
        self.budget = HUB_RUN_BUDGET
        self.used = 0.0
        self.resolved: dict[tuple[str, str | None, bool], tuple[Model | None, str] | InputError] = {}
        self.down: str | None = None  # why the endpoint is not asked again
        self.skipped = 0  # look-ups not fetched once the budget was spent or the endpoint down
        self.requests = 0
        self._opener: Any = None

    def opener(self) -> Any:
        if self._opener is None:
            self._opener = _opener()
        return self._opener

    def left(self) -> float:
        return self.budget - self.used

    def note(self) -> str | None:
        """What a user must hear when look-ups were skipped, else None."""
        if not self.skipped:
            return None
        why = self.down or f"the run's network budget ({self.budget:g} s) is spent"
        return (f"{self.skipped} Hub look-up{'s' if self.skipped != 1 else ''} not fetched: {why}; "
                "lint with --offline where the model configs are in the tree or the Hugging Face cache")


_RUN: HubRun | None = None


@contextlib.contextmanager
def hub_run() -> Iterator[HubRun]:
    """The scope of one run's Hub look-ups (outside one, each look-up stands alone)."""
    global _RUN
    outer, _RUN = _RUN, HubRun()
    try:
        yield _RUN
    finally:
        _RUN = outer


def _opener() -> Any:
    """The HTTP client: redirects only to http(s) and at most 3, proxies from the environment,
    one TLS context for every HTTPS connection it makes."""
    import ssl
    import urllib.parse
    import urllib.request

    class Redirects(urllib.request.HTTPRedirectHandler):
        max_redirections = 3

        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
            target = urllib.parse.urlsplit(urllib.parse.urljoin(req.full_url, newurl))
            if target.scheme not in ("http", "https"):
                raise _NoRedirect(f"a redirect to {target.scheme or '?'}:")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    https = urllib.request.HTTPSHandler(context=ssl.create_default_context())
    return urllib.request.build_opener(Redirects, urllib.request.ProxyHandler(), https)


def fetch_hub_config(repo_id: str) -> tuple[bytes | None, str]:
    """config.json of ``repo_id`` from the Hub, in memory: (bytes, the URL) or (None, why not).

    Bounded: at most :data:`HUB_MAX_BYTES` read (a longer body is refused, whatever its
    Content-Length says), :data:`HUB_TIMEOUT` per socket wait, :data:`HUB_DEADLINE` for the
    whole fetch, and within a run (:func:`hub_run`) what is left of its budget. A token only
    from ``HF_TOKEN`` (or ``HUGGING_FACE_HUB_TOKEN``) and only to the configured endpoint: it
    is never sent after a redirect. Never raises."""
    import time

    run = _RUN or HubRun()
    if run.down is not None or run.left() <= 0:
        run.skipped += 1
        return None, run.down or f"the run's network budget ({run.budget:g} s) is spent"
    start = time.monotonic()
    try:
        raw, where, unanswered = _fetch(repo_id, run, min(HUB_TIMEOUT, run.left()), min(HUB_DEADLINE, run.left()))
    finally:
        run.used += time.monotonic() - start
    if unanswered:
        run.down = f"the Hub ({_netloc()}) did not answer earlier in this run"
    return raw, where


def _netloc() -> str:
    import urllib.parse

    return urllib.parse.urlsplit(hub_endpoint()).netloc[:100]


def _fetch(repo_id: str, run: HubRun, timeout: float, deadline: float) -> tuple[bytes | None, str, bool]:
    """One request: (bytes or None, the URL or why not, whether the endpoint did not answer)."""
    import socket
    import time
    import urllib.error
    import urllib.parse
    import urllib.request

    url = hub_url(repo_id)
    endpoint = urllib.parse.urlsplit(hub_endpoint())
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or (parts.scheme, parts.netloc) != (endpoint.scheme, endpoint.netloc):
        return None, f"the Hub URL {url[:200]} is not on HF_ENDPOINT", False
    request = urllib.request.Request(url, headers={"User-Agent": "kdacheck (config.json only)", "Accept": "application/json"})
    token = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    if token and len(token) < 1024 and token.isprintable():
        request.add_unredirected_header("Authorization", f"Bearer {token}")  # never carried to a redirect's target

    start = time.monotonic()
    where = f"the Hub ({parts.netloc[:100]}) for {repo_id}"
    run.requests += 1
    try:
        with run.opener().open(request, timeout=timeout) as response:
            length = response.headers.get("Content-Length")
            if length is not None and length.strip().isdigit() and int(length) > HUB_MAX_BYTES:
                return None, f"{where}: config.json of {int(length):,} bytes is over the {HUB_MAX_BYTES:,}-byte limit: not read", False
            chunks: list[bytes] = []
            got = 0
            while True:
                if time.monotonic() - start > deadline:
                    return None, f"{where}: no complete answer within {deadline:g} s: not read", True
                # read1: what has arrived (read() would wait for the whole chunk while a server trickles bytes)
                chunk = response.read1(min(65536, HUB_MAX_BYTES + 1 - got))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
                if got > HUB_MAX_BYTES:
                    return None, f"{where}: config.json over the {HUB_MAX_BYTES:,}-byte limit: not read", False
    except urllib.error.HTTPError as e:
        hint = {401: " (a gated or private repo: set HF_TOKEN)", 403: " (access refused: set HF_TOKEN)", 404: " (no such repo or file)"}
        return None, f"{where}: HTTP {e.code}{hint.get(e.code, '')}", False
    except _NoRedirect as e:
        return None, f"{where}: {e} refused", False
    except (OSError, ValueError) as e:  # URLError, timeouts, resets, a malformed answer
        reason = getattr(e, "reason", None) or e
        unanswered = isinstance(reason, (socket.timeout, TimeoutError, ConnectionError, socket.gaierror))
        return None, f"{where}: {str(reason)[:160] or type(e).__name__}", unanswered
    except Exception as e:  # http.client's own errors (IncompleteRead, BadStatusLine, ...)
        return None, f"{where}: {type(e).__name__}", False
    return b"".join(chunks), url, False


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


@functools.cache
def _entry_model(repo: str, version: str | None) -> Model:
    entry = model_index.entry(repo)
    source = f"bundled index: {repo} ({entry['source']})"
    m = model_config.read(Path(f"<bundled index: {repo}>"), repo, version, dict(entry["config"]), "index", source)
    return replace(m, params=float(entry["params"]), weight_bytes_per_param=float(entry["weight_bytes_per_param"]))


def preset(name: str, version: str | None = None, loose: bool = True) -> Model | None:
    """The bundled index's model for ``name`` (:func:`kdacheck.model_index.match`), read by the
    family readers as any config.json, or None."""
    found = model_index.match(name, loose)
    if found is None:
        return None
    m = _entry_model(found.repo, version)
    if not found.note:
        return m
    return replace(m, name=name, weight_bytes_per_param=found.weight_bytes_per_param, source=f"{m.source}; {found.note}")


def short_names() -> dict[str, str]:
    """``--model`` short names (``kimi-linear``) and the ids they stand for."""
    return model_index.short_names()


def _remote(name: str, version: str | None, hub: bool) -> tuple[Model | None, str]:
    """:func:`_resolve`, once per model id in a run (:func:`hub_run`), a refusal included."""
    if _RUN is None:
        return _resolve(name, version, hub)
    key = (name, version, hub)
    if key not in _RUN.resolved:
        try:
            _RUN.resolved[key] = _resolve(name, version, hub)
        except InputError as e:
            _RUN.resolved[key] = e
    found = _RUN.resolved[key]
    if isinstance(found, InputError):
        raise found
    return found


def _resolve(name: str, version: str | None, hub: bool) -> tuple[Model | None, str]:
    """A Hub id's config from the cache, the bundled index or the Hub, in that order; (None,
    what was tried) when none holds it."""
    tried = []
    cached = cached_config(name)
    if isinstance(cached, tuple):
        data, path = cached
        parsed = model_config.parse_bytes(data, str(path))
        return model_config.read(path, name, version, parsed, "hf-cache", f"Hugging Face cache: {path}"), f"Hugging Face cache: {path}"
    tried.append(f"Hugging Face cache: {cached}" if isinstance(cached, str) else "not in the Hugging Face cache")
    found = preset(name, version, loose=False)
    if found is not None:
        return found, found.source
    tried.append("not in the bundled index")
    if not hub:
        tried.append("the Hub not asked (--offline)")
    elif offline():
        tried.append("the Hub not asked (HF_HUB_OFFLINE)")
    else:
        raw, where = fetch_hub_config(name)
        answer: dict[str, Any] | None = None
        if raw is not None:
            try:
                answer = model_config.parse_bytes(raw, where)
            except InputError as e:  # not a config at all (a proxy's page): said, never the run's failure
                tried.append(f"the Hub's answer is not a config.json: {str(e)[:200]}")
        if answer is not None:
            # a config the readers refuse is refused as a local one is (SGLang reads the same file)
            return model_config.read(Path("config.json"), name, version, answer, "hub", f"the Hub: {where}"), f"the Hub: {where}"
        if raw is None:
            tried.append(f"not fetched: {where}")
    return None, "; ".join(tried)


def load_model(spec: str | None, model_path: str | None, version: str | None = None,
               where: tuple[str | None, str | None] | None = None, hub: bool = True) -> tuple[Model | None, str]:
    """The model geometry and a sentence saying where it came from (or what was tried).

    ``spec`` is the ``--model`` option (preset name, folder or config.json); else the launch's
    ``--model-path``: a local folder, else (a Hub id) the cache, the bundled index, the Hub
    (``hub``: False with ``lint --offline``). ``where``: (the launch file's folder, the
    repository root or None) to confine a launch's local path.
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
            return model_config.read(cfg_path, name, version, origin="folder" if how == "--model-path" else ""), f"{how}: {cfg_path}"
        if how == "--model":
            found = preset(candidate, version)
            if found is not None:
                return found, f"{found.source}, matched by {how} {candidate}"
            raise InputError(
                f"--model {candidate}: not a preset ({', '.join(short_names())}), a folder with config.json, or a config.json"
            )
        if hub_id_problem(candidate):
            continue  # SGLang cannot load its config (MODEL002): never a preset's geometry
        if is_hub_id(candidate):
            return _remote(candidate, version, hub)
        found = preset(candidate, version)  # a path not on this machine: the bundled index, matched by its name
        if found is not None:
            return found, f"{found.source}, matched by {how} {candidate[:200]}"
        return None, "not a local folder here, and not a Hub repo id"
    return None, "no model geometry (unknown model)"


def draft_config(draft_path: str | None, where: tuple[str | None, str | None] | None = None) -> tuple[dict[str, Any] | None, Path | None, str]:
    """The draft checkpoint's config.json, read as SGLang finds it (a local folder inside the tree,
    else the Hugging Face cache; never the network): (config, path, why) or (None, None, why)."""
    if isinstance(draft_path, str) and where is not None:
        draft_path = launch_local_path(draft_path, *where, flag="--speculative-draft-model-path")
    path = find_local_config(draft_path) if isinstance(draft_path, str) else None
    data: dict[str, Any] | None = None
    if path is None and isinstance(draft_path, str) and is_hub_id(draft_path):
        cached = cached_config(draft_path)
        if isinstance(cached, tuple):
            try:
                data, path = model_config.parse_bytes(cached[0], str(cached[1])), cached[1]
            except InputError:
                return None, None, f"draft config {cached[1]} unreadable"
    if path is None:
        return None, None, "no local draft config.json"
    if data is None:
        if where is not None and isinstance(draft_path, str) and os.path.lexists(draft_path):
            from kdacheck import confine

            confine.check(path, where[1], f"--speculative-draft-model-path {draft_path[:200]}: {path.name}")
        try:
            data = model_config.read_json(path)
        except InputError:
            return None, None, f"draft config {path} unreadable"
    return data, path, ""


def draft_block_size(draft_path: str | None, where: tuple[str | None, str | None] | None = None) -> tuple[int | None, str]:
    """DSpark's gamma from a local draft checkpoint, as SGLang 0.5.23 reads it
    (``speculative/dspark_config.py:295``: ``dspark_block_size``, else ``dflash_config.block_size``,
    else ``block_size``, ``dflash_utils.py:609-617``); (None, why) when there is none to read,
    as SGLang swallows an unreadable draft config (``speculative_hook.py:796-805``)."""
    data, path, why = draft_config(draft_path, where)
    if data is None:
        return None, why
    raw = data.get("dflash_config")
    dflash: dict[str, Any] = raw if isinstance(raw, dict) else {}
    for field, value in (("dspark_block_size", data.get("dspark_block_size")), ("dflash_config.block_size", dflash.get("block_size")),
                         ("block_size", data.get("block_size"))):
        if value is not None:
            ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4096
            return (value, f"`{field}` of the draft config {path}") if ok else (None, f"`{field}` of {path} is not a block size")
    return None, f"the draft config {path} has no block size"


_DTYPE_BYTES = {"float32": 4, "float": 4, "bfloat16": 2, "float16": 2, "half": 2, "float8_e4m3fn": 1}


def _int(d: dict[str, Any], key: str, default: int = 0) -> int:
    v = d.get(key, default)
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1 << 24 else default


def draft_weight_bytes(data: dict[str, Any], path: object) -> tuple[int | None, str]:
    """kdacheck's estimate of a draft checkpoint's weights (EAGLE3 / DFLASH / DSPARK: a few decoder
    layers of their own) from its config.json, since SGLang 0.5.23 measures them and kdacheck cannot
    (``kv_cache_configurator.py`` L2990-3057: the free memory after the target and the draft load).

        per layer = hidden · (heads + 2 · kv_heads) · head_dim + heads · head_dim · hidden   (q, k, v, o)
                  + 3 · hidden · intermediate                                             (gate, up, down)
        weights   = layers · per layer + hidden · draft_vocab (its own LM head, EAGLE3's hot vocabulary)
                  + 3 · hidden · hidden (EAGLE3's fc over three target layers), × the dtype's bytes

    The input embedding is the target's (SPEC016: the EAGLE workers and DFLASH bind it), so it is not counted."""
    text = data.get("text_config")
    d: dict[str, Any] = text if isinstance(text, dict) else data
    hidden, layers = _int(d, "hidden_size"), _int(d, "num_hidden_layers", 1)
    if hidden <= 0 or layers <= 0:
        return None, f"the draft config {path} has no hidden_size / num_hidden_layers"
    heads = _int(d, "num_attention_heads", max(1, hidden // 128))
    kv = _int(d, "num_key_value_heads", heads)
    head_dim = _int(d, "head_dim", hidden // max(1, heads))
    inter = _int(d, "intermediate_size", 4 * hidden)
    vocab = _int(d, "draft_vocab_size", _int(d, "vocab_size"))
    archs = data.get("architectures")
    eagle3 = isinstance(archs, list) and any(isinstance(a, str) and "Eagle3" in a for a in archs[:8])
    params = layers * (hidden * (heads + 2 * kv) * head_dim + heads * head_dim * hidden + 3 * hidden * inter) \
        + hidden * vocab + (3 * hidden * hidden if eagle3 else 0)
    dtype = d.get("torch_dtype", data.get("dtype", "bfloat16"))
    per = _DTYPE_BYTES.get(dtype if isinstance(dtype, str) else "bfloat16", 2)
    return params * per, (f"estimate from the draft config {path}: {layers} layer(s) × (attention + MLP) at hidden {hidden}, "
                          f"LM head {vocab:,}{' + EAGLE3 fc' if eagle3 else ''} = {params / 1e9:.2f} B parameters × {per} bytes")
