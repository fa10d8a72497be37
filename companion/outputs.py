"""One way to write an output file, for every command.

The path is checked before any work starts (a PDF can take half a minute to draw):
its folder exists and can be written, and it is new or, with --force, a regular file;
a device, a folder or a link to one is never replaced. The data then goes to a
temporary file beside it, renamed over it, so a failed write leaves what was there.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from companion.errors import CompanionError


class BadOutput(CompanionError, ValueError):
    """An output path that cannot or must not be written."""


def checked_output(text: str, force: bool) -> Path:
    """An output path, checked before any work: its folder exists and is writable, and
    it is either new or (with --force) a regular file. Symbolic links are followed."""
    if not str(text).strip():
        raise BadOutput("an output file needs a name, got ''")
    path = Path(text).expanduser()
    if path.exists() or path.is_symlink():
        path = path.resolve()
    if path.is_dir():
        raise BadOutput(f"an output must be a file, and {path} is a folder")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise BadOutput(f"cannot use {path}: {exc.strerror}") from None
    if mode is not None:
        if not stat.S_ISREG(mode):
            raise BadOutput(f"{path} exists and is not a regular file: name a new file")
        if not force:
            raise BadOutput(f"{path} exists: add --force to replace it")
    parent = path.parent
    if not parent.is_dir():
        raise BadOutput(f"no such folder: {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise BadOutput(f"cannot write in the folder {parent}: permission denied")
    return path


def checked_folder(text: str) -> Path:
    """An output folder, checked before any work: made if missing (with its parents),
    and a folder this process can write in. A file or a device there is refused."""
    if not str(text).strip():
        raise BadOutput("an output folder needs a name, got ''")
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise BadOutput(f"an output folder is needed, and {path} is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadOutput(f"cannot make the folder {path}: {exc.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise BadOutput(f"cannot write in the folder {path}: permission denied")
    return path


def write_output(path: Path, data: bytes) -> None:
    """`write_atomically`, with a failed write (disk full, a folder gone) as BadOutput
    naming the file; what was at `path` is left as it was."""
    try:
        write_atomically(path, data)
    except OSError as exc:
        raise BadOutput(f"cannot write {path}: {exc.strerror or exc}") from None


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, then rename it over `path`."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
