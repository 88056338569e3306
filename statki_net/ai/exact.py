"""Exact whole-fleet counts by a transfer matrix over the board's squares: the bench's reference.

Where ships may not share a side (classic, corners) a fleet is nothing but
which squares hold a ship: the ships are the lines those squares form.  So
the fleets consistent with a view can be counted square by square, in
reading order, keeping only what the squares already decided say about the
ones to come (a "profile" dynamic program):

- per column, the last square decided in it: empty, part of a ship that is
  finished below (a horizontal ship, or a vertical one that ended), or the
  bottom of a vertical line still open (its length, and whether any of its
  squares is unknown, not a hit: a ship wholly on hits would have sunk);
- whether the square up and to the left holds a ship (no corner touching);
- how many ships of each length are finished.

One pass forwards counts the ways to reach each state, one backwards the
ways to finish from it; a square's probability of holding a ship is the sum,
over the states that put a ship there, of the ways in times the ways out,
over the total.  The counts are whole integers, so the probabilities are
exact, and the backward counts draw a fleet uniformly at random as well.

What makes it fast enough for the bench (``count``): a frontier (the first
two items) is one integer, and its ways for every count of finished ships
are one packed integer, a 64-bit slot per count, so a step is a mask, a
shift and an add on one integer instead of one per count; the steps from
each frontier are worked out once per rules and fleet and kept; a
square's fleets are paired from the two passes only where its row ends;
a position is counted from the last count's passes, of which the rows its
view leaves unchanged still stand (``recount``); and every position counted
is kept, since exact greedy is deterministic and a bench's games open alike.

It is the bench's yardstick for ``density`` (``statki bench ai --strategies
exact``), still too slow for play: a classic move takes seconds of CPU in
the first ten shots, a tenth of a second after twenty (the README has the
figures).
Not for touching ships (five-ships): there squares do not tell ships apart.
Pure: values in, values out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from math import comb
from operator import mul
from random import Random

from statki_net.ai.density import read_view
from statki_net.game.battle import Sea, tells_cells
from statki_net.game.board import MAX_SIZE, bit, squares_of
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, placements
from statki_net.game.rules import Ruleset, Touching

EMPTY = 0
CLOSED = 1
"""A ship's square below which nothing may stand: the ship is finished there."""

State = tuple[tuple[int, ...], bool, tuple[int, ...]]
"""(per column the last square's status, whether up-left holds a ship, ships finished per length).

A status is EMPTY, CLOSED, or an open line: ``4 * length + 2 * horizontal + any_free``,
where ``any_free`` says the line has a square that is not a hit.  A horizontal line is open
only at its right end in the row being decided; a vertical one at its bottom square.
"""


def _line(length: int, horizontal: bool, any_free: bool) -> int:
    return 4 * length + 2 * horizontal + any_free


def _is_line(status: int) -> bool:
    return status >= 4


def _length(status: int) -> int:
    return status // 4


def _is_horizontal(status: int) -> bool:
    return _is_line(status) and bool(status & 2)


def _any_free(status: int) -> bool:
    return _is_line(status) and bool(status & 1)


@dataclass(frozen=True)
class Problem:
    """What the fleets to count must agree with."""

    rules: Ruleset
    free: int
    """Squares that may hold a ship unseen."""
    hits: int
    """Squares that hold a ship afloat: an open hit."""
    need: tuple[int, ...]
    """Ships to place, per length (index 0 unused): those on ``sunk`` among them."""
    rows: int = 0
    """Rows of the board to count on (from the top; 0: all): the rest are taken to be empty."""
    sunk: int = 0
    """Squares of sunk ships, counted among ``need``: ships that stand wholly on known squares.

    A sunk ship is a line of squares marked empty around, so it is one
    ship of its length; counting it in the fleet, rather than taking it out
    of the ships to place, keeps the ships to place the whole fleet's from
    the first shot to the last, and a sink changes only the rows it marks:
    the position after it is counted from the last one's passes.
    """

    @property
    def area(self) -> int:
        return self.rules.size * (self.rows or self.rules.size)

    @property
    def longest(self) -> int:
        return max((length for length, many in enumerate(self.need) if many), default=0)


def problem_of(sea: Sea) -> Problem:
    """The counting problem a shooter's view poses (ships that may not share a side only)."""
    rules = sea.rules
    if rules.touching is Touching.ANY or not tells_cells(rules):
        raise UsageError("exact counting needs ships that never share a side and told squares")
    view = read_view(sea)
    need = Counter(rules.fleet)
    return Problem(
        rules, view.free, view.hits, tuple(need[n] for n in range(rules.size + 1)), sunk=sea.sunk
    )


def _finished(
    counts: tuple[int, ...], status: int, need: tuple[int, ...]
) -> tuple[int, ...] | None:
    """``counts`` with the line ``status`` finished as a ship, or None where it may not be."""
    length = _length(status)
    if not _any_free(status) or counts[length] >= need[length]:
        return None
    return (*counts[:length], counts[length] + 1, *counts[length + 1 :])


def _steps(problem: Problem, square: int, state: State) -> list[tuple[State, bool]]:
    """The states after deciding ``square``: (the state, whether the square holds a ship)."""
    size = problem.rules.size
    column = square % size
    row_end = column == size - 1
    columns, up_left, counts = state
    up = columns[column]
    left = columns[column - 1] if column else EMPTY
    up_right = columns[column + 1] if not row_end else EMPTY
    is_sunk = bool(problem.sunk >> square & 1)
    is_hit = is_sunk or bool(problem.hits >> square & 1)
    # A line may be finished as a ship where some square of it is not a hit: a ship wholly on
    # hits would have sunk, and a sunk one's squares say it did.
    is_free = bool(problem.free >> square & 1)
    frees = is_free or is_sunk
    up_holds = up != EMPTY
    result: list[tuple[State, bool]] = []

    def close_row(cols: list[int], finished: tuple[int, ...] | None, ship: bool) -> None:
        """Keep the state reached; at the row's end an open horizontal line is a finished ship."""
        if finished is not None and row_end and _is_horizontal(cols[column]):
            finished = _finished(finished, cols[column], problem.need)
            cols[column] = CLOSED
        if finished is not None:
            result.append(((tuple(cols), False if row_end else up_holds, finished), ship))

    if not is_hit:  # no ship here
        cols = list(columns)
        cols[column] = EMPTY
        finished: tuple[int, ...] | None = counts
        if _is_line(up):  # a vertical line above ends here
            finished = _finished(counts, up, problem.need)
        if finished is not None and _is_horizontal(left):
            finished = _finished(finished, left, problem.need)
            cols[column - 1] = CLOSED
        close_row(cols, finished, False)
    if not (is_hit or is_free) or up == CLOSED:  # a ship here: not below a finished one
        return result
    if problem.rules.touching is Touching.NONE and (up_left or up_right != EMPTY):
        return result  # nor corner to corner
    cols = list(columns)
    if _is_line(up):  # the vertical line above grows down
        if left != EMPTY or _length(up) + 1 > problem.longest:
            return result
        cols[column] = _line(_length(up) + 1, False, _any_free(up) or frees)
    elif left == EMPTY:
        cols[column] = _line(1, False, frees)
    elif _is_horizontal(left) or _length(left) == 1:  # the line on the left grows right
        if _length(left) + 1 > problem.longest:
            return result
        cols[column - 1] = CLOSED
        cols[column] = _line(_length(left) + 1, True, _any_free(left) or frees)
    else:  # beside a vertical line
        return result
    close_row(cols, counts, True)
    return result


def _start(problem: Problem) -> State:
    return ((EMPTY,) * problem.rules.size, False, (0,) * len(problem.need))


Frontier = tuple[tuple[int, ...], bool]
"""A state without the ships finished: per column the last status, and up-left."""
Move = tuple[Frontier, tuple[int, ...], bool]
"""One step: the frontier reached, the ships it finishes (per length), a ship on the square."""


class _Packing:
    """Ships finished per length, as one slot of a packed integer: a polynomial in one go.

    A frontier's ways for every count of finished ships are one Python
    integer, ``width`` bits per count, so the counting is done per frontier
    (a shift, a mask and an add) and not per frontier and count: what makes
    drawing a fleet from half a classic board take seconds, not minutes.
    """

    def __init__(self, need: tuple[int, ...], width: int) -> None:
        self.need = need
        self.width = width
        self.strides = [1] * len(need)
        for length in range(1, len(need)):
            self.strides[length] = self.strides[length - 1] * (need[length - 1] + 1)
        self.slots = self.strides[-1] * (need[-1] + 1)
        self.slot = (1 << width) - 1
        self._masks: dict[tuple[int, ...], int] = {}

    def index(self, counts: Sequence[int]) -> int:
        return sum(c * stride for c, stride in zip(counts, self.strides, strict=True))

    def digits(self, slot: int) -> tuple[int, ...]:
        return tuple(
            slot // stride % (n + 1) for stride, n in zip(self.strides, self.need, strict=True)
        )

    def room(self, finished: tuple[int, ...]) -> int:
        """The slots of the counts that ``finished`` more ships still keep within the fleet."""
        mask = self._masks.get(finished)
        if mask is None:
            mask = 0
            for slot in range(self.slots):
                counts = self.digits(slot)
                if all(c + f <= n for c, f, n in zip(counts, finished, self.need, strict=True)):
                    mask |= self.slot << (slot * self.width)
            self._masks[finished] = mask
        return mask

    def get(self, packed: int, counts: Sequence[int]) -> int:
        return packed >> (self.width * self.index(counts)) & self.slot


@dataclass(frozen=True)
class Table:
    """A problem's consistent fleets, counted: how many, and how many put a ship on each square."""

    problem: Problem
    fleets: int
    counts: tuple[int, ...]
    """Per square of the counted rows, the consistent fleets with a ship there."""

    def ship_counts(self) -> tuple[int, ...]:
        return self.counts

    def probabilities(self) -> tuple[float, ...]:
        fleets = self.fleets
        if not fleets:
            return (0.0,) * self.problem.rules.size**2
        return tuple(
            count / fleets if self.problem.free >> s & 1 else 0.0
            for s, count in enumerate(self.counts)
        ) + (0.0,) * (self.problem.rules.size**2 - self.problem.area)


# A square's kind, all the steps from it need to know of the view.
_EMPTY_SQUARE, _FREE_SQUARE, _HIT_SQUARE, _SUNK_SQUARE = 0, 1, 2, 3

_STATUS_BITS = (4 * MAX_SIZE + 3).bit_length()
"""Bits of one column's status in a frontier packed as one integer: room for the longest line."""

Step = tuple[int, int, int]
"""One step from a packed frontier: (the frontier reached, the bit shift, the mask; mask 0: none).

The ways of a frontier for every count of finished ships are one integer,
a slot of ``64 * words`` bits per count (``_Packing``): finishing ships
moves each count's slot up by the shift, once the mask has dropped the
counts it would take past the fleet.
"""


def _pack(frontier: Frontier) -> int:
    columns, up_left = frontier
    packed = int(up_left) << (_STATUS_BITS * len(columns))
    for column, status in enumerate(columns):
        packed |= status << (_STATUS_BITS * column)
    return packed


def _unpack(packed: int, size: int) -> Frontier:
    slot = (1 << _STATUS_BITS) - 1
    columns = tuple(packed >> (_STATUS_BITS * column) & slot for column in range(size))
    return columns, bool(packed >> (_STATUS_BITS * size) & 1)


def _holds_ship(packed: int, column: int) -> bool:
    """Whether the frontier's last square in ``column`` holds a ship (any status but EMPTY)."""
    return bool(packed >> (_STATUS_BITS * column) & ((1 << _STATUS_BITS) - 1))


def _words(rules: Ruleset, need: tuple[int, ...]) -> int:
    """64-bit words per count's slot so that no count, forwards or backwards, ever overflows it.

    A count is of ship positions chosen on the board, so for ``c`` ships of
    length ``L`` it is at most ``comb(P, c)`` with ``P`` the positions of such
    a ship on the open board; classic is below 2**63, one word.
    """
    bound = 1
    for length, many in enumerate(need):
        if many:
            fits = len(placements(rules, length))
            bound *= max(comb(fits, c) for c in range(many + 1))
    return max(1, -(-bound.bit_length() // 64))


@dataclass
class _Steps:
    """The steps from every packed frontier met so far, per column and kind of square.

    They depend on the rules and the fleet to place only, never on the
    view, so positions of one game (and games of one bench) share them.
    """

    rules: Ruleset
    need: tuple[int, ...]
    packing: _Packing
    known: dict[tuple[int, int], dict[int, list[Step]]]
    closings: dict[int, int | None] = field(default_factory=dict)
    columns: dict[int, tuple[int, ...]] = field(default_factory=dict)

    def closing_ways(self, packed: int) -> int | None:
        """The ways out of a frontier at the board's end: its open lines finished, or None."""
        if packed not in self.closings:
            closing = _closing_of(_unpack(packed, self.rules.size), len(self.need))
            fits = closing is not None and all(
                c <= n for c, n in zip(closing, self.need, strict=True)
            )
            self.closings[packed] = (
                1 << (self.packing.width * self.packing.index(closing))
                if closing is not None and fits
                else None
            )
        return self.closings[packed]

    def ship_columns(self, packed: int) -> tuple[int, ...]:
        """The columns whose last square decided in the frontier holds a ship."""
        found = self.columns.get(packed)
        if found is None:
            found = tuple(c for c in range(self.rules.size) if _holds_ship(packed, c))
            self.columns[packed] = found
        return found

    def of(self, column: int, kind: int) -> dict[int, list[Step]]:
        return self.known.setdefault((column, kind), {})

    def work_out(self, column: int, kind: int, packed: int) -> list[Step]:
        size = self.rules.size
        square = bit(column)
        roomy = tuple(2 if n else 0 for n in self.need)
        problem = Problem(
            self.rules,
            square if kind == _FREE_SQUARE else 0,
            square if kind == _HIT_SQUARE else 0,
            roomy,
            sunk=square if kind == _SUNK_SQUARE else 0,
        )
        zero = (0,) * len(self.need)
        steps: list[Step] = []
        for (columns, up_left, finished), _ in _steps(
            problem, column, (*_unpack(packed, size), zero)
        ):
            if any(f > n for f, n in zip(finished, self.need, strict=True)):
                continue
            reached = _pack((columns, up_left))
            if finished == zero:
                steps.append((reached, 0, 0))
            else:
                shift = self.packing.width * self.packing.index(finished)
                steps.append((reached, shift, self.packing.room(finished)))
        self.of(column, kind)[packed] = steps
        return steps


_KEPT_STEPS = 24
"""Fleets whose steps are kept (each some tens of MB, seconds to work out): a game's positions all
count the whole fleet (its sunk ships among them, ``Problem.sunk``), so a run meets one per rules
and the clustered fleets a few more."""
_steps_kept: dict[tuple[Ruleset, tuple[int, ...]], _Steps] = {}


def _steps_for(rules: Ruleset, need: tuple[int, ...]) -> _Steps:
    key = (rules, need)
    found = _steps_kept.pop(key, None)
    if found is None:
        found = _Steps(rules, need, _Packing(need, 64 * _words(rules, need)), {})
        if len(_steps_kept) >= _KEPT_STEPS:
            del _steps_kept[next(iter(_steps_kept))]
    _steps_kept[key] = found  # the most recently used last
    return found


def _kind(problem: Problem, square: int) -> int:
    if problem.sunk >> square & 1:
        return _SUNK_SQUARE
    if problem.hits >> square & 1:
        return _HIT_SQUARE
    return _FREE_SQUARE if problem.free >> square & 1 else _EMPTY_SQUARE


def _slot_values(packed: int, packing: _Packing) -> Sequence[int]:
    """Each count's slot of ``packed``, lowest first."""
    words = packing.width // 64
    raw = memoryview(packed.to_bytes(8 * words * packing.slots, "little")).cast("Q")
    if words == 1:
        return raw
    return [
        sum(raw[slot * words + w] << (64 * w) for w in range(words))
        for slot in range(packing.slots)
    ]


@dataclass(frozen=True)
class _Passes:
    """A problem's two passes, kept at its row boundaries: the next position differs in a few rows.

    The forward ways at a boundary depend only on the rows above it, the
    backward ways only on the rows below; so a problem that differs from
    this one in rows ``first`` to ``last`` only keeps the forward pass down
    to ``first`` and the backward pass up from ``last + 1`` (``recount``).
    """

    table: Table
    kinds: tuple[int, ...]
    keys: tuple[tuple[int, ...], ...]
    """Per square, the frontiers the forward pass meets before deciding it."""
    forward: tuple[dict[int, int], ...]
    """Per row boundary (0 to the rows), the ways into each frontier met there."""
    backward: tuple[dict[int, int], ...]
    """Per row boundary, the ways out of each frontier the forward pass met there (none: 0)."""


def count(problem: Problem) -> Table:
    """Every consistent fleet, counted forwards and backwards over the squares.

    Forwards: the ways to reach each frontier, per count of ships finished;
    backwards: the ways to finish the board from it, per count finished from
    there on.  A square holds a ship in the fleets whose frontier, once the
    square's row is done, says so; their number is the ways in times the ways
    out whose counts add up to the fleet, summed over those frontiers (a
    count's slot index and its complement's add up to the last slot's).
    """
    return recount(problem, None).table


def _same_board(problem: Problem, kept: _Passes | None) -> bool:
    """Whether ``kept`` counted the same rules, ships to place and rows: its passes may serve."""
    if kept is None:
        return False
    old = kept.table.problem
    return (old.rules, old.need, old.area) == (problem.rules, problem.need, problem.area)


def _changed_rows(problem: Problem, kept: _Passes | None) -> tuple[int, int]:
    """The first and last rows where ``problem``'s view differs from ``kept``'s (all: none kept)."""
    size, height = problem.rules.size, problem.area // problem.rules.size
    if kept is None or not _same_board(problem, kept):
        return 0, height - 1
    old = kept.table.problem
    changed = (problem.free ^ old.free) | (problem.hits ^ old.hits) | (problem.sunk ^ old.sunk)
    if not changed:
        return height, -1
    return ((changed & -changed).bit_length() - 1) // size, (changed.bit_length() - 1) // size


def recount_cost(problem: Problem, kept: _Passes | None) -> int:
    """Rows the two passes decide anew when ``problem`` is counted from ``kept``'s passes."""
    first, last = _changed_rows(problem, kept)
    height = problem.area // problem.rules.size
    return max(0, height - first) + last + 1


def recount(problem: Problem, kept: _Passes | None) -> _Passes:
    """``problem`` counted, reusing whatever of ``kept``'s passes its view leaves unchanged."""
    size, area = problem.rules.size, problem.area
    height = area // size
    table = _steps_for(problem.rules, problem.need)
    packing = table.packing
    kinds = tuple(_kind(problem, square) for square in range(area))
    start = _pack(((EMPTY,) * size, False))
    first, last = _changed_rows(problem, kept)
    if kept is None or not _same_board(problem, kept):
        keys: list[tuple[int, ...]] = []
        forward: list[dict[int, int]] = [{start: 1}]
    else:
        if first > last:
            return kept
        keys = list(kept.keys[: first * size])
        forward = list(kept.forward[: first + 1])
    layer = forward[-1]
    for square in range(first * size, area):
        column = square % size
        known = table.of(column, kinds[square])
        after: dict[int, int] = {}
        ways_after = after.get
        for packed, ways in layer.items():
            steps = known.get(packed)
            if steps is None:
                steps = table.work_out(column, kinds[square], packed)
            for reached, shift, mask in steps:
                # Kept even where no count survives the mask: the backward pass then counts
                # every way out of a frontier, not only those this view's ways in pair with,
                # so that another view's passes may reuse them.
                after[reached] = ways_after(reached, 0) + ((ways & mask) << shift if mask else ways)
        keys.append(tuple(layer))
        layer = after
        if column == size - 1:
            forward.append(layer)
    backward: list[dict[int, int]] = [{}] * (height + 1)
    backward[height] = {
        packed: closing for packed in layer if (closing := table.closing_ways(packed)) is not None
    }
    top = height  # the backward pass is decided anew from this boundary up
    if kept is not None and _same_board(problem, kept):
        # Below the change a boundary keeps its ways out if the old pass met every frontier met now.
        while top - 1 > last and forward[top - 1].keys() <= kept.forward[top - 1].keys():
            top -= 1
            backward[top] = kept.backward[top]
    out = backward[top]
    for square in range(top * size - 1, -1, -1):
        known = table.of(square % size, kinds[square])
        before: dict[int, int] = {}
        ways_out = out.get
        for packed in keys[square]:
            total = 0
            for reached, shift, mask in known[packed]:
                later = ways_out(reached)
                if later:
                    total += (later & mask) << shift if mask else later
            if total:
                before[packed] = total
        out = before
        if square % size == 0:
            backward[square // size] = out
    ships = [0] * area
    for boundary in range(1, height + 1):
        _add_row(ships, (boundary - 1) * size, forward[boundary], backward[boundary], table)
    fleets = _slot_values(backward[0].get(start, 0), packing)[packing.slots - 1]
    return _Passes(
        Table(problem, fleets, tuple(ships)),
        kinds,
        tuple(keys),
        tuple(forward),
        tuple(backward),
    )


def _add_row(
    ships: list[int],
    first: int,
    ways_in: dict[int, int],
    ways_out: dict[int, int],
    table: _Steps,
) -> None:
    """Add to each square of the row from ``first`` the fleets with a ship there."""
    packing = table.packing
    for packed, ways in ways_in.items():
        later = ways_out.get(packed)
        if not later:
            continue
        columns = table.ship_columns(packed)
        if not columns:
            continue
        fleets = sum(map(mul, _slot_values(ways, packing), reversed(_slot_values(later, packing))))
        if fleets:
            for column in columns:
                ships[first + column] += fleets


@cache
def _symmetries(size: int) -> tuple[tuple[int, ...], ...]:
    """The board's eight turns and flips, each as where it carries every square."""
    carried = []
    for turn in range(8):
        squares = []
        for square in range(size * size):
            row, column = divmod(square, size)
            if turn & 1:
                column = size - 1 - column
            if turn & 2:
                row = size - 1 - row
            if turn & 4:
                row, column = column, row
            squares.append(row * size + column)
        carried.append(tuple(squares))
    return tuple(carried)


def _carried(board: int, squares: tuple[int, ...]) -> int:
    return sum(bit(squares[square]) for square in squares_of(board))


KEPT_TABLES = 50_000
"""Counted positions kept for later games (some 5 KB each): exact greedy is deterministic, so a
bench's games share their openings, and a position met again costs nothing."""
_kept_tables: dict[Problem, Table] = {}
_kept_passes: list[_Passes] = []
"""The last count's passes (some hundreds of MB for classic's early positions): the next
position of the same game differs from it in one shot, or a sunk ship's halo."""


def counted(problem: Problem) -> Table:
    """``count(problem)``, kept, shared by a position's mirror images, and from the last passes.

    The counts do not change when the board is turned or flipped, so one of
    the eight images stands for them all: the bench's greedy players break
    ties at random, and their first shots differ only by such a turn.  A
    position not met before is counted in the image whose view differs from
    the last count's in the fewest rows, so that most of both passes stay.
    """
    if problem.rows:
        return count(problem)
    images = [
        (
            _carried(problem.free, squares),
            _carried(problem.hits, squares),
            _carried(problem.sunk, squares),
            squares,
        )
        for squares in _symmetries(problem.rules.size)
    ]
    free, hits, sunk, canonical = min(images)
    key = Problem(problem.rules, free, hits, problem.need, sunk=sunk)
    table = _kept_tables.get(key)
    if table is None:
        kept = _kept_passes[0] if _kept_passes else None
        candidates = [
            (Problem(problem.rules, free, hits, problem.need, sunk=sunk), squares)
            for free, hits, sunk, squares in images
        ]
        image, squares = min(candidates, key=lambda pair: recount_cost(pair[0], kept))
        passes = recount(image, kept)
        _kept_passes[:] = [passes]
        ships = [0] * problem.area
        for square in range(problem.area):
            ships[canonical[square]] = passes.table.counts[squares[square]]
        table = Table(key, passes.table.fleets, tuple(ships))
        if len(_kept_tables) < KEPT_TABLES:
            _kept_tables[key] = table
    counts = tuple(table.counts[canonical[square]] for square in range(problem.area))
    return Table(problem, table.fleets, counts)


def exact_probabilities(sea: Sea) -> tuple[tuple[float, ...], int]:
    """Per square, the exact probability it holds a ship; and the consistent fleets' number."""
    table = counted(problem_of(sea))
    return table.probabilities(), table.fleets


def ships_of(rules: Ruleset, board: int) -> Fleet:
    """The fleet whose squares are ``board``: the lines they form, longest first."""
    size = rules.size
    left = board
    ships: list[tuple[int, ...]] = []
    while left:
        first = (left & -left).bit_length() - 1
        step = (
            size
            if first + 1 >= size * size or first % size == size - 1 or not left >> (first + 1) & 1
            else 1
        )
        ship = [first]
        while True:
            nxt = ship[-1] + step
            if step == 1 and nxt % size == 0:
                break
            if nxt >= size * size or not left >> nxt & 1:
                break
            ship.append(nxt)
        for square in ship:
            left &= ~bit(square)
        ships.append(tuple(ship))
    ships.sort(key=len, reverse=True)
    return Fleet(tuple(ships))


# ---------------------------------------------------------------- drawing fleets, counted fast


def _moves(problem: Problem, square: int, frontier: Frontier) -> list[Move]:
    """The steps from ``frontier`` at ``square``, whatever ships were finished before."""
    roomy = replace(problem, need=tuple(2 if n else 0 for n in problem.need))
    zero = (0,) * len(problem.need)
    return [
        ((columns, up_left), counts, ship)
        for (columns, up_left, counts), ship in _steps(roomy, square, (*frontier, zero))
    ]


def _closing(problem: Problem, frontier: Frontier) -> tuple[int, ...] | None:
    """The ships the lines still open at the board's end finish, or None where they may not."""
    return _closing_of(frontier, len(problem.need))


def _closing_of(frontier: Frontier, lengths: int) -> tuple[int, ...] | None:
    finished = [0] * lengths
    for status in frontier[0]:
        if _is_line(status):
            if not _any_free(status):
                return None
            finished[_length(status)] += 1
    return tuple(finished)


def _bits_enough(problem: Problem) -> int:
    """Bits no count can outgrow: the positions of every ship, multiplied."""
    allowed = problem.free | problem.hits | problem.sunk
    bound = 1
    for length, many in enumerate(problem.need):
        if many:
            fits = sum(1 for ship, _ in placements(problem.rules, length) if not ship & ~allowed)
            bound *= max(1, fits) ** many
    return bound.bit_length() + 1


@dataclass(frozen=True)
class _Drawer:
    """A problem counted for drawing: the steps from each frontier and the ways out of it."""

    problem: Problem
    packing: _Packing
    layers: tuple[dict[Frontier, list[Move]], ...]
    ways_out: tuple[dict[Frontier, int], ...]


@cache
def _drawer(problem: Problem) -> _Drawer:
    """Count ``problem``'s fleets per frontier, backwards; kept, since drawing repeats."""
    packing = _Packing(problem.need, _bits_enough(problem))
    start: Frontier = ((EMPTY,) * problem.rules.size, False)
    layers: list[dict[Frontier, list[Move]]] = []
    reached: dict[Frontier, None] = {start: None}
    for square in range(problem.area):
        here = {frontier: _moves(problem, square, frontier) for frontier in reached}
        layers.append(here)
        reached = {nxt: None for moves in here.values() for nxt, _, _ in moves}
    out: dict[Frontier, int] = {}
    for frontier in reached:
        closing = _closing(problem, frontier)
        if closing is not None and all(c <= n for c, n in zip(closing, problem.need, strict=True)):
            rest = [n - c for n, c in zip(problem.need, closing, strict=True)]
            out[frontier] = 1 << (packing.width * packing.index(rest))
    ways_out = [out]
    for here in reversed(layers):
        after = ways_out[-1]
        ways: dict[Frontier, int] = {}
        for frontier, moves in here.items():
            total = 0
            for nxt, finished, _ in moves:
                later = after.get(nxt, 0)
                if later:
                    total += later >> (packing.width * packing.index(finished)) & packing.room(
                        finished
                    )
            ways[frontier] = total
        ways_out.append(ways)
    ways_out.reverse()
    return _Drawer(problem, packing, tuple(layers), tuple(ways_out))


def draw_fleet(problem: Problem, rng: Random) -> int:
    """A fleet agreeing with ``problem``, uniformly among all that do, as a bitboard."""
    drawer = _drawer(problem)
    packing, layers, ways_out = drawer.packing, drawer.layers, drawer.ways_out
    start: Frontier = ((EMPTY,) * problem.rules.size, False)
    counts = [0] * len(problem.need)
    if not packing.get(ways_out[0].get(start, 0), counts):
        raise UsageError("no fleet agrees with what is known")
    frontier, board = start, 0
    for square, here in enumerate(layers):
        after = ways_out[square + 1]
        pick = rng.randrange(packing.get(ways_out[square][frontier], counts))
        for nxt, finished, ship in here[frontier]:
            then = [c + f for c, f in zip(counts, finished, strict=True)]
            if any(c > n for c, n in zip(then, problem.need, strict=True)):
                continue
            pick -= packing.get(after.get(nxt, 0), then)
            if pick < 0:
                frontier, counts = nxt, then
                board |= bit(square) if ship else 0
                break
    return board


def exact_strategy(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """Greedy on exact probabilities: the ``count`` likeliest unknown squares, ties at random.

    The bench's reference player (``statki bench ai --strategies exact``).
    """
    odds, _ = exact_probabilities(sea)
    unknown = [s for s in range(sea.rules.size**2) if not sea.known >> s & 1]
    ranked = sorted(unknown, key=lambda s: (-odds[s], rng.random()))
    return tuple(ranked[:count])


# ---------------------------------------------------------------- fleets in half the board


def halves(size: int) -> tuple[int, int, int, int]:
    """The board's four halves as bitboards: the top, bottom, left and right rows or columns.

    A half is ``ceil(size / 2)`` rows or columns, so on an odd board the
    halves share the middle line.
    """
    return tuple(_moved(_top_rows(size), size, half) for half in range(4))  # type: ignore[return-value]


def _top_rows(size: int) -> int:
    return (1 << (size * ((size + 1) // 2))) - 1


def _moved(board: int, size: int, half: int) -> int:
    """``board`` (within the top half) carried onto half ``half``: by a flip or a transpose."""
    moved = 0
    for square in squares_of(board):
        row, column = divmod(square, size)
        if half == 1:
            row = size - 1 - row
        elif half == 2:
            row, column = column, row
        elif half == 3:
            row, column = column, size - 1 - row
        moved |= bit(row * size + column)
    return moved


def clustered_fleet(rules: Ruleset, rng: Random, *, max_tries: int = 1_000_000) -> Fleet:
    """A legal fleet wholly inside one half of the board, as competitions test a shooter with.

    The half (top, bottom, left or right) is drawn uniformly, then the fleet
    uniformly among the legal fleets inside it.  Where ships may not share a
    side the fleets are counted (``count``: throwing away random draws that
    break the rules would almost never keep one); where they may, rejection
    sampling from independent uniform positions, as ``random_fleet`` does.
    """
    half = rng.randrange(4)
    if rules.touching is not Touching.ANY:
        need = Counter(rules.fleet)
        span = (rules.size + 1) // 2
        top = Problem(
            rules, _top_rows(rules.size), 0, tuple(need[n] for n in range(rules.size + 1)), span
        )
        return ships_of(rules, _moved(draw_fleet(top, rng), rules.size, half))
    region = halves(rules.size)[half]
    options = [
        [ship for ship, _ in placements(rules, length) if not ship & ~region]
        for length in rules.fleet
    ]
    for _ in range(max_tries):
        taken = 0
        chosen = []
        for positions in options:
            ship = positions[rng.randrange(len(positions))]
            if ship & taken:
                break
            taken |= ship
            chosen.append(tuple(squares_of(ship)))
        else:
            return Fleet(tuple(chosen))
    raise UsageError("could not place the fleet in half the board under these rules")
