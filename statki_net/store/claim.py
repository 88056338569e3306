"""Which program speaks for this side in a kept game: the one holding its lock.

Two programs picking up the same kept game would each sign their own story
of it from the same secrets (SPEC.md, "Resume"): the peer would see this side
equivocate.  So the program that plays a game, from its commit on, holds an
exclusive OS lock on a file beside the game's secrets::

    HOME/unfinished/GAMEID.lock

``claim`` takes it: ``statki resume`` before it picks the game up, and the
secret keeper when it first keeps a game (``statki host``/``join``/``play``,
the daemon, each game of a rematch); the OS lets it go when the program ends,
however it ends.  ``is_free`` asks whether another program holds it, without
taking it from anyone: a start screen's list of games to pick up and its
``u`` ask it, and so does ``why_not_resumed``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from enum import Enum
from pathlib import Path

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, Term, phrase
from statki_net.store.home import private_folder

FOLDER = "unfinished"
LOCK_SUFFIX = ".lock"
RESUME_PATIENCE_S, RETRY_S = 0.2, 0.005
"""How long ``statki resume``'s claim tries again, and how often, before it finds the game
taken: ``is_free`` holds a lock for an instant, and a resume at that instant must not be
refused.  Only there: a keeper claims inside a daemon's event loop, where a sleep would
stop every game it plays, and it claims a game new to this home, whose lock file nobody
made yet (``is_free`` asks without making one), so nothing but a real holder refuses it."""

TAKEN = N_("another statki program in this home plays it now")
"""Why a kept game cannot be picked up while another program holds it: the one phrase."""


class Claimant(Enum):
    """Who claims a game, for the words of its refusal: picking a kept game up, or keeping
    a game this program has just begun (the other program may be its opponent's, when
    both sides play from one home)."""

    RESUME = N_("Game {game} cannot be resumed: {why}")
    KEEPER = N_("Game {game} cannot be played: {why}")


class GameTaken(UsageError):
    """Another program (a ``statki resume``, a first screen, the daemon) plays this game."""

    def __init__(self, game: str, by: Claimant) -> None:
        super().__init__(phrase(by.value, game=game[:8], why=Term(TAKEN)))


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

    def holds(self, home: Path, game: str) -> bool:
        """Whether this is held, and is the lock of kept ``game`` in ``home``: the same file,
        however its path is written (a second claim on it would wait on this one)."""
        if self._fd is None:
            return False
        try:
            there = os.stat(lock_path(home, game))
        except FileNotFoundError:
            return False
        mine = os.fstat(self._fd)
        return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)

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


def claim(
    home: Path, game: str, *, patience_s: float = 0.0, by: Claimant = Claimant.KEEPER
) -> Claim:
    """This process's lock on kept ``game`` (its whole id, hex); ``GameTaken`` when another
    program holds it (still, after ``patience_s``: none by default, which never sleeps)."""
    private_folder(home / FOLDER)
    path = lock_path(home, game)
    deadline = time.monotonic() + patience_s
    while True:
        claimed = _locked(path, fcntl.LOCK_EX)
        if claimed is not None:
            return claimed
        if time.monotonic() >= deadline:
            raise GameTaken(game, by)
        time.sleep(RETRY_S)


def is_free(home: Path, game: str) -> bool:
    """Whether no program holds kept ``game`` now (it may be picked up).

    Asked with a shared lock, which no other asker's excludes; a claim at that
    instant by ``statki resume`` waits it out (``RESUME_PATIENCE_S``)."""
    path = lock_path(home, game)
    if not path.exists():
        return True  # nobody took it since it was kept; asked without making a file
    asked = _locked(path, fcntl.LOCK_SH)
    if asked is None:
        return False
    asked.release()
    return True


def _locked(path: Path, how: int) -> Claim | None:
    """``path`` opened (made when missing) and locked ``how``; None when another holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        # flock, not fcntl's record locks: held per open file, so that two claims in one
        # process (a test's, or a screen's check beside its game) exclude each other too.
        fcntl.flock(fd, how | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return Claim(path, fd)
