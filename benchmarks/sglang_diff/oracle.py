#!/usr/bin/env python3
"""SGLang's own argument resolution as an oracle for kdacheck.

Run inside an oracle venv (see README.md / build_venv.sh):

    /work/oracle/venv-0.5.23/bin/python benchmarks/sglang_diff/oracle.py \
        --sglang-version 0.5.23 --in cases.jsonl --out results.jsonl

For every case (one JSON object a line, as written by generate.py) it runs,
on a CPU with a simulated GPU (kdacheck/sglang/sim_gpu.py) and stubbed CUDA extension
modules (kdacheck/sglang/stubs.py):

    server_args = prepare_server_args(argv)   # SGLang's real argparse parser
    server_args.resolve_once()                # the whole start-up resolution
    server_args.check_server_args()           # the launcher's validation

and records whether SGLang refuses to start, with what and where, and the
resolved values of the fields that matter for hybrid/speculative/DSA models.

Process layout: one long-lived worker per (job slot, GPU profile) imports
torch + sglang once with that GPU simulated; each case then runs in a fork of
that worker, so no SGLang global state (lru caches, runtime context, env
vars written by handlers) leaks from one case into the next, and a hung case
is killed at --timeout.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIM_DIR = os.path.join(ROOT, "kdacheck", "sglang")  # sim_gpu.py, stubs.py, nvidia-smi
sys.path.insert(0, ROOT)
from kdacheck.sglang.child import (  # noqa: E402  (one copy of the in-process resolution)
    MESSAGE_LIMIT,
    _run_case_inproc,
)

MODELS_DIR = os.path.join(HERE, "models")
CONFIG_PREFIX = "benchmarks/sglang_diff/configs/"  # --config files of the wide draws, mapped to absolute paths

# ----------------------------------------------------------------------------
# Worker side (runs inside the oracle venv with the GPU simulated)
# ----------------------------------------------------------------------------


def _prepare_worker(gpu: str) -> None:
    """Simulate the GPU, stub CUDA modules, import SGLang, warm lazy imports."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("SGLANG_DISABLE_REQUEST_LOGGING", "1")
    # Nothing may reach the network: no model download, no telemetry.
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ["HF_HOME"] = os.environ.get("SGLANG_ORACLE_HF_HOME", "/tmp/sglang-oracle-hf")
    sys.path.insert(0, SIM_DIR)
    import sim_gpu
    import stubs

    stubs.install()
    sim_gpu.install(gpu)
    import logging

    logging.disable(logging.CRITICAL)
    import warnings

    warnings.filterwarnings("ignore")
    import sglang.srt.arg_groups.pipeline  # noqa: F401
    from sglang.srt.server_args import prepare_server_args  # noqa: F401


def _warm_modules(gpu: str, sample_argvs: list[list[str]]) -> list[str]:
    """Run sample resolutions in a throw-away fork; return the modules they imported."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        before = set(sys.modules)
        for argv in sample_argvs:
            with contextlib.suppress(BaseException):
                _run_case_inproc(argv)
        new = sorted(set(sys.modules) - before)
        with os.fdopen(w, "w") as f:
            f.write(json.dumps(new))
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        data = f.read()
    os.waitpid(pid, 0)
    try:
        return json.loads(data)
    except ValueError:
        return []


def _map_argv(argv: list[str]) -> list[str]:
    """Model slugs in argv -> the local model folders (and nothing else changes)."""
    def is_slug(tok):
        return bool(tok) and "/" not in tok and os.path.isfile(os.path.join(MODELS_DIR, tok, "config.json"))

    def is_repo_file(tok):  # a --config file written relative to the repository (generate.py CONFIG_DIR)
        return tok.startswith(CONFIG_PREFIX) and os.path.isfile(os.path.join(ROOT, tok))

    out = []
    for tok in argv:
        if is_slug(tok):
            out.append(os.path.join(MODELS_DIR, tok))
        elif is_repo_file(tok):
            out.append(os.path.join(ROOT, tok))
        elif tok.startswith("--") and "=" in tok and is_slug(tok.split("=", 1)[1]):
            name, val = tok.split("=", 1)
            out.append(f"{name}={os.path.join(MODELS_DIR, val)}")
        elif tok.startswith("--") and "=" in tok and is_repo_file(tok.split("=", 1)[1]):
            name, val = tok.split("=", 1)
            out.append(f"{name}={os.path.join(ROOT, val)}")
        else:
            out.append(tok)
    return out


def _unmap(text):
    if isinstance(text, str):
        return text.replace(MODELS_DIR + "/", "").replace(ROOT + "/", "")
    if isinstance(text, dict):
        return {k: _unmap(v) for k, v in text.items()}
    if isinstance(text, list):
        return [_unmap(v) for v in text]
    return text


def _run_forked(argv: list[str], timeout: float) -> dict:
    r, w = os.pipe()
    t0 = time.time()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            res = _run_case_inproc(_map_argv(argv))
            data = json.dumps(_unmap(res), default=str)
        except BaseException as e:
            data = json.dumps({"verdict": "harness_error", "exception": type(e).__name__,
                               "message": str(e)[:MESSAGE_LIMIT], "raised_at": None,
                               "traceback_tail": traceback.format_exc()[-2500:]})
        with os.fdopen(w, "w") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    chunks = []
    deadline = t0 + timeout
    timed_out = False
    with os.fdopen(r, "rb") as f:
        fd = f.fileno()
        while True:
            left = deadline - time.time()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    elapsed = time.time() - t0
    if timed_out:
        return {"verdict": "harness_error", "exception": "Timeout", "message": f"case exceeded {timeout}s",
                "raised_at": None, "elapsed_s": round(elapsed, 3)}
    try:
        res = json.loads(b"".join(chunks).decode())
    except ValueError:
        res = {"verdict": "harness_error", "exception": "ChildDied",
               "message": f"child exit status {status}", "raised_at": None}
    res["elapsed_s"] = round(elapsed, 3)
    return res


def worker_main(gpu: str, timeout: float) -> None:
    """Serve cases from stdin (one JSON a line); answer results on stdout."""
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints must not corrupt the protocol
    _prepare_worker(gpu)
    warm = [
        ["--model-path", os.path.join(MODELS_DIR, "llama-3-8b")],
        ["--model-path", os.path.join(MODELS_DIR, "qwen3-next-80b"), "--tp", "2",
         "--speculative-algorithm", "NEXTN"],
        ["--model-path", os.path.join(MODELS_DIR, "deepseek-v3.2"), "--tp", "8",
         "--speculative-algorithm", "EAGLE"],
        ["--model-path", os.path.join(MODELS_DIR, "kimi-linear-48b"), "--tp", "4"],
    ]
    for mod in _warm_modules(gpu, [a for a in warm if os.path.isdir(a[1])]):
        with contextlib.suppress(BaseException):
            __import__(mod)
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        case = json.loads(line)
        res = _run_forked(case["argv"], timeout)
        res["id"] = case["id"]
        out.write(json.dumps(res) + "\n")
        out.flush()


# ----------------------------------------------------------------------------
# Driver side
# ----------------------------------------------------------------------------


class _Worker:
    def __init__(self, gpu: str, timeout: float):
        env = dict(os.environ)
        env["PATH"] = SIM_DIR + os.pathsep + env.get("PATH", "")
        env.setdefault("OMP_NUM_THREADS", "1")
        env.setdefault("MKL_NUM_THREADS", "1")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", "--gpu", gpu, "--timeout", str(timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=env, bufsize=1,
        )
        ready = self.proc.stdout.readline()
        if not ready:
            raise RuntimeError(f"oracle worker for {gpu} failed to start")

    def run(self, case: dict) -> dict:
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("oracle worker died")
        return json.loads(line)

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def driver_main(args) -> None:
    cases = [json.loads(l) for l in open(args.inp) if l.strip()]
    if args.limit:
        cases = cases[: args.limit]
    q: queue.Queue = queue.Queue()
    for c in cases:
        q.put(c)
    results: dict = {}
    lock = threading.Lock()
    t0 = time.time()
    done = [0]

    def slot():
        workers: dict = {}
        try:
            while True:
                try:
                    case = q.get_nowait()
                except queue.Empty:
                    return
                gpu = case.get("gpu", "h200")
                try:
                    if gpu not in workers:
                        workers[gpu] = _Worker(gpu, args.timeout)
                    res = workers[gpu].run(case)
                except Exception as e:  # restart the worker next time
                    workers.pop(gpu, None)
                    res = {"id": case["id"], "verdict": "harness_error", "exception": "WorkerDied",
                           "message": str(e)[:MESSAGE_LIMIT], "raised_at": None}
                with lock:
                    results[case["id"]] = res
                    done[0] += 1
                    if args.progress and done[0] % args.progress == 0:
                        el = time.time() - t0
                        print(f"[oracle] {done[0]}/{len(cases)} cases, {el:.0f}s", file=sys.stderr, flush=True)
        finally:
            for w in workers.values():
                w.close()

    threads = [threading.Thread(target=slot) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - t0
    counts: dict = {}
    with open(args.out, "w") as f:
        for c in cases:
            r = results[c["id"]]
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
            f.write(json.dumps(r) + "\n")
    print(json.dumps({"cases": len(cases), "wall_s": round(wall, 1),
                      "per_case_s": round(wall / max(1, len(cases)), 3), **counts}), file=sys.stderr)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sglang-version", help="expected sglang version (checked)")
    p.add_argument("--in", dest="inp")
    p.add_argument("--out")
    p.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)))
    p.add_argument("--timeout", type=float, default=60.0, help="per-case seconds")
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--progress", type=int, default=100)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--gpu", default="h200", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker_main(args.gpu, args.timeout)
        return
    if args.sglang_version:
        from importlib.metadata import version

        have = version("sglang")
        if have != args.sglang_version:
            sys.exit(f"this venv has sglang {have}, not {args.sglang_version}")
    if not args.inp or not args.out:
        p.error("--in and --out are required")
    driver_main(args)


if __name__ == "__main__":
    main()
