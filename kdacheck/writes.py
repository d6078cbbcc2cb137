"""Every file kdacheck writes (``-o FILE``, ``lint --fix``): whole, by rename, inside the tree.

kdacheck runs on strangers' pull requests, and a pull request can commit links: a report file
``gl-code-quality.json -> ../../elsewhere``, a folder ``deploy/linked -> /outside``, or turn
``deploy/`` itself into a link. So a file is written only

- below the repository of the working directory (``confine.repository_root(os.getcwd())``),
  reached from it folder by folder with no link followed (each folder opened ``O_NOFOLLOW``
  relative to the one before, so a link swapped in after a check is refused too); a path
  outside it only for ``-o`` with ``--allow-outside`` (the user named it: no folder of the tree
  is on the way);
- never onto a link, live or dangling, nor a device, FIFO or folder;
- by a temporary file beside it (``O_EXCL``, ``O_NOFOLLOW``), renamed over it: a reader sees
  the old file or the new one, never half of either. The old file's mode, and its owner and
  group, are kept (as root: another user's file stays theirs).

``--fix`` passes the sha256 of the bytes its edits were computed from: the file is read again
just before the rename and left alone (:class:`Changed`) when it no longer holds them, so a
concurrent change (another ``lint --fix``, an editor) is never overwritten with edits made for
other text.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import stat

from kdacheck.confine import Refused
from kdacheck.sanitize import visible_name

_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Changed(Exception):
    """The file no longer holds the bytes the edits were computed from: not written."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _open_folder(path: str, root: str, allow_outside: bool) -> tuple[int, str]:
    """A descriptor of ``path``'s folder and the file's name in it; Refused for a link on the
    way below ``root``, or a folder outside it (unless ``allow_outside``)."""
    shown = visible_name(path)
    full = os.path.normpath(os.path.join(os.getcwd(), path))  # `..` taken as written, never through a link
    folder, name = os.path.split(full)
    if not name or name in (".", ".."):
        raise Refused(f"{shown}: not a file name: not written")
    parts = folder.split(os.sep)
    # The root as the path names it: the shortest leading part that is the repository (the
    # folders above it are the user's, e.g. a checkout reached through a link).
    for i in range(1, len(parts) + 1):
        top = os.sep.join(parts[:i]) or os.sep
        if os.path.realpath(top) == root:
            break
    else:
        if not allow_outside:
            raise Refused(f"{shown}: outside the repository ({visible_name(root)}): not written"
                          " (-o writes there with --allow-outside; --fix never does)")
        try:
            return os.open(folder, _DIR), name
        except OSError as e:
            raise Refused(f"{shown}: cannot open its folder: {e.strerror or e}") from None
    try:
        fd = os.open(top, _DIR)
    except OSError as e:
        raise Refused(f"{shown}: cannot open the repository folder: {e.strerror or e}") from None
    walked = top
    try:
        for part in parts[i:]:
            walked = os.path.join(walked, part)
            try:
                nxt = os.open(part, _DIR | _NOFOLLOW, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(walked):
                    raise Refused(f"{shown}: {visible_name(os.path.relpath(walked))} is a symbolic link:"
                                  " not written (kdacheck writes nothing through a link)") from None
                raise Refused(f"{shown}: cannot open {visible_name(os.path.relpath(walked))}: {e.strerror or e}") from None
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd, name


def _target(fd: int, name: str, shown: str) -> os.stat_result | None:
    """The file's own status (no link followed), None when it does not exist; Refused for a
    link (live or dangling) or anything but a regular file."""
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise Refused(f"{shown}: {e.strerror or e}: not written") from None
    if stat.S_ISLNK(st.st_mode):
        raise Refused(f"{shown}: a symbolic link: not written (kdacheck writes nothing through a link)")
    if not stat.S_ISREG(st.st_mode):
        raise Refused(f"{shown}: not a regular file: not written")
    return st


def _read_at(fd: int, name: str) -> bytes:
    """The bytes of ``name`` in the folder ``fd``, opened without following a link."""
    f = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0), dir_fd=fd)
    try:
        st = os.fstat(f)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        chunks, got = [], 0
        while True:  # what fstat says plus one byte: a file that grew reads as changed
            chunk = os.read(f, max(1, st.st_size + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            if got > st.st_size:
                break
        return b"".join(chunks)
    finally:
        os.close(f)


def read(path: str, root: str) -> bytes:
    """``path``'s bytes, read the way :func:`replace` will reach it (Refused as it would be;
    Changed when it is gone)."""
    fd, name = _open_folder(path, root, False)
    try:
        if _target(fd, name, visible_name(path)) is None:
            raise Changed(f"{visible_name(path)}: file changed since it was read (it is gone), not fixed")
        try:
            return _read_at(fd, name)
        except OSError as e:
            raise Refused(f"{visible_name(path)}: cannot read: {e.strerror or e}") from None
    finally:
        os.close(fd)


def replace(path: str, data: bytes, root: str, expect: str | None = None, allow_outside: bool = False) -> None:
    """Write ``data`` as ``path``, by a temporary file beside it and a rename. ``expect``: the
    sha256 the file must still hold just before the rename (else :class:`Changed`, nothing
    written); None creates the file when it does not exist. Refused (exit 2) for a link, a
    file outside ``root``, or an owner that cannot be kept."""
    shown = visible_name(path)
    fd, name = _open_folder(path, root, allow_outside)
    tmp = None
    try:
        old = _target(fd, name, shown)
        if old is None and expect is not None:
            raise Changed(f"{shown}: file changed since it was read (it is gone), not fixed")
        for _ in range(100):  # a random name, created exclusively: never an existing file or link
            tmp = f".kdacheck-{secrets.token_hex(6)}.tmp"
            try:
                out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                              0o600 if old is not None else 0o666, dir_fd=fd)
                break
            except FileExistsError:
                tmp = None
        else:
            raise Refused(f"{shown}: cannot create a temporary file beside it: not written")
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view):]
            if old is not None:
                mine = os.fstat(out)
                if (mine.st_uid, mine.st_gid) != (old.st_uid, old.st_gid):
                    try:  # chown before chmod: chown clears the set-user-ID bits
                        os.fchown(out, old.st_uid, old.st_gid)
                    except PermissionError:
                        raise Refused(f"{shown}: owned by uid {old.st_uid} gid {old.st_gid}, which a rewrite by this user"
                                      " cannot keep: not written") from None
                os.fchmod(out, stat.S_IMODE(old.st_mode))
            # on disk before the rename, so a crash leaves the old file or the new one, never
            # an empty one; measured 3 ms a file on ext4 (only files that change are written)
            os.fsync(out)
        finally:
            os.close(out)
        if expect is not None:
            try:
                now = sha256(_read_at(fd, name))
            except OSError:
                now = None
            if now != expect:
                raise Changed(f"{shown}: file changed since it was read, not fixed")
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        tmp = None
    except OSError as e:
        raise Refused(f"{shown}: cannot write: {e.strerror or e}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
        os.close(fd)
