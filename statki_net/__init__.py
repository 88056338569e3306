"""statki: the Battleship of Polish school notebooks, played peer to peer.

The pure core (values in, values out): ``rules``, ``board``, ``fleet``,
``battle``, ``replay`` (the game); ``commitment``, ``wire``, ``transcript``,
``session`` (the protocol, sans I/O); ``verify`` (the referee); ``strategies``,
``density`` and ``analysis`` (the computer player).  Around it, thin layers: ``gamelog``,
``history``, ``identity`` (files), ``connection``, ``daemon`` (asyncio) and the
command line in ``commands``.
"""

from .analysis import Analysis, analyze
from .battle import (
    Answer,
    Cell,
    Defence,
    Outcome,
    Score,
    Sea,
    shoots_again,
    tells_cells,
    volley_size,
)
from .board import bit, bitboard_of, parse_square, square_name, squares_of
from .commitment import FleetCommitment, Opening, coin_commitment, ships_digest, toss
from .errors import ProtocolError, StatkiError, UsageError
from .fleet import (
    Fleet,
    FleetProblem,
    Ship,
    fleet_problems,
    fleet_text,
    random_fleet,
    read_fleet_text,
)
from .gamelog import MAGIC, LogWriter, NotALog, read_log
from .replay import Contradiction, ReplayReport, Volley, replay
from .rules import PRESETS, Report, Ruleset, Touching, Turns, ruleset_named
from .session import Event, Session
from .strategies import STRATEGIES, choose_shots, place_fleet
from .transcript import TABLE, End, Finding, Phase, Transcript
from .verify import Judgement, Violation, fingerprint, judge, judge_log
from .version import __version__
from .wire import PROTOCOL_VERSION, Code, Frame, FrameReader, Limits, Role

__all__ = [
    "MAGIC",
    "PRESETS",
    "PROTOCOL_VERSION",
    "STRATEGIES",
    "TABLE",
    "Analysis",
    "Answer",
    "Cell",
    "Code",
    "Contradiction",
    "Defence",
    "End",
    "Event",
    "Finding",
    "Fleet",
    "FleetCommitment",
    "FleetProblem",
    "Frame",
    "FrameReader",
    "Judgement",
    "Limits",
    "LogWriter",
    "NotALog",
    "Opening",
    "Outcome",
    "Phase",
    "ProtocolError",
    "ReplayReport",
    "Report",
    "Role",
    "Ruleset",
    "Score",
    "Sea",
    "Session",
    "Ship",
    "StatkiError",
    "Touching",
    "Transcript",
    "Turns",
    "UsageError",
    "Violation",
    "Volley",
    "__version__",
    "analyze",
    "bit",
    "bitboard_of",
    "choose_shots",
    "coin_commitment",
    "fingerprint",
    "fleet_problems",
    "fleet_text",
    "judge",
    "judge_log",
    "parse_square",
    "place_fleet",
    "random_fleet",
    "read_fleet_text",
    "read_log",
    "replay",
    "ruleset_named",
    "ships_digest",
    "shoots_again",
    "square_name",
    "squares_of",
    "tells_cells",
    "toss",
    "volley_size",
]
