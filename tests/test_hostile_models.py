"""Where a model's config.json comes from, under hostile conditions: the Hugging Face cache as
huggingface_hub lays it out (1.x ``file_download.py`` ``try_to_load_from_cache``: ``refs/main``
names the snapshot, ``snapshots/<hash>/config.json`` a link into ``blobs/``), and the Hub
(``{HF_ENDPOINT}/{repo}/resolve/main/config.json``) served by a local HTTP server in a thread.

Families expected here are SGLang 0.5.23's (``srt/configs/hybrid_arch.py``: the config class
behind ``model_type``). The cache configs carry the ``architectures`` / ``model_type`` the public
checkpoints declare (Qwen3.6: ``Qwen3_5MoeForConditionalGeneration`` with a ``qwen3_5_moe_text``
text config, 40 layers, interval 4; Granite-4.0-H small: 40 layers, 36 of them mamba, state 128,
expand 2, hidden 4096; tests/data/models/SOURCES.md and the search index ids there); their other
geometry numbers are illustrative. Nothing here may hang, trace back, write, or send a token
anywhere but the configured endpoint.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from kdacheck import model_source
from kdacheck.models import Family
from tests.helpers import codes, finding, lint_ok, tree_state

LAUNCH = "python -m sglang.launch_server"
SPEC = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
CANARY = "kdacheck-canary-7c21d0"
PUBLIC = Path(__file__).parent / "data" / "models"  # public config.json copies (SOURCES.md there)
REV = "0123456789abcdef0123456789abcdef01234567"

QWEN36 = {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
          "text_config": {"model_type": "qwen3_5_moe_text", "num_hidden_layers": 40, "full_attention_interval": 4,
                          "hidden_size": 2048, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
                          "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4}}
CODER_NEXT = {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "num_hidden_layers": 48,
              "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
              "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4}
# transformers 5's form: layers_block_type as a list, no num_hidden_layers (configs/nemotron_h.py reads either)
SUPER = {"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h",
         "layers_block_type": ["mamba", "moe", "mamba", "attention", "moe"] * 8, "mamba_num_heads": 128, "mamba_head_dim": 64,
         "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4, "time_step_limit": [0.0, {"__float__": "Infinity"}]}
GRANITE_H = {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "num_hidden_layers": 40,
             "hidden_size": 4096, "mamba_expand": 2, "mamba_n_heads": 128, "mamba_d_head": 64, "mamba_n_groups": 1,
             "mamba_d_state": 128, "mamba_d_conv": 4,
             "layer_types": ["mamba"] * 9 + ["attention"] + ["mamba"] * 9 + ["attention"] + ["mamba"] * 9 + ["attention"]
             + ["mamba"] * 9 + ["attention"]}


def cache_repo(cache: Path, repo_id: str, body: bytes | None, rev: str = REV) -> Path:
    """A repo folder as huggingface_hub writes it: the blob by its hash, the snapshot's link to it, refs/main."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(rev)  # huggingface_hub writes the hash with no newline
    (repo / "snapshots" / rev).mkdir(parents=True)
    (repo / "blobs").mkdir()
    if body is not None:
        sha = hashlib.sha256(body).hexdigest()
        (repo / "blobs" / sha).write_bytes(body)
        (repo / "snapshots" / rev / "config.json").symlink_to(f"../../blobs/{sha}")
    return repo


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "hub"
    folder.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(folder))
    return folder


@pytest.mark.parametrize(("repo_id", "config", "family"), [
    ("Qwen/Qwen3.6-35B-A3B", QWEN36, Family.GDN),  # hybrid_gdn_config: Qwen3_5MoeConfig's text config
    ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", SUPER, Family.MAMBA2),  # mamba2_config: NemotronHConfig
    ("Qwen/Qwen3-Coder-Next", CODER_NEXT, Family.GDN),  # hybrid_gdn_config: Qwen3NextConfig
    ("ibm-granite/granite-4.0-h-small", GRANITE_H, Family.MAMBA2),  # mamba2_config: GraniteMoeHybridConfig with mamba layers
])
def test_a_checkpoint_with_only_config_json_in_the_cache_is_recognised_by_architecture(
        cache: Path, repo_id: str, config: dict[str, Any], family: Family) -> None:
    cache_repo(cache, repo_id, json.dumps(config).encode())
    r = lint_ok(f"{LAUNCH} --model-path {repo_id} --tp-size 4 {SPEC}")
    cfg = r.resolved[0]
    assert cfg.model is not None and cfg.model.family is family and cfg.model.origin == "hf-cache", cfg.model_note
    assert cfg.model.linear_layers > 0 and "MODEL001" not in codes(r)
    assert "Hugging Face cache" in cfg.model_note


@pytest.mark.parametrize(("repo_id", "slug", "family", "layers", "linear"), [
    # configs/nemotron_h.py num_hidden_layers: len(hybrid_override_pattern); mamba_layer_ids: its "M" entries
    ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4", "nemotron-3-super-120b", Family.MAMBA2, 88, 40),
    # hybrid_gdn_config: Qwen3_5MoeConfig's text config (configs/qwen3_5.py L119); configs/qwen3_next.py L259-278: layer l full iff (l + 1) % 4 == 0
    ("Qwen/Qwen3.6-35B-A3B", "qwen3.6-35b-a3b", Family.GDN, 40, 30),
    ("Qwen/Qwen3.6-27B", "qwen3.6-27b", Family.GDN, 64, 48),  # hybrid_gdn_config: Qwen3_5Config's text config
    ("Qwen/Qwen3-Coder-Next", "qwen3-coder-next", Family.GDN, 48, 36),  # hybrid_gdn_config: Qwen3NextConfig
    # mamba2_config: GraniteMoeHybridConfig with mamba layers; granitemoehybrid.py: the "mamba" entries of layer_types
    ("ibm-granite/granite-4.0-h-small", "granite-4.0-h-small", Family.MAMBA2, 40, 36),
])
def test_a_public_config_json_in_the_cache_is_read_as_sglang_reads_it(
        cache: Path, repo_id: str, slug: str, family: Family, layers: int, linear: int) -> None:
    cache_repo(cache, repo_id, (PUBLIC / slug / "config.json").read_bytes())
    r = lint_ok(f"{LAUNCH} --model-path {repo_id} --tp-size 8 {SPEC}")
    cfg = r.resolved[0]
    assert cfg.model is not None and cfg.model.origin == "hf-cache", cfg.model_note
    assert (cfg.model.family, cfg.model.num_layers, cfg.model.linear_layers) == (family, layers, linear)
    assert "MODEL001" not in codes(r)


def test_the_counts_follow_sglangs_config_classes(cache: Path) -> None:
    cache_repo(cache, "Qwen/Qwen3.6-35B-A3B", json.dumps(QWEN36).encode())
    cache_repo(cache, "ibm-granite/granite-4.0-h-small", json.dumps(GRANITE_H).encode())
    cache_repo(cache, "acme/super", json.dumps(SUPER).encode())
    qwen, _ = model_source.load_model(None, "Qwen/Qwen3.6-35B-A3B")
    granite, _ = model_source.load_model(None, "ibm-granite/granite-4.0-h-small")
    nemo, _ = model_source.load_model(None, "acme/super")
    assert qwen is not None and (qwen.num_layers, qwen.linear_layers) == (40, 30)  # qwen3_next.py: (l + 1) % 4 == 0 is full attention
    assert granite is not None and (granite.linear_layers, granite.intermediate) == (36, 8192)  # granitemoehybrid.py: expand · hidden
    assert nemo is not None and (nemo.num_layers, nemo.linear_layers) == (40, 16)  # nemotron_h.py: the list's length, its mamba entries


def test_a_cache_without_refs_main_is_not_a_cached_model(cache: Path) -> None:
    repo = cache_repo(cache, "acme/qwen3-next-tiny", json.dumps(CODER_NEXT).encode())
    (repo / "refs" / "main").unlink()  # try_to_load_from_cache: no ref, no revision to look in
    model, note = model_source.load_model(None, "acme/qwen3-next-tiny")
    assert model is None and "not in the Hugging Face cache" in note


@pytest.mark.parametrize("rev", ["../../../outside", "..", "abc\n", "x" * 300])
def test_a_ref_that_names_no_snapshot_is_not_followed(cache: Path, rev: str) -> None:
    repo = cache_repo(cache, "acme/model", json.dumps(CODER_NEXT).encode())
    (repo / "refs" / "main").write_text(rev)
    found = model_source.cached_config("acme/model")
    assert found is None or (isinstance(found, str) and "not read" in found)  # not cached, or a ref refused by its size


def _outside_config(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    target = outside / "config.json"
    target.write_text(json.dumps({**CODER_NEXT, "architectures": [CANARY]}))
    return target


@pytest.mark.parametrize("kind", ["absolute", "relative", "blob"])
def test_a_snapshot_link_out_of_the_cache_repo_is_refused_by_name(cache: Path, tmp_path: Path, kind: str) -> None:
    target = _outside_config(tmp_path)
    repo = cache_repo(cache, "acme/model", None)
    link = repo / "snapshots" / REV / "config.json"
    if kind == "absolute":
        link.symlink_to(target)
    elif kind == "relative":
        link.symlink_to(os.path.relpath(target, link.parent))
    else:  # the snapshot's link stays in, the blob is the link out
        (repo / "blobs" / "abc").symlink_to(target)
        link.symlink_to("../../blobs/abc")
    before = tree_state(tmp_path)
    r = lint_ok(f"{LAUNCH} --model-path acme/model --tp-size 4 {SPEC}")
    assert tree_state(tmp_path) == before
    cfg = r.resolved[0]
    assert cfg.model is None and "outside" in cfg.model_note and "not read" in cfg.model_note
    assert CANARY not in json.dumps([f.message for f in r.findings]) + cfg.model_note
    assert "model not read" in finding(r, "MODEL001").message


def test_a_cache_repo_folder_that_is_a_link_is_refused(cache: Path, tmp_path: Path) -> None:
    elsewhere = cache_repo(tmp_path / "elsewhere", "acme/model", json.dumps(CODER_NEXT).encode())
    (cache / "models--acme--model").symlink_to(elsewhere)
    found = model_source.cached_config("acme/model")
    assert isinstance(found, str) and "a link to" in found and "not read" in found


def test_a_snapshot_linked_to_dev_zero_is_refused(cache: Path) -> None:
    repo = cache_repo(cache, "acme/model", None)
    (repo / "blobs" / "zero").symlink_to("/dev/zero")
    (repo / "snapshots" / REV / "config.json").symlink_to("../../blobs/zero")
    found = model_source.cached_config("acme/model")
    assert isinstance(found, str) and "not read" in found  # outside the repo folder: never opened


def test_a_device_or_fifo_inside_the_cache_repo_is_refused(cache: Path) -> None:
    repo = cache_repo(cache, "acme/model", None)
    os.mkfifo(repo / "blobs" / "fifo")
    (repo / "snapshots" / REV / "config.json").symlink_to("../../blobs/fifo")
    found = model_source.cached_config("acme/model")
    assert isinstance(found, str) and "not a regular file" in found  # O_NONBLOCK: no hang on the open


def test_a_huge_cached_config_is_refused_by_its_size(cache: Path) -> None:
    repo = cache_repo(cache, "acme/model", None)
    big = repo / "blobs" / "big"
    with open(big, "wb") as f:
        f.truncate(64 << 30)  # sparse: 64 GiB named, nothing allocated
    (repo / "snapshots" / REV / "config.json").symlink_to("../../blobs/big")
    found = model_source.cached_config("acme/model")
    assert isinstance(found, str) and "limit" in found


@pytest.mark.parametrize("repo_id", ["acme/../../etc", "../acme/model", "acme/mo..del", "acme/model/../x"])
def test_a_repo_id_with_dots_never_reaches_the_cache_or_the_hub(cache: Path, repo_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(model_source, "fetch_hub_config", lambda name: calls.append(name) or (None, "x"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert model_source.cached_config(repo_id) is None
    model, _ = model_source.load_model(None, repo_id)
    assert model is None and not calls


# --- the Hub, served on localhost ------------------------------------------------------------

GOOD = json.dumps(CODER_NEXT).encode()


class Hub(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str | None]]] = []  # (path, Authorization)
    release: ClassVar[threading.Event] = threading.Event()

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        Hub.seen.append((self.path, self.headers.get("Authorization")))
        repo = self.path.split("/resolve/")[0].strip("/")
        try:
            if repo == "acme/good" or self.path == "/capture":
                self._send(200, GOOD)
            elif repo in ("acme/gated", "acme/missing"):
                self._send(401 if repo == "acme/gated" else 404, b'{"error": "no"}')
            elif repo == "acme/declared-10gb":
                self.send_response(200)
                self.send_header("Content-Length", str(10 * 10**9))
                self.end_headers()
                self._zeros()
            elif repo == "acme/undeclared-10gb":
                self.send_response(200)
                self.end_headers()
                self._zeros()
            elif repo.startswith("acme/hang"):
                Hub.release.wait(30)  # never answers while the test runs
            elif repo == "acme/trickle":
                self.send_response(200)
                self.end_headers()
                while not Hub.release.wait(0.05):
                    self.wfile.write(b" ")
                    self.wfile.flush()
            elif repo == "acme/redirect":
                self.send_response(302)
                self.send_header("Location", f"http://localhost:{self.server.server_address[1]}/capture")
                self.end_headers()
            elif repo == "acme/redirect-file":
                self.send_response(302)
                self.send_header("Location", "file:///etc/passwd")
                self.end_headers()
            else:
                self._send(404, b"")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _send(self, code: int, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _zeros(self) -> None:
        chunk = b"0" * 65536
        for _ in range(10 * 10**9 // len(chunk)):  # 10 GB, until the client hangs up
            self.wfile.write(chunk)


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    server.daemon_threads = True
    Hub.seen, Hub.release = [], threading.Event()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # conftest sets it for the rest of the suite
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    (tmp_path / "hf-home").mkdir()
    (tmp_path / "hf-home" / "token").write_text(f"hf_{CANARY}")  # a stored token: never read, never sent
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HUGGING_FACE_HUB_TOKEN", raising=False)
    monkeypatch.setattr(model_source, "HUB_TIMEOUT", 0.5)
    monkeypatch.setattr(model_source, "HUB_DEADLINE", 1.5)
    try:
        yield endpoint
    finally:
        Hub.release.set()
        server.shutdown()
        server.server_close()


def test_a_config_from_the_hub_is_read_in_memory_and_said(hub: str, tmp_path: Path) -> None:
    before = tree_state(tmp_path)
    r = lint_ok(f"{LAUNCH} --model-path acme/good --tp-size 4 {SPEC}")
    cfg = r.resolved[0]
    assert cfg.model is not None and cfg.model.family is Family.GDN and cfg.model.origin == "hub"
    assert cfg.model_note.startswith("the Hub: ") and f"{hub}/acme/good/resolve/main/config.json" in cfg.model_note
    assert "MODEL001" not in codes(r)
    assert tree_state(tmp_path) == before  # nothing written: no cache entry, no token file touched
    assert Hub.seen == [("/acme/good/resolve/main/config.json", None)]  # no token in the environment: none sent


def test_a_token_goes_only_to_the_endpoint_never_after_a_redirect(hub: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_secret_env_token")
    raw, _ = model_source.fetch_hub_config("acme/redirect")
    assert raw == GOOD
    assert Hub.seen == [("/acme/redirect/resolve/main/config.json", "Bearer hf_secret_env_token"), ("/capture", None)]


def test_a_redirect_to_a_file_url_is_refused(hub: str) -> None:
    raw, why = model_source.fetch_hub_config("acme/redirect-file")
    assert raw is None and ("refused" in why or "HTTP 302" in why)  # urllib refuses a non-HTTP redirect itself


@pytest.mark.parametrize(("repo", "said"), [
    ("acme/gated", "HTTP 401"), ("acme/missing", "HTTP 404"), ("acme/declared-10gb", "over the 2,097,152-byte limit"),
    ("acme/undeclared-10gb", "over the 2,097,152-byte limit"), ("acme/hang", "timed out"), ("acme/trickle", "no complete answer"),
])
def test_a_failing_hub_is_a_clear_note_never_a_traceback_or_a_hang(hub: str, repo: str, said: str) -> None:
    r = lint_ok(f"{LAUNCH} --model-path {repo} --tp-size 4 {SPEC}")
    cfg = r.resolved[0]
    assert cfg.model is None and said in cfg.model_note, cfg.model_note
    f = finding(r, "MODEL001")
    assert "model not read" in f.message and said in f.message


def test_offline_and_hf_hub_offline_ask_nothing(hub: str, monkeypatch: pytest.MonkeyPatch) -> None:
    model, note = model_source.load_model(None, "acme/good", hub=False)
    assert model is None and "--offline" in note
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model, note = model_source.load_model(None, "acme/good")
    assert model is None and "HF_HUB_OFFLINE" in note
    assert Hub.seen == []


def test_the_offline_option_reaches_the_lint(hub: str) -> None:
    from typer.testing import CliRunner

    from kdacheck.cli import app

    args = ["lint", "--output-format", "json", "--cmd", f"{LAUNCH} --model-path acme/good --tp-size 4 {SPEC}"]
    off = CliRunner().invoke(app, [*args[:1], "--offline", *args[1:]], env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    command = json.loads(off.stdout)["files"][0]["commands"][0]
    assert command["model_origin"] == "none" and "--offline" in command["model_source"] and Hub.seen == []
    on = CliRunner().invoke(app, args, env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    assert json.loads(on.stdout)["files"][0]["commands"][0]["model_origin"] == "hub" and len(Hub.seen) == 1


def test_a_hub_answer_that_is_not_json_is_a_note_with_its_url(hub: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_source, "fetch_hub_config", lambda name: (b"<html>login</html>", f"{hub}/{name}/resolve/main/config.json"))
    model, note = model_source.load_model(None, "acme/good")
    assert model is None and "not a config.json" in note and "not valid JSON" in note and f"{hub}/acme/good" in note


def test_a_hub_config_the_readers_refuse_is_refused_as_a_local_one(hub: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = json.dumps({**CODER_NEXT, "linear_num_value_heads": "many"}).encode()
    monkeypatch.setattr(model_source, "fetch_hub_config", lambda name: (bad, f"{hub}/{name}/resolve/main/config.json"))
    from kdacheck.findings import InputError

    with pytest.raises(InputError, match="linear_num_value_heads"):
        model_source.load_model(None, "acme/good")


def _lint_folder(tmp_path: Path, ids: list[str]) -> Any:
    from typer.testing import CliRunner

    from kdacheck.cli import app

    deploy = tmp_path / "deploy"
    deploy.mkdir()
    for n, repo in enumerate(ids):
        (deploy / f"run{n:03}.sh").write_text(f"{LAUNCH} --model-path {repo} --tp-size 4 {SPEC}\n")
    return CliRunner().invoke(app, ["lint", str(deploy), "--output-format", "concise"], env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})


def test_a_run_asks_the_hub_once_per_model_id(hub: str, tmp_path: Path) -> None:
    # 50 files naming 10 unknown ids (the Hub answers 404): one request per id, the failure kept
    r = _lint_folder(tmp_path, [f"acme/missing-{n % 10}" for n in range(50)])
    assert r.exit_code == 0, r.output
    assert sorted(p for p, _ in Hub.seen) == sorted(f"/acme/missing-{n}/resolve/main/config.json" for n in range(10))
    assert r.output.count("HTTP 404") == 50  # each file still says what was tried


def test_a_stalled_hub_is_asked_once_per_run(hub: str, tmp_path: Path) -> None:
    # an endpoint that accepts and never answers: one request waits its timeout, the others
    # are not fetched, and a note says so
    r = _lint_folder(tmp_path, [f"acme/hang-{n}" for n in range(50)])
    assert r.exit_code == 0, r.output
    assert len(Hub.seen) == 1
    assert "49 Hub look-ups not fetched: the Hub (127.0.0.1:" in r.output and "did not answer earlier in this run" in r.output


def test_the_run_network_budget_is_said_when_spent(hub: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_source, "HUB_RUN_BUDGET", 0.0)
    r = _lint_folder(tmp_path, ["acme/good", "acme/other"])
    assert Hub.seen == []
    assert "not fetched: the run's network budget (0 s) is spent" in r.output
    assert "2 Hub look-ups not fetched: the run's network budget (0 s) is spent" in r.output
