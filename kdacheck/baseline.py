"""``kdacheck lint --baseline FILE`` / ``--write-baseline FILE``: adopt the gate on a tree that
already has findings, failing only on new ones.

A finding's fingerprint is its file (relative to the repository root, ``/``-separated), its
launch (the launch's role, ``Finding.source``, else its index among the file's launches), its
code and what it is about (its first evidence's name, e.g. ``decode_backend``; else nothing):
never its line, so lines moved, blank lines or comments inserted above do not re-raise it. The
baseline counts each fingerprint: two identical findings where it holds one leave one new.

The file is JSON: ``{"kdacheck_baseline": 1, "findings": [{"path", "launch", "code",
"subject", "count"}, ...]}``, sorted, two-space indented, one newline at the end, so it diffs
well. It is read through ``kdacheck.confine`` (inside the repository, at most
:data:`MAX_BASELINE_BYTES`) and written through ``kdacheck.writes``.
"""

from __future__ import annotations

import json
import os
from collections import Counter

from kdacheck import confine
from kdacheck.findings import Finding, InputError
from kdacheck.results import FileResult
from kdacheck.sanitize import visible_name

FORMAT = 1
MAX_BASELINE_BYTES = 16 << 20  # 16 MiB: about 100,000 fingerprints

Fingerprint = tuple[str, str, str, str]  # (path, launch, code, subject)


def _path(path: str, root: str) -> str:
    if path.startswith("<"):  # <stdin>, <cmd>
        return path
    rel = os.path.relpath(os.path.abspath(path), root)
    return rel.replace(os.sep, "/")


def fingerprints(result: FileResult, root: str) -> list[Fingerprint]:
    """Each finding's fingerprint, as ``result.findings``."""
    launches = result.launch_of if len(result.launch_of) == len(result.findings) else [0] * len(result.findings)
    return [fingerprint(f, i, root) for f, i in zip(result.findings, launches, strict=True)]


def fingerprint(f: Finding, launch: int, root: str) -> Fingerprint:
    subject = f.evidence[0].name if f.evidence else ""
    return (_path(f.location.path, root), f.source or f"#{launch}", f.code, subject)


def dump(results: list[FileResult], root: str) -> bytes:
    """The baseline of ``results``: every finding's fingerprint, counted, sorted."""
    counts = Counter(fp for r in results for fp in fingerprints(r, root))
    rows = [{"path": p, "launch": la, "code": c, "subject": s, "count": n} for (p, la, c, s), n in sorted(counts.items())]
    return (json.dumps({"kdacheck_baseline": FORMAT, "findings": rows}, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def load(path: str, root: str | None) -> Counter[Fingerprint]:
    """The fingerprints a baseline file holds; InputError (exit 2) naming the file when it is
    missing, outside ``root``, over the cap or not a baseline."""
    text = confine.read_text(path, root, MAX_BASELINE_BYTES, f"--baseline {path}")
    assert text is not None
    try:
        doc = json.loads(text)
        if not isinstance(doc, dict) or doc.get("kdacheck_baseline") != FORMAT:
            raise ValueError(f"not a kdacheck baseline of format {FORMAT}")
        counts: Counter[Fingerprint] = Counter()
        for row in doc["findings"]:
            fp = (row["path"], row["launch"], row["code"], row["subject"])
            if not all(isinstance(v, str) for v in fp) or not isinstance(row["count"], int) or row["count"] < 1:
                raise ValueError("a row needs path, launch, code and subject as strings and a count of 1 or more")
            counts[fp] += row["count"]
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(f"--baseline {visible_name(path)}: {e}") from None
    return counts


def apply(results: list[FileResult], known: Counter[Fingerprint], root: str) -> int:
    """Drop from ``results`` the findings the baseline holds (each fingerprint as many times
    as it counts), counting them in ``FileResult.baselined``; how many were dropped."""
    left = Counter(known)
    dropped = 0
    for r in results:
        keep = []
        for k, fp in enumerate(fingerprints(r, root)):
            if left[fp] > 0:
                left[fp] -= 1
                r.baselined += 1
                dropped += 1
            else:
                keep.append(k)
        if r.baselined:
            launch_of = r.launch_of if len(r.launch_of) == len(r.findings) else None
            r.findings = [r.findings[k] for k in keep]
            if launch_of is not None:
                r.launch_of = [launch_of[k] for k in keep]
    return dropped
