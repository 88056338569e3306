"""Where statki keeps its files: one home directory for the key, the logs and the history.

``--home``, else ``STATKI_HOME``, else ``$XDG_DATA_HOME/statki``
(``~/.local/share/statki``).  Kept apart from the key so that commands which
only need the folder do not load the cryptography.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from statki_net.game.english import N_
from statki_net.game.errors import UsageError

PRIVATE = 0o700
"""The home and every folder in it: its owner's alone (the key, the logs, the history)."""


class HomeError(UsageError):
    """The home, or a folder or file in it, is not safe to keep a player's key and logs in."""


def home_dir(explicit: str | None = None) -> Path:
    """statki's home: the argument, ``STATKI_HOME``, or the XDG data directory; made if missing."""
    return private_folder(home_path(explicit), follow_link=True)


def home_path(explicit: str | None = None) -> Path:
    """Where statki's home is, made or not: for commands that only read it."""
    if explicit:
        return Path(explicit)
    if os.environ.get("STATKI_HOME"):
        return Path(os.environ["STATKI_HOME"])
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "statki"


def private_folder(folder: Path, *, follow_link: bool = False) -> Path:
    """``folder``, made if missing, and kept its owner's alone.

    A folder that exists with wider permissions is tightened; one that belongs
    to another user is refused, as is (unless ``follow_link``: the home itself
    may be a link its owner made) a link, which could send what statki writes
    somewhere else.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE)
    except FileExistsError:  # a file (or a link to one) where the folder should be
        raise _not_a_folder(folder) from None
    info = folder.stat() if follow_link else folder.lstat()
    if stat.S_ISLNK(info.st_mode):
        raise _refused(
            N_("{folder} is a link: statki writes only into a folder of its own there"), folder
        )
    if not stat.S_ISDIR(info.st_mode):
        raise _not_a_folder(folder)
    if info.st_uid != os.getuid():
        raise _refused(
            N_("{folder} belongs to another user: statki keeps your files in your own"), folder
        )
    if stat.S_IMODE(info.st_mode) & ~PRIVATE:
        os.chmod(folder, PRIVATE)
    return folder


def refuse_link(path: Path) -> Path:
    """``path``, unless it is a link (which could make statki write elsewhere)."""
    if path.is_symlink():
        raise _refused(N_("{folder} is a link: statki writes only its own files there"), path)
    return path


def _not_a_folder(folder: Path) -> HomeError:
    return _refused(N_("{folder} is not a folder"), folder)


def _refused(text: str, folder: Path) -> HomeError:
    """The error, said in the reader's words where it is shown."""
    from statki_net.game.words import phrase  # loads dataclasses: only when it goes wrong

    return HomeError(phrase(text, folder=str(folder)))
