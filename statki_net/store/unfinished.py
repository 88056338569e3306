"""Unfinished games this side can pick up after its program stopped: what it must keep.

A crash, a closed terminal or a reboot must not lose a game (SPEC.md,
"Resume").  The log holds every message; what only this side knows (its
fleet, the secret of its fleet commitment, its coin; the key is in the home
already) is kept apart, one file a game::

    HOME/unfinished/GAMEID.json      owner-only, like the home itself

written before this side's commit goes out (from then on it must be able to
reveal), and removed when the game ends.  The file also says where the game
goes on: the log to append to, and for the guest the invite to redial, for
the host the port to listen on again.  ``statki resume`` lists these files and
picks one up.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from statki_net.game.errors import UsageError
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, phrase
from statki_net.protocol.errors import ProtocolError
from statki_net.protocol.logformat import LogContents, frames_of, heard_at, next_say, read_log
from statki_net.protocol.resume import NotRestored, RestoreRefusal
from statki_net.protocol.session import Session, SideSecrets
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role
from statki_net.store.claim import Claim, Claimant, GameTaken, claim, is_free, lock_path
from statki_net.store.home import private_folder
from statki_net.store.identity import load_identity
from statki_net.store.language import _, words

FOLDER = "unfinished"
SUFFIX = ".json"
MUTED_SUFFIX = ".muted"
"""Beside a game's file while its opponent is muted (``keep_muted``)."""


@dataclass(frozen=True)
class Unfinished:
    """One game this side may pick up again."""

    game: str
    """The game id, hex."""
    role: Role
    name: str
    """The name this side plays under."""
    log: Path
    secrets: SideSecrets
    invite: str = ""
    """The guest's: the host's invite, to redial."""
    port: int = 0
    """The host's: the port it listened on."""
    started: int = 0
    """When the secrets were first kept, ms since 1970."""

    def to_map(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "role": self.role.value,
            "name": self.name,
            "log": str(self.log),
            "fleet": [list(ship) for ship in self.secrets.fleet],
            "secret": self.secrets.secret.hex(),
            "coin": self.secrets.coin.hex(),
            "invite": self.invite,
            "port": self.port,
            "started": self.started,
        }

    @classmethod
    def from_map(cls, value: Any) -> Unfinished:
        try:
            return cls(
                game=str(value["game"]),
                role=Role(value["role"]),
                name=str(value["name"]),
                log=Path(value["log"]),
                secrets=SideSecrets(
                    tuple(tuple(int(s) for s in ship) for ship in value["fleet"]),
                    bytes.fromhex(value["secret"]),
                    bytes.fromhex(value["coin"]),
                ),
                invite=str(value.get("invite", "")),
                port=int(value.get("port", 0)),
                started=int(value.get("started", 0)),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise UsageError(
                phrase(N_("an unfinished game's file is damaged: {error}"), error=str(error))
            ) from None


def folder(home: Path) -> Path:
    return private_folder(home / FOLDER)


def keep(home: Path, unfinished: Unfinished) -> None:
    """Write (or rewrite) the game's file: whole or not at all, owner-only."""
    where = folder(home)
    path = where / f"{unfinished.game}{SUFFIX}"
    temporary = where / f".{unfinished.game}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(unfinished.to_map(), file)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)


def forget(home: Path, game: str) -> None:
    for suffix in (SUFFIX, MUTED_SUFFIX):
        with contextlib.suppress(FileNotFoundError):
            (home / FOLDER / f"{game}{suffix}").unlink()


def keep_muted(home: Path, game: str, muted: bool) -> None:
    """Whether this side's player muted the opponent in ``game`` (its id, hex), kept beside
    the game's file for when it is picked up: muting is the front end's, not the log's (the
    talk is kept whole), so the log cannot say it.  An empty file while muted; none when not."""
    path = folder(home) / f"{game}{MUTED_SUFFIX}"
    if muted:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def kept_muted(home: Path, game: str) -> bool:
    """Whether the opponent was muted in ``game`` when its program stopped (``keep_muted``)."""
    return (home / FOLDER / f"{game}{MUTED_SUFFIX}").exists()


@dataclass(frozen=True)
class Damaged:
    """A kept game's file that cannot be read: where, and why."""

    path: Path
    error: OSError | ValueError | UsageError


def kept_files(home: Path) -> tuple[list[Unfinished], list[Damaged]]:
    """Every game kept for resuming, oldest first, and the files that cannot be read."""
    where = home / FOLDER
    if not where.is_dir():
        return [], []
    games, damaged = [], []
    for path in sorted(where.glob(f"*{SUFFIX}")):
        try:
            games.append(Unfinished.from_map(json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, UsageError) as error:
            damaged.append(Damaged(path, error))
    return sorted(games, key=lambda game: game.started), damaged


def unfinished_games(home: Path) -> list[Unfinished]:
    """Every game kept for resuming, oldest first; damaged files are skipped here (``statki
    resume``, listing them, names each: ``kept_files``)."""
    return kept_files(home)[0]


def find_unfinished(home: Path, prefix: str) -> Unfinished:
    """The one kept game whose id starts with ``prefix``; ``UsageError`` if none or several."""
    found = [game for game in unfinished_games(home) if game.game.startswith(prefix.lower())]
    if not found:
        raise UsageError(
            phrase(
                N_("no unfinished game {prefix} (statki resume lists them)"), prefix=repr(prefix)
            )
        )
    if len(found) > 1:
        raise UsageError(
            phrase(
                N_("{prefix} names {count} unfinished games: give more of the id"),
                prefix=repr(prefix),
                count=len(found),
            )
        )
    return found[0]


@dataclass(frozen=True)
class Glance:
    """How far a kept game has got, as its log tells: what a start screen names it by."""

    opponent: str
    rules: Ruleset | None
    my_move: bool
    """This side is the one to send the next message."""


def glance(kept: Unfinished) -> Glance | None:
    """The game's opponent, rules and turn from its log; None when the log is gone or
    does not replay (``statki resume`` then says why, when the player picks it)."""
    try:
        contents = read_log(kept.log.read_bytes())
        transcript = Transcript()
        for frame in frames_of(contents):
            transcript.add(frame)
    except (OSError, UsageError, ProtocolError):
        return None
    hello = transcript.sides[kept.role.other].hello
    return Glance(
        opponent=hello.name if hello is not None else "",
        rules=transcript.rules,
        my_move=transcript.speaker() is kept.role,
    )


class KeptGone(enum.StrEnum):
    """Why a kept game cannot be picked up, found before its log is replayed."""

    SECRETS_GONE = "secrets-gone"
    """Its file of secrets is gone (or no longer reads)."""
    LOG_GONE = "log-gone"
    LOG_DAMAGED = "log-damaged"
    """The log is no statki log, or a frame of it is no frame."""


WHY_NOT: dict[KeptGone | RestoreRefusal, str] = {
    KeptGone.SECRETS_GONE: N_("its secrets are gone"),
    KeptGone.LOG_GONE: N_("its log is gone"),
    KeptGone.LOG_DAMAGED: N_("its log is damaged"),
    RestoreRefusal.DOES_NOT_REPLAY: N_("its log is damaged: a message does not fit"),
    RestoreRefusal.NO_GAME: N_("its log holds no game yet"),
    RestoreRefusal.OVER: N_("it is over already"),
    RestoreRefusal.WRONG_KEY: N_("it is another key's game"),
    RestoreRefusal.SECRETS_DO_NOT_FIT: N_("its secrets do not fit its log"),
    RestoreRefusal.NO_SECRETS: N_("its secrets are gone"),
}
"""Each reason in a few words, translated where shown (``CannotResume``)."""


class CannotResume(UsageError):
    """A kept game that cannot be picked up: the one line that says so, in the player's
    language; ``why`` is the reason as a value."""

    def __init__(self, game: str, why: KeptGone | RestoreRefusal) -> None:
        super().__init__(
            _("Game {game} cannot be resumed: {why}").format(game=game[:8], why=_(WHY_NOT[why]))
        )
        self.why = why


@dataclass(frozen=True)
class Restored:
    """A kept game picked up: its file, its log as read, and this side's session again."""

    kept: Unfinished
    contents: LogContents
    session: Session


def restore(home: Path, game: str) -> Restored:
    """This side's session of kept ``game`` (its whole id), from its log and secrets, apart
    from the peer until a new connection resumes it.  Raises ``CannotResume``; a game whose
    log holds its end is forgotten (there is nothing to resume: it is listed no more)."""
    kept = next((each for each in unfinished_games(home) if each.game == game), None)
    if kept is None:
        raise CannotResume(game, KeptGone.SECRETS_GONE)
    try:
        contents = read_log(kept.log.read_bytes())
        frames = frames_of(contents)
    except FileNotFoundError:
        raise CannotResume(game, KeptGone.LOG_GONE) from None
    except (OSError, UsageError, ProtocolError):
        raise CannotResume(game, KeptGone.LOG_DAMAGED) from None
    try:
        session = Session.restore(
            kept.role,
            load_identity(home),
            frames,
            kept.secrets,
            name=kept.name,
            entropy=secrets.token_bytes,
            said=next_say(contents, kept.role),
            heard_at=heard_at(contents, frames, kept.role),
        )
    except NotRestored as error:
        if error.refusal is RestoreRefusal.OVER:
            forget(home, game)
            # A game over has nothing left to play, so its lock file may go even while a
            # program holds it (the one asking now does: resume's claim, a screen's check).
            with contextlib.suppress(FileNotFoundError):
                lock_path(home, game).unlink()
        raise CannotResume(game, error.refusal) from None
    return Restored(kept, contents, session)


def why_not_resumed(home: Path, game: str) -> str | None:
    """None when kept ``game`` can be picked up now; else the one line why not (a start
    screen's ``u``: it shows the line, and leaves for the game only when there is none)."""
    if not is_free(home, game):  # another program plays it: it would be refused after
        return GameTaken(game, Claimant.RESUME).in_words(words())
    try:
        restore(home, game)
    except CannotResume as error:
        return str(error)
    return None


class SecretKeeper:
    """Keeps one game's secrets in the home while it may be resumed; see the module."""

    def __init__(
        self,
        home: Path,
        *,
        invite: str = "",
        port: int = 0,
        now: int = 0,
        game: str = "",
        claimed: Claim | None = None,
    ) -> None:
        self.home = home
        self.invite = invite
        self.port = port
        self.now = now
        self.game = game
        """The game whose file is kept: known once kept, or given for a game picked up."""
        self.claimed = claimed
        """This program's lock on the game (``statki_net.store.claim``): taken when the game
        is first kept, or given with a game picked up; let go when it ends."""

    def keep(self, session: Session, log: Path | None) -> None:
        secrets = session.secrets
        if secrets is None or log is None or not session.transcript.game:
            return
        self.game = session.transcript.game.hex()
        if self.claimed is None or not self.claimed.holds(self.home, self.game):
            # A new game's id (a keeper may serve a game's rematches): nobody else holds it.
            if self.claimed is not None:
                self.claimed.release()  # the game before's, should it be held still
            # No patience: this runs in a daemon's event loop (RESUME_PATIENCE_S says why
            # a new game needs none).
            self.claimed = claim(self.home, self.game)
        self.now = self.now or session.transcript.last_at(session.role) or 0
        keep(
            self.home,
            Unfinished(
                self.game,
                session.role,
                session.name,
                log,
                secrets,
                invite=self.invite,
                port=self.port,
                started=self.now,
            ),
        )

    def forget(self) -> None:
        if self.game:
            forget(self.home, self.game)
        if self.claimed is not None:
            self.claimed.release(game_over=True)
            self.claimed = None
