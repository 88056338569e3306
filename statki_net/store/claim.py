"""Which program speaks for this side in a kept game: the one holding its lock.

Two programs picking up the same kept game would each sign their own story
of it from the same secrets (SPEC.md, "Resume"): the peer would see this side
equivocate.  So the program that plays a game, from its commit on, holds an
exclusive OS lock on a file beside the game's secrets::

    HOME/unfinished/GAMEID.lock

``statki host``/``join``/``play``, the daemon and ``statki resume`` take it
(``claim``; the secret keeper does it when it first keeps a game), and the OS
lets it go when the program ends, however it ends.  This is the one place
that says whether a kept game is free to pick up (``is_free``): resume on
the command line, ``u`` on a first screen, and the daemon all ask it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, phrase
from statki_net.store.home import private_folder

FOLDER = "unfinished"
LOCK_SUFFIX = ".lock"


class GameTaken(UsageError):
    """Another program (a ``statki resume``, a first screen, the daemon) plays this game."""


def lock_path(home: Path, game: str) -> Path:
    return home / FOLDER / f"{game}{LOCK_SUFFIX}"


class Claim:
    """The lock on one kept game, held until ``release`` or until this process ends."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self, *, game_over: bool = False) -> None:
        """Let the game go; with ``game_over`` its lock file goes too (removed while held,
        so that no other program takes a lock on it meanwhile and plays on)."""
        if self._fd is None:
            return
        if game_over:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        os.close(self._fd)
        self._fd = None


def claim(home: Path, game: str) -> Claim:
    """This process's lock on kept ``game`` (its whole id, hex); ``GameTaken`` when another
    program holds it."""
    private_folder(home / FOLDER)
    path = lock_path(home, game)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        # flock, not fcntl's record locks: held per open file, so that two claims in one
        # process (a test's, or a screen's check beside its game) exclude each other too.
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise GameTaken(
            phrase(
                N_("game {game} is being played by another statki program in this home"),
                game=game[:16],
            )
        ) from None
    except BaseException:
        os.close(fd)
        raise
    return Claim(path, fd)


def is_free(home: Path, game: str) -> bool:
    """Whether no program holds kept ``game`` now (it may be picked up)."""
    if not lock_path(home, game).exists():
        return True  # nobody took it since it was kept; asked without making a file
    try:
        claim(home, game).release()
    except GameTaken:
        return False
    return True
