"""The referee: games judged from their logs and nothing else (SPEC.md section 16).

``judge_logs`` takes any number of logs, groups them by game id and judges
each game once, from every log given of it (``judging``).  ``judge_log`` is
the same for the one log a peer, an analysis or a benchmark has at hand.
Every frame is replayed through the same ``Transcript`` the peers use, so a
referee applies exactly the rules the players did: each message's signature
and place in the hash chain, the turn order, every proof an answer carries,
both reveals against their commitments, each fleet's legality, every answer
against the revealed fleet, and each time claim against its sender's clock.
"""

from __future__ import annotations

from collections.abc import Sequence

from statki_net.protocol.logformat import LogContents, read_log
from statki_net.protocol.transcript import Transcript
from statki_net.referee.judging import NamedLog, judge_game, judge_read
from statki_net.referee.reading import game_id_of, read_as_played, read_records
from statki_net.referee.report import Judgement, fingerprint
from statki_net.referee.violations import Kind, Violation, ViolationClass

__all__ = [
    "Judgement",
    "Kind",
    "NamedLog",
    "Violation",
    "ViolationClass",
    "fingerprint",
    "game_id_of",
    "group",
    "judge_game",
    "judge_log",
    "judge_logs",
    "judge_own_log",
    "replay_log",
]


def group(logs: Sequence[NamedLog]) -> list[list[NamedLog]]:
    """The logs of each game, in the order given; a log with no game id is a game alone."""
    games: dict[bytes | int, list[NamedLog]] = {}
    for index, log in enumerate(logs):
        games.setdefault(game_id_of(log.contents) or index, []).append(log)
    return list(games.values())


def judge_logs(logs: Sequence[NamedLog], *, every_signature: bool = False) -> list[Judgement]:
    """Each game these logs hold, judged once from all its logs, in the order given."""
    return [judge_game(game, every_signature=every_signature) for game in group(logs)]


def judge_log(data: bytes, name: str = "log", *, every_signature: bool = False) -> Judgement:
    """Judge one log file's bytes; raises NotALog only when it is not a statki log.

    ``every_signature``: see ``judge_game``."""
    return judge_game([NamedLog(name, read_log(data))], every_signature=every_signature)


def judge_own_log(data: bytes, played: Transcript, name: str = "log") -> Judgement:
    """``judge_log`` of the log a peer wrote as it played ``played``, without replaying
    it when it holds exactly that transcript's frames (``reading.read_as_played``).  Any
    other log is judged as ``judge_log`` judges it.

    Not quite the referee's judgement: ``played`` checked the other side's frames as they
    came, but took this side's own answers and reveal as vouched (``Transcript.append``:
    an honest side composed them from its own fleet), so a fault in this program's own
    proofs or reveal shows to ``statki verify`` of the log, not here.  Re-checking them
    by a replay would add about 11% to a game's CPU, a full replay 32% (README, "A
    peer's judgement of its own log"): the peer's check of each frame is relied on."""
    contents = read_log(data)
    log = read_as_played(name, contents, played)
    if log is None:
        return judge_log(data, name)
    return judge_read([NamedLog(name, contents)], [log])


def replay_log(contents: LogContents) -> tuple[Transcript, Violation | None]:
    """The log's transcript, as far as it can be trusted, and the first thing wrong with it."""
    log = read_records("log", contents)
    return log.transcript, (log.violations[0] if log.violations else None)
