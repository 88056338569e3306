"""statki: the Battleship of Polish school notebooks, played peer to peer."""

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
from .replay import Contradiction, ReplayReport, Volley, replay
from .rules import PRESETS, Report, Ruleset, Touching, Turns, ruleset_named
from .version import __version__

__all__ = [
    "PRESETS",
    "Answer",
    "Cell",
    "Contradiction",
    "Defence",
    "Fleet",
    "FleetProblem",
    "Outcome",
    "ProtocolError",
    "ReplayReport",
    "Report",
    "Ruleset",
    "Score",
    "Sea",
    "Ship",
    "StatkiError",
    "Touching",
    "Turns",
    "UsageError",
    "Volley",
    "__version__",
    "bit",
    "bitboard_of",
    "fleet_problems",
    "fleet_text",
    "parse_square",
    "random_fleet",
    "read_fleet_text",
    "replay",
    "ruleset_named",
    "shoots_again",
    "square_name",
    "squares_of",
    "tells_cells",
    "volley_size",
]
