"""One confinement for every file kdacheck reads or writes beside a launch.

kdacheck runs on strangers' pull requests, so a file the tree names (a launch file, its
``--config``, a Compose ``.env``, a ``.gitignore``, a settings file, a model folder's
``config.json``) is read only when its real path lies inside the repository that holds it,
it is a regular file, and it fits a byte bound. A link that points outside is refused by name,
never followed; so is a device, a FIFO or a folder.

The repository is found *lexically*: from the folder as named (``deploy/`` even when the pull
request made it a link), up to the nearest ``.git``; only then is it resolved. A folder that
is a link to elsewhere therefore cannot move the root along with it. ``root`` None means
``--allow-outside``: the user asked for files outside to be read.
"""

from __future__ import annotations

import errno
import functools
import os
import stat

from kdacheck.findings import InputError
from kdacheck.sanitize import shown


class Refused(InputError):
    """A file the tree names that kdacheck will not read or write (outside, a device, a link)."""


# ``lint --fix``/``--diff``: the sha256 of each file's bytes as the lint read them, by absolute
# path (a set: a file read twice, differently, changed during the run). None: not recorded.
reads: dict[str, set[str]] | None = None


def record_reads() -> dict[str, set[str]]:
    """Start recording what every read returns (kdacheck.fix writes only what it saw)."""
    global reads
    reads = {}
    return reads


def recorded(path: str | os.PathLike[str], data: bytes) -> bytes:
    """``data``, noted as what ``path`` held when :func:`record_reads` is on."""
    if reads is not None:
        import hashlib

        reads.setdefault(os.path.abspath(path), set()).add(hashlib.sha256(data).hexdigest())
    return data


@functools.lru_cache(maxsize=4096)
def _lexical_root(folder: str) -> str:
    d = folder
    while True:
        if os.path.lexists(os.path.join(d, ".git")):
            return os.path.realpath(d)
        parent = os.path.dirname(d)
        if parent == d:
            return os.path.realpath(folder)
        d = parent


def repository_root(folder: str | None) -> str:
    """The real path of the git top level above ``folder`` as named (no link followed on the
    way up), else of ``folder`` itself."""
    return _lexical_root(os.path.abspath(folder or "."))


def inside(target: str | os.PathLike[str], root: str) -> bool:
    """Whether ``target``'s real path (every link followed) is ``root`` or below it."""
    real = os.path.realpath(target)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)



def check(path: str | os.PathLike[str], root: str | None, what: str) -> str:
    """``path``'s real path, or Refused when ``root`` is given and it lies outside (a link out
    is named as one). ``what`` says how the tree named it (``place: --flag name``)."""
    real = os.path.realpath(path)
    if root is not None and not (real == root or real.startswith(root.rstrip(os.sep) + os.sep)):
        link = os.path.islink(path) or real != os.path.abspath(path)
        how = f"a link to {shown(real)}, " if link else ""
        raise Refused(f"{shown(what)}: {how}outside the repository ({shown(root)}): not read (lint --allow-outside reads it)")
    return real


def read(path: str | os.PathLike[str], root: str | None, max_bytes: int, what: str, missing_ok: bool = False) -> bytes | None:
    """The bytes of a regular file inside ``root``, at most ``max_bytes`` (allocating only what
    the file holds). None when it does not exist and ``missing_ok``; Refused (an InputError)
    for a file outside, a device, a FIFO, a folder, one too large or unreadable."""
    quoted = shown(what)
    if missing_ok and not os.path.lexists(path):
        return None
    check(path, root, what)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a device, pipe or socket"
            raise Refused(f"{quoted}: {kind}, not a regular file: not read")
        if st.st_size > max_bytes:
            raise Refused(f"{quoted}: {st.st_size:,} bytes is over the {max_bytes:,}-byte limit: not read")
        fd = os.open(path, flags)  # O_NONBLOCK: a FIFO swapped in after the stat cannot hang the open
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise Refused(f"{quoted}: not a regular file: not read")
            chunks: list[bytes] = []
            got, want = 0, min(max_bytes, st.st_size + 65536) + 1  # a file growing while read, never the budget up front
            while got < want:
                chunk = os.read(fd, min(1 << 20, want - got))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
        finally:
            os.close(fd)
    except InputError:
        raise
    except FileNotFoundError:
        if missing_ok:
            return None
        raise Refused(f"{quoted}: no such file") from None
    except PermissionError:
        raise Refused(f"{quoted}: permission denied") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise Refused(f"{quoted}: symbolic link loop") from None
        raise Refused(f"{quoted}: cannot read: {e.strerror or e}") from None
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise Refused(f"{quoted}: over the {max_bytes:,}-byte limit: not read")
    return recorded(path, data)


def read_text(path: str | os.PathLike[str], root: str | None, max_bytes: int, what: str, missing_ok: bool = False) -> str | None:
    """:func:`read`, decoded as UTF-8 (a BOM dropped; bytes that are not UTF-8 replaced)."""
    data = read(path, root, max_bytes, what, missing_ok)
    return None if data is None else data.decode("utf-8-sig", "replace")
