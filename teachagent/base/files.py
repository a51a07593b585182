"""Reading a file inside one folder and nowhere else, safely: what `read_file_tool` stands on.

Lesson 2 (notebooks/02_tools.ipynb) says the tool "refuses everything outside its
folder". Keeping that promise against a hostile path takes more than a check beside the
open, because the file system can change between the check and the open. So each promise
is kept by how the file is opened:
- only a file inside the folder is read: the open file itself is asked where it lives
  (`_where`), so a folder swapped for a symlink after our look at the path is caught;
- only a regular file is read: the file is opened without waiting (a FIFO would block a
  plain open for good) and refused unless the open file is a regular one;
- at most `WHOLE_UP_TO` bytes or the number asked for, whichever is more, are read, so a
  huge or sparse file costs no more than a small one.
Every refusal is a ValueError whose message is written for the model that asked.
"""

from __future__ import annotations

import codecs
import itertools
import os
import stat
import sys
from pathlib import Path

from .display import shorten

WHOLE_UP_TO = 2**20  # bytes: a file this small is read whole, however few of them are asked for

# Open without following a symlink in the last part of the path (resolve() already followed the
# ones that stay inside) and without waiting for a writer, which a FIFO would do. Windows has neither.
OPEN_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def read_inside(folder: Path, path: str, max_bytes: int) -> tuple[bytes, bool, int]:
    """The first bytes of the regular file at `path` inside `folder`: (data, whether that is all, the file's size).

    `folder` must be resolved already. At least `max_bytes` bytes are read when the file has
    them; a file of up to `WHOLE_UP_TO` bytes is read whole.
    """
    shown = repr(shorten(path, 100))
    if Path(path).anchor:
        raise ValueError(f"path {shown} is absolute; use a path relative to the folder, such as 'notes.txt'")
    outside = f"path {shown} is outside the folder this tool may read; use a path relative to it, such as 'notes.txt'"
    try:
        target = (folder / path).resolve()  # follows symlinks, so a link cannot lead out unnoticed
    except (ValueError, RuntimeError, OSError):  # a NUL character in the path, or a symlink loop
        raise ValueError(f"path {shown} cannot be opened; use a plain relative path, such as 'notes.txt'") from None
    if not target.is_relative_to(folder):
        raise ValueError(outside)

    try:
        fd = os.open(target, os.O_RDONLY | OPEN_FLAGS)
    except FileNotFoundError:
        available = files_inside(folder, limit=10)
        listing = f"; files you can read include: {', '.join(available)}" if available else "; the folder is empty"
        raise ValueError(f"there is no file {shown}{listing}") from None
    except IsADirectoryError:
        raise ValueError(f"{shown} is a folder, not a file; give the path of a file inside it") from None
    except OSError as exc:  # ELOOP: the last part became a symlink after resolve(); ENXIO: a socket
        raise ValueError(f"could not read {shown}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not _where(fd, target, info).is_relative_to(folder):
            raise ValueError(outside)
        if stat.S_ISDIR(info.st_mode):
            raise ValueError(f"{shown} is a folder, not a file; give the path of a file inside it")
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{shown} is not a regular file (a pipe, device or socket); this tool reads text files only")
        data, whole = _read_at_most(fd, max(max_bytes, WHOLE_UP_TO))
    except OSError as exc:
        raise ValueError(f"could not read {shown}: {exc.strerror}") from None
    finally:
        os.close(fd)
    return data, whole, info.st_size


def _where(fd: int, target: Path, info: os.stat_result) -> Path:
    """The real path of the open file `fd`, asked of the system, so no swap after the open can fool it.

    Linux answers through /proc/self/fd and macOS through fcntl(F_GETPATH). Elsewhere (Windows)
    we can only check that `target` still names the same file we opened; a swap in the moment
    between that check and the open is then not caught, and Windows needs privileges to make
    symlinks at all.
    """
    proc = Path(f"/proc/self/fd/{fd}")
    if sys.platform.startswith("linux") and proc.is_symlink():
        return Path(os.readlink(proc))
    if sys.platform == "darwin":
        import fcntl

        return Path(fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024)).rstrip(b"\0").decode(errors="surrogateescape"))
    now = os.stat(target)
    return target if (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino) else Path("/")


def _read_at_most(fd: int, limit: int) -> tuple[bytes, bool]:
    """Up to `limit` bytes from `fd`, and whether that was the whole file."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(limit - size, 1 << 16))
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), os.read(fd, 1) == b""


def files_inside(folder: Path, limit: int = 200) -> list[str]:
    """The first `limit` files inside `folder` by name, as paths relative to it (looks at 1,000 entries at most):
    the files a model could ask for, named in an error or listed as a parameter's choices."""
    found = [
        p.relative_to(folder).as_posix()
        for p in itertools.islice(folder.rglob("*"), 1000)
        if p.is_file() and p.resolve().is_relative_to(folder)
    ]
    return sorted(found)[:limit]


def read_text_inside(folder: Path, path: str, max_chars: int) -> str:
    """The text of the file at `path` inside `folder`, cut after `max_chars` characters with a note saying so.

    `read_inside` opens the file so that nothing outside `folder` and nothing but a regular
    file is ever read; a UTF-8 character is 1 to 4 bytes, so 4 bytes per character asked for
    is enough. The note says exactly how much was cut when the whole file was read.
    """
    data, whole, size = read_inside(folder, path, 4 * (max_chars + 1))
    try:  # a cut may fall inside a character: the decoder keeps those bytes back instead of failing
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=whole)
    except UnicodeDecodeError:
        raise ValueError(f"{shorten(path, 100)!r} is not a UTF-8 text file; this tool reads text files only") from None

    if len(text) > max_chars:
        counted = f"of its {len(text):,} characters" if whole else f"of the file's {size:,} bytes"
        left_out = f"{len(text) - max_chars:,} {counted}" if whole else f"the rest {counted}"
        kept = f"only the first {max_chars:,} are shown" if whole else f"only its first {max_chars:,} characters are shown"
        text = f"{text[:max_chars]}\n\n[the file was cut here: {left_out} were left out; {kept}]"
    return text
