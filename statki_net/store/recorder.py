"""Recording one game: its log file, its history row (start and end), the referee's verdict.

One component for every game this side plays: a network game
(``statki_net.net.connection``) and a game against the computer in this
process (``statki_client.local``).  The caller says what happened, in order:

    recorder = GameRecorder(home / "logs", history, peer="[::1]:50123")
    recorder.open(session, now)          # the log file, with any frames said so far
    recorder.frame(frame)                # each signed frame, as it is added
    recorder.sync()                      # on disk, before this side's words leave
    recorder.evidence(frame, code, now)  # the peer's word that did not join the transcript
    recorder.note("...", now)            # anything unsigned: a drop, a timeout
    recorder.talk(frame)                 # a line of the players' talk, said or heard
    recorder.started(session, now)       # once both hellos are known: the history row
    verdict = recorder.judge()           # close the log and judge it (blocking: a thread)
    recorder.ended(session, ending, verdict, now)

Every step is a no-op where there is nothing to record (no log directory, no
history), and recording never raises for a full disk at the end: what could not be
recorded is said on standard error.

When a game begins to be recorded (SPEC.md, section 15): a guest's, when it
starts to play (it has dialled the host); a host's, only once its guest is
admitted (``statki_net.net.admission``: the hello said on that connection is
the log's first frame, the guest's hello the next).  The connections the
host screened and turned away, and the hellos it said on them, are no game:
nothing makes a recorder for them, so they leave no log file and no history
row.
"""

from __future__ import annotations

import dataclasses
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from statki_net.game.errors import StatkiError
from statki_net.game.rules import rules_label
from statki_net.game.words import N_, SILENCE, Phrase, Words, phrase
from statki_net.protocol.endings import End, Ending, Standing
from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import Note, Signed, header_record
from statki_net.protocol.session import Session
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Frame, Role
from statki_net.referee.verify import Judgement, fingerprint, judge_log, judge_own_log
from statki_net.store.failures import system_words
from statki_net.store.history import GameRow, History
from statki_net.store.language import words
from statki_net.store.logwriter import LogWriter

MAX_PEER = 200
"""Characters of the peer's description kept in the log's header."""
NO_ID = "log:"
"""What names a game without a game id in the history, before its log's name (no hex
game id begins so)."""


@dataclass(frozen=True)
class LogVerdict:
    """The referee's judgement of this side's own log: its result, its standing, one line.

    A peer tells its player how the game ended in the referee's words, by
    judging its own log as a referee does (SPEC.md, section 16).
    """

    valid: bool
    headline: str
    """The referee's line: the result and the standing."""
    ending: Ending | None = None
    """The result; None when the log holds no ending (unfinished, disputed, unreadable)."""
    standing: Standing = Standing.INVALID
    judgement: Judgement | None = field(default=None, compare=False)
    """What the line says it of."""
    said: Phrase = field(default=SILENCE, compare=False)
    """The line as a phrase, to say it again in a person's language (``headline_in``) and to
    keep in the history."""

    @classmethod
    def of(cls, judgement: Judgement) -> LogVerdict:
        said = judgement.headline_phrase()
        return cls(
            judgement.valid, str(said), judgement.ending, judgement.standing, judgement, said
        )

    def headline_in(self, words: Words) -> str:
        """The referee's line in ``words``' language (``headline`` is English, for machines)."""
        return self.said.in_words(words) if self.said else self.headline


def rules_name(session: Session) -> str:
    """The rules as the history and the front ends name them (``rules_label``)."""
    rules = session.rules
    if rules is None:
        return ""
    return rules_label(rules)


def ending_of(session: Session) -> Ending:
    """How the game ended for this side, once it is closed: ``Session.ending``.

    A session closed with neither an ending nor a failure (nothing said why)
    is counted as a connection that closed.
    """
    return session.ending or Ending(End.NO_GAME, reason=phrase(N_("the connection closed")))


def say_on_stderr(said: Phrase) -> None:
    """A line for whoever runs this program, in their language, on standard error."""
    print(f"statki: {said.in_words(words())}", file=sys.stderr, flush=True)


class GameRecorder:
    """One game's log file and history row; see the module docstring."""

    def __init__(
        self,
        log_dir: Path | None,
        history: History | None,
        *,
        peer: str = "",
        complain: Callable[[Phrase], None] = say_on_stderr,
    ) -> None:
        self.log_dir = log_dir
        self.history = history
        self.peer = peer
        """Who the opponent is, for the log's header: an address, or the computer."""
        self.log: LogWriter | None = None
        self.game_id = ""
        """The protocol's game id (hex) once the history row is written."""
        self._opened = 0
        """When the log was started, ms since 1970: a game that never had an id began then."""
        self.reader: Role | None = None
        """The side whose log it is, once open: its player reads the verdict (``judge``)."""
        self._ended = False
        self.complain = complain
        """Told, in a phrase, what could not be recorded: by default standard error."""

    @property
    def log_path(self) -> Path | None:
        return self.log.path if self.log else None

    def open(self, session: Session, now: int) -> None:
        """Start the log file (once), with every frame the transcript already holds."""
        if self.log_dir is None or self.log is not None:
            return
        self.reader = session.role
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now / 1000))
        name = f"{stamp}-{session.role.value}-{secrets.token_hex(4)}.statki"
        header = header_record(session.role.value, session.software, now)
        if self.peer:
            header["peer"] = self.peer[:MAX_PEER]
        self.log = LogWriter(self.log_dir / name, header)
        self._opened = now
        for frame in session.transcript.frames:
            self.log.frame(frame)

    @classmethod
    def going_on(cls, log: Path, history: History | None, session: Session) -> GameRecorder:
        """The recorder of a game restored after this side's program stopped: its log goes
        on, and its history row is the one written when it started."""
        recorder = cls(log.parent, history)
        recorder.log = LogWriter.appending(log)
        recorder.reader = session.role
        recorder.game_id = session.transcript.game.hex()
        return recorder

    def frame(self, frame: Frame, got: int | None = None) -> None:
        if self.log:
            self.log.frame(frame, got)

    def sync(self) -> None:
        """Everything logged so far on disk: called before this side's words leave."""
        if self.log:
            self.log.sync()

    def resume(self, *frames: Signed) -> None:
        """The resumes said on a new connection (the peer's, then this side's)."""
        if self.log:
            for frame in frames:
                self.log.resume(frame)

    def evidence(self, frame: Signed, code: Code, at: int) -> None:
        """The peer's word that did not join the transcript (SPEC.md, section 15)."""
        if self.log:
            self.log.evidence(frame, code, at)

    def note(self, text: str, now: int, data: bytes = b"") -> None:
        if self.log:
            self.log.note(Note(text, now, data))

    def talk(self, frame: Signed) -> None:
        """A line of the players' talk, said or heard (SPEC.md section 15, the talk record)."""
        if self.log:
            self.log.talk(frame)

    def started(self, session: Session, now: int) -> None:
        """Record the game in the history (once), when both hellos have made its id."""
        if self.game_id or not session.transcript.game:
            return
        self.game_id = session.transcript.game.hex()
        if self.log is not None:
            self.log.sync()  # the log on disk before the history row that names it
        try:
            self._row(session, now)
        except (StatkiError, OSError) as error:  # the game goes on: its log holds it
            self._unrecorded(N_("the history does not hold the game in {log}: {error}"), error)

    def _row(self, session: Session, now: int) -> None:
        """The history row of the game ``game_id`` names, begun at ``now``."""
        if self.history is None or self.log is None:
            return  # a history row only for a log that exists
        hello = session.transcript.sides[session.peer].hello
        self.history.started(
            GameRow(
                game_id=self.game_id,
                started=now,
                my_role=session.role.value,
                opponent_key=fingerprint(hello.key) if hello else "",
                opponent_name=hello.name if hello else "",
                rules=rules_name(session),
                log_path=str(self.log.path),
            )
        )

    def judge(self, played: Transcript | None = None) -> LogVerdict | None:
        """Close the log and judge it as a referee would (None without a log); never raises.

        It reads the whole file: a network game calls it off the event loop.  Given
        the transcript the game was ``played`` with, which judged every frame of the
        other side as it came, a file that holds exactly its frames is not replayed
        again (``judge_own_log``): the same judgement for a fraction of the time, save
        that this side's own answers and reveal are taken as it composed them.
        """
        if not self.log:
            return None
        try:
            self.log.close()
            data = self.log.path.read_bytes()
            judgement = judge_log(data) if played is None else judge_own_log(data, played)
        except (StatkiError, OSError) as error:
            inner = error.as_phrase() if isinstance(error, StatkiError) else system_words(error)
            said = phrase(N_("cannot judge the log: {error}"), error=inner)
            return LogVerdict(False, str(said), said=said)
        if played is not None and self.reader is not None and judgement.reason == played.reason:
            # Its own player reads the line: the reason as that side reads it ("you did not
            # decide ...", not "the guest did not ..."); a referee of the file says the latter.
            judgement = dataclasses.replace(judgement, reason=played.reason_to(self.reader))
        return LogVerdict.of(judgement)

    def ended(self, session: Session, ending: Ending, verdict: LogVerdict | None, now: int) -> None:
        """Record how the game ended in its history row (once); never raises.

        A game that ended before both hellos made its id (a guest whose host closed, or
        said nothing, before its hello) is in the history too, as every game with a log
        is: its row is named by its log (``NO_ID``) and begins when the log did.  A
        history that cannot take the row (a full disk, a database locked too long) must
        not hide the outcome the log holds: why is said (``complain``), a line naming the
        log."""
        if self._ended or self.history is None or self.log is None:
            return
        self._ended = True
        me = session.role
        t = session.transcript
        try:
            if not self.game_id:
                self.game_id = NO_ID + self.log.path.stem
                self._row(session, self._opened)
            self.history.ended(
                self.game_id,
                ended=now,
                result=ending.result(me),
                end_reason=ending.end,
                my_shots=t.shots_by(me),
                their_shots=t.shots_by(me.other),
                verdict=verdict.said if verdict else SILENCE,
            )
        except (StatkiError, OSError) as error:
            self._unrecorded(
                N_("the history does not hold the end of the game in {log}: {error}"), error
            )

    def _unrecorded(self, what: str, error: StatkiError | OSError) -> None:
        """The history could not take what the log holds: say why."""
        inner = error.as_phrase() if isinstance(error, StatkiError) else system_words(error)
        self.complain(phrase(what, log=str(self.log_path), error=inner))
