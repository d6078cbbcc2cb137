"""Hub look-ups per run: 1,000 launch files naming unknown Hub ids, linted against a local
endpoint that accepts connections and never answers, against one that answers 404 at once, and
with ``--offline``.

    python benchmarks/hub_lookups.py [--files 1000] [--ids 20] [--repeat 3] [--json OUT] [--root CHECKOUT]

``--root`` times another checkout's kdacheck (an older commit, for a before/after).

Each run is ``python -m kdacheck lint FOLDER --output-format concise`` as a whole process, with
``HF_ENDPOINT`` on the local server and an empty Hugging Face cache; the server counts the
requests it gets. kdacheck resolves each model id once per run, through one HTTP client, within
one network budget (``HUB_RUN_BUDGET``), and asks an endpoint that did not answer no more in
that run: the stalled run costs one ``HUB_TIMEOUT`` over ``--offline``, however many files.
Target: the stalled run within 2x the ``--offline`` time.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEC = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"


def write_corpus(folder: Path, files: int, ids: int) -> None:
    for n in range(files):
        repo = f"acme/unknown-model-{n % ids}"
        (folder / f"launch{n:04}.sh").write_text(f"python -m sglang.launch_server --model-path {repo} --tp-size 4 {SPEC}\n")


class Stalled:
    """A TCP endpoint that accepts every connection and never answers; counts connections."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1024)
        self.count = 0
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.count += 1
            self.held.append(conn)

    def close(self) -> None:
        for c in self.held:
            c.close()
        self.sock.close()


class Missing(http.server.BaseHTTPRequestHandler):
    count = 0

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        Missing.count += 1
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()


def lint(folder: Path, endpoint: str | None, cache: Path, root: Path = ROOT) -> tuple[float, int]:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_TOKEN")}
    env.update({"HF_HUB_CACHE": str(cache), "NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    argv = [sys.executable, "-m", "kdacheck", "lint", str(folder), "--output-format", "concise"]
    if endpoint is None:
        argv.append("--offline")
    else:
        env["HF_ENDPOINT"] = endpoint
    start = time.perf_counter()
    env["PYTHONPATH"] = str(root)
    p = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=1800)
    took = time.perf_counter() - start
    if p.returncode not in (0, 1):
        raise SystemExit(f"kdacheck exited {p.returncode}: {p.stderr[-2000:]}")
    return took, p.returncode


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--ids", type=int, default=20, help="distinct unknown model ids among the files")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose kdacheck is timed")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder, cache = Path(tmp) / "launches", Path(tmp) / "empty-cache"
        folder.mkdir()
        cache.mkdir()
        write_corpus(folder, a.files, a.ids)
        stalled = Stalled()
        missing = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Missing)
        threading.Thread(target=missing.serve_forever, daemon=True).start()
        times: dict[str, list[float]] = {"offline": [], "stalled": [], "404": []}
        requests: dict[str, list[int]] = {"stalled": [], "404": []}
        for _ in range(a.repeat):
            times["offline"].append(lint(folder, None, cache, a.root)[0])
            before = stalled.count
            times["stalled"].append(lint(folder, stalled.endpoint, cache, a.root)[0])
            requests["stalled"].append(stalled.count - before)
            before = Missing.count
            times["404"].append(lint(folder, f"http://127.0.0.1:{missing.server_address[1]}", cache, a.root)[0])
            requests["404"].append(Missing.count - before)
        stalled.close()
        missing.shutdown()
    med = {k: statistics.median(v) for k, v in times.items()}
    doc = {
        "files": a.files, "ids": a.ids, "repeat": a.repeat, "median_s": med, "all_s": times,
        "requests_per_run": requests, "stalled_over_offline": med["stalled"] / med["offline"],
        "target": "stalled <= 2x offline", "pass": med["stalled"] <= 2 * med["offline"],
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
    }
    print(json.dumps(doc, indent=2))
    if a.json:
        a.json.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
