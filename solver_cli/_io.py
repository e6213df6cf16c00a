"""The user's files, handled defensively: bounded reads that never block on a FIFO, names the
OS cannot take, and writes that leave either the old file or the whole new one.

Writing (``write_atomically``, ``replace_in_folder``): the new content goes to a temporary
file in the target's folder, is flushed to disk, and is renamed over the target, so a crash
or a full disk leaves the old file whole. What is at the target decides the rest:

- nothing: a new file, with the mode a shell redirection would give it (0666 less the umask);
- a regular file: replaced, keeping its mode and (where the OS allows) its owner and group;
  if the owner cannot be kept, or the file has several hard links, it is rewritten in place
  instead (space reserved first, then one write), so the links stay one file;
- a symbolic link owned by the current user: followed to the file it names, which is then
  written as above (the link stays a link); a link owned by someone else, a link to nothing
  and a loop are refused, so a link planted in a shared folder cannot redirect a write;
- anything else (a FIFO, a device, a folder, a socket): refused, never opened.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from solver_cli.errors import InputError

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Opening a folder and naming files relative to it (POSIX): nothing can swap the folder
# between a check and a write. Elsewhere (Windows) paths are used as they are.
DIR_FD = bool(_DIRECTORY) and os.open in os.supports_dir_fd

KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def kind_of(mode: int) -> str:
    """'a FIFO', 'a folder', ... for a file that is not a regular file."""
    return next((name for test, name in KINDS if test(mode)), "not a regular file")


def path_exists(name: str) -> bool:
    """Like ``Path.exists``, but False for names the OS refuses (too long, NUL bytes)."""
    try:
        return Path(name).exists()
    except (OSError, ValueError):
        return False


def one_line(text: str) -> str:
    """``text``, read from a file, as it may be shown or written into a line of output: every
    character that is not printable (a line break, the escape that starts a terminal's control
    sequence, any other control or format character) becomes ``?``, so a file cannot forge an
    ``Error:`` line or drive the terminal."""
    return text if text.isprintable() else "".join(ch if ch.isprintable() else "?" for ch in text)


def current_user() -> int | None:
    """The effective user id, or None where there is none (Windows)."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid() if geteuid is not None else None


def read_limited(path: Path | str, limit: int, what: str) -> bytes:
    """The file's bytes, reading at most ``limit + 1`` of them: a huge or endless file
    (``/dev/zero``, a 100 MB board) is refused without being read whole. The file is opened
    without blocking, so a FIFO nobody writes to reads as empty instead of hanging; a pipe
    with a writer (``<(...)``, ``/dev/stdin``) is read as usual."""
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {what} {_short(str(path))}: {_reason(exc)}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"cannot read {what} {_short(str(path))}: it is a directory, not a file")
        if _NONBLOCK:
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(f"cannot read {what} {_short(str(path))}: {_reason(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputError(f"{what} {_short(str(path))} is too large (over {limit:,} bytes)")
    return data


def write_atomically(path: Path, text: str | bytes, *, follow_links: bool = True) -> Path:
    """Write ``text`` (UTF-8, or bytes as they are) to ``path`` by the rules in this module's docstring; returns
    the file actually written (the target of a followed link). ``follow_links=False`` (files
    scrab names itself in a folder, like game records) refuses every symbolic link. Raises
    InputError when what is at ``path`` must not be written, OSError when writing fails
    (the old file is then whole)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    target, existing = _writable_target(path, follow_links)
    folder = target.parent if str(target.parent) else Path(".")
    if existing is not None and (existing.st_nlink > 1 or not _can_own(existing)):
        _rewrite_in_place(target, existing, data)
        return target
    if existing is not None:
        mode, owner = stat.S_IMODE(existing.st_mode), (existing.st_uid, existing.st_gid)
    else:
        mode, owner = 0o666 & ~_umask(), None
    with open_folder(folder) as folder_fd:
        replace_in_folder(
            folder,
            folder_fd,
            target.name,
            lambda fh: fh.write(data),
            mode=mode,
            owner=owner,
            temp_prefix=f".{target.name[:100]}.",
            temp_suffix=".tmp",
        )
    return target


@contextlib.contextmanager
def open_folder(folder: Path) -> Iterator[int | None]:
    """An open descriptor of ``folder`` (None where folders cannot be opened)."""
    if not DIR_FD:
        yield None
        return
    fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        yield fd
    finally:
        os.close(fd)


def replace_in_folder(
    folder: Path,
    folder_fd: int | None,
    name: str,
    write: Callable[[BinaryIO], object],
    *,
    mode: int,
    owner: tuple[int, int] | None = None,
    temp_prefix: str,
    temp_suffix: str,
) -> None:
    """Create ``name`` in the folder (open as ``folder_fd``, else by its path) atomically:
    ``write`` fills a new temporary file (created 0600, never through a link), which gets
    ``mode`` (and ``owner``), is flushed to disk and renamed over ``name``. On any failure
    the temporary file is removed and the old ``name``, if any, is untouched."""

    def at(entry: str) -> tuple[str, dict[str, int]]:
        return (entry, {"dir_fd": folder_fd}) if folder_fd is not None else (str(folder / entry), {})

    import secrets  # (here: its import costs start-up time of every command that only reads)

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    temp_path, where = "", dict[str, int]()
    # One try from before the temporary file is made: Ctrl-C or SIGTERM just after os.open
    # made it, before a try of its own began, left it behind (empty) beside the records.
    try:
        for _ in range(100):
            temp = f"{temp_prefix}{secrets.token_hex(6)}{temp_suffix}"
            temp_path, where = at(temp)
            try:
                fd = os.open(temp_path, flags, 0o600, **where)
                break
            except FileExistsError:
                temp_path = ""  # (another's: never removed)
                continue
        else:
            raise FileExistsError(f"no free temporary name in {folder}")
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            made = os.fstat(fh.fileno())
            if owner is not None and owner != (made.st_uid, made.st_gid):
                os.fchown(fh.fileno(), *owner)
            if os.chmod in os.supports_fd:
                os.chmod(fh.fileno(), mode)
            else:  # Windows: by name, with no folder descriptor (only the read-only bit counts)
                os.chmod(str(folder / temp), mode)
            os.fsync(fh.fileno())
        final_path, _ = at(name)
        if folder_fd is not None:
            os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        else:
            os.replace(temp_path, final_path)
    except BaseException:
        if temp_path:
            with contextlib.suppress(OSError):
                os.unlink(temp_path, **where)
        raise


def check_link(path: Path, what: str) -> None:
    """Refuse ``path`` if it is a symbolic link owned by another user: in a shared folder,
    such a link could send scrab's writes anywhere its owner likes."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return
    me = current_user()
    if stat.S_ISLNK(st.st_mode) and me is not None and st.st_uid != me:
        raise InputError(
            f"{what} {_short(str(path))}: it is a symbolic link owned by another user (uid {st.st_uid}); "
            "not following it"
        )


def check_target(path: Path, follow_links: bool = True) -> None:
    """Raise the ``InputError`` that ``write_atomically(path, ...)`` would raise for what is at
    ``path`` (a FIFO, a device, a link to nothing, a loop, another user's link), without
    writing: so a command can refuse its output file before it does any work."""
    _writable_target(path, follow_links)


def check_can_write(path: Path, follow_links: bool = True) -> None:
    """``check_target``, and then the ``InputError`` of a write the OS would refuse (a read-only
    file or folder, another user's folder, a pseudo file system such as ``/proc``), found by
    trying the write's first step harmlessly: a file that would be rewritten in place is
    opened for writing and closed, never truncated; otherwise an empty temporary file is
    created in the folder and removed at once. Nothing of the user's is created or changed.
    For a command that works long before it writes."""
    target, existing = _writable_target(path, follow_links)
    shown = _short(str(path))
    if existing is not None and (existing.st_nlink > 1 or not _can_own(existing)):
        try:
            os.close(os.open(target, os.O_WRONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC))
        except OSError as exc:
            raise InputError(f"cannot write {shown}: {_reason(exc)}") from None
        return
    import secrets

    folder = target.parent if str(target.parent) else Path(".")
    temp = f".{target.name[:100]}.{secrets.token_hex(6)}.probe"
    try:
        with open_folder(folder) as folder_fd:
            name, where = (temp, {"dir_fd": folder_fd}) if folder_fd is not None else (str(folder / temp), {})
            os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600, **where))
            os.unlink(name, **where)
    except FileExistsError:
        return  # (a name taken by chance: the folder takes new files)
    except (OSError, ValueError) as exc:
        raise InputError(
            f"cannot write {shown}: cannot create a file in {_short(str(folder))} ({_reason(exc)})"
        ) from None


def _writable_target(path: Path, follow_links: bool) -> tuple[Path, os.stat_result | None]:
    """The file a write to ``path`` goes to, and its status (None if it does not exist yet)."""
    shown = _short(str(path))
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path, None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot write {shown}: {_reason(exc)}") from None
    if stat.S_ISLNK(st.st_mode):
        if not follow_links:
            raise InputError(f"cannot write {shown}: it is a symbolic link; scrab does not follow links here")
        check_link(path, "cannot write")
        real = Path(os.path.realpath(path))
        try:
            st = os.lstat(real)
        except OSError:
            raise InputError(f"cannot write {shown}: it is a symbolic link to a missing file ({real})") from None
        if stat.S_ISLNK(st.st_mode):
            raise InputError(f"cannot write {shown}: it is a loop of symbolic links") from None
        path = real
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"cannot write {shown}: not a regular file ({kind_of(st.st_mode)}); scrab writes only files")
    return path, st


def _can_own(existing: os.stat_result) -> bool:
    """Whether a new file can be given ``existing``'s owner and group."""
    me = current_user()
    if me is None or me == 0:
        return True
    return existing.st_uid == me and existing.st_gid in (os.getegid(), *os.getgroups())


def _rewrite_in_place(target: Path, existing: os.stat_result, data: bytes) -> None:
    """Overwrite a hard-linked (or not our own) file in place: every link sees the new
    content and the owner stays. The space is reserved first, so a full disk fails before
    a byte of the old content is touched."""
    fd = os.open(target, os.O_WRONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (existing.st_dev, existing.st_ino):
            raise InputError(f"cannot write {_short(str(target))}: it changed while scrab was writing it")
        if len(data) > st.st_size and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, 0, len(data))
            except OSError as exc:  # not supported by some file systems: write anyway
                if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                    raise
        written = 0
        while written < len(data):
            written += os.pwrite(fd, data[written:], written)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc)


def _short(name: str) -> str:
    return name if len(name) <= 200 else name[:150] + "..." + name[-40:]
