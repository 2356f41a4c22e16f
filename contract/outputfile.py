"""Writing an output file the user named (`--junit`, `--out`): never in place of something that is not a file.

Outputs are written beside the target and renamed over it, so a reader never sees half a file.  A rename
replaces whatever the name holds: a FIFO, a device node (as root, `--junit /dev/null` would have replaced
/dev/null), a symlink.  Such a name is refused instead, before anything is written.
"""
from __future__ import annotations

import errno
import os
import stat

_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket", stat.S_IFLNK: "a symbolic link", stat.S_IFDIR: "a directory"}


class NotRegularFile(OSError):
    """An output path that exists and is not a regular file; `conform` exits 7 (EXIT_OUTPUT) naming it."""


def refuse_non_regular(path) -> None:
    """NotRegularFile when `path` exists and is not a regular file (a symlink is not followed: it is refused)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise NotRegularFile(errno.EEXIST, f"{path} is {kind}, not a regular file: refusing to replace it "
                             "(name a file, or remove it)", os.fspath(path))
