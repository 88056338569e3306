"""The client's model without a terminal: placing, shooting, the end, against a real session."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from statki_client.local import LocalGame, simple_chooser
from statki_client.model import Model, Overlay, Placed, Stage

from statki_net.game.battle import Answer, Outcome, Sea
from statki_net.game.board import bit, parse_square
from statki_net.game.fleet import fleet_problems
from statki_net.game.rules import ruleset_named
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.endings import End, Result
from statki_net.protocol.logformat import read_log
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Role
from statki_net.referee.verify import judge_log
from statki_net.store.history import History

CLASSIC_FLEET = ["A1-D1", "A3-C3", "E3-G3", "I1-J1", "A5-B5", "D5-E5", "G5", "I5", "A7", "C7"]


def clock() -> Callable[[], int]:
    ticks = iter(range(1_000_000, 10_000_000, 7))
    return lambda: next(ticks)


def stage_now(model: Model) -> Stage:
    """The model's stage read afresh: mypy keeps ``model.stage`` narrowed by an earlier
    ``assert`` across the calls that change it."""
    return model.stage


def game(
    tmp_path: Path, rules: str = "classic", seed: int = 5, cls: type[LocalGame] = LocalGame
) -> tuple[Model, History]:
    rng = random.Random(seed)
    entropy = random.Random(seed + 100)
    history = History.in_home(tmp_path)
    link = cls(
        ruleset_named(rules),
        Ed25519PrivateKey.from_private_bytes(bytes(range(32))),
        name="Ala",
        strategy="random",
        chooser=simple_chooser(random.Random(seed + 1)),
        rng=rng,
        home=tmp_path,
        history=history,
        clock=clock(),
        entropy=entropy.randbytes,
    )
    model = Model(link, rng, lambda: (history.games(), history.tally("opponent")))
    return model, history


def place(model: Model, ships: list[str]) -> None:
    """Put the fleet where the test wants it, ship by ship in the rules' order."""
    model.ships = []
    for text in ships:
        ends = [parse_square(end) for end in text.split("-")]
        squares = range(
            ends[0], ends[-1] + 1, 1 if len(ends) == 1 or ends[1] - ends[0] < 10 else 10
        )
        model.ships.append(Placed.of(tuple(squares), 10))


def play_out(model: Model) -> None:
    """Fire at every square in order until the game ends."""
    square = 0
    while model.stage is Stage.BATTLE:
        assert model.my_turn
        if model.refusal(square % 100) is None:
            model.choose(square % 100)
        square += 1
        assert square < 1000


def test_the_fleet_starts_random_and_legal(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    assert model.stage is Stage.PLACING
    assert model.rules is not None
    assert len(model.ships) == len(model.rules.fleet)
    assert model.problems() == []
    before = model.fleet
    model.reroll()
    assert model.fleet != before and model.problems() == []


def test_moving_off_the_board_is_refused_with_the_reason(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    place(model, CLASSIC_FLEET)
    model.selected = 0  # A1-D1
    assert not model.move_ship(0, -1)
    assert "leave the board" in model.notice and model.trouble
    assert not model.move_ship(-1, 0)
    assert model.move_ship(1, 0)
    assert model.fleet.ships[0] == (10, 11, 12, 13)


def test_rotating_turns_about_the_bow_and_slides_back_onto_the_board(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    place(model, CLASSIC_FLEET)
    model.selected = 0
    model.rotate()
    assert model.fleet.ships[0] == (0, 10, 20, 30)
    model.ships[0] = Placed(8, 5, True, 4)  # F9-I9: turning down would leave the board
    model.rotate()
    assert model.fleet.ships[0] == (65, 75, 85, 95)


def test_a_touching_ship_is_flagged_with_the_rules_reason_and_blocks_the_start(
    tmp_path: Path,
) -> None:
    model, _ = game(tmp_path)
    place(model, CLASSIC_FLEET)
    assert model.problems() == []
    model.selected = 9  # C7, one-mast
    assert model.move_ship(-1, 0)  # C6 touches B5 at a corner
    assert model.rules is not None
    expected = fleet_problems(model.rules, model.fleet)[0].message
    assert "touch" in expected
    assert expected in model.notice and model.trouble
    assert model.bad_squares() & bit(parse_square("C6"))
    assert not model.ready()
    assert model.stage is Stage.PLACING
    assert "cannot start" in model.notice
    model.move_ship(1, 0)
    assert model.ready()
    assert model.stage in (Stage.BATTLE, Stage.OVER)


def test_a_shot_at_a_known_square_is_refused_with_the_rule(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    model.ready()
    assert model.my_turn
    view = model.view
    assert view is not None
    first = next(s for s in range(100) if not view.known & bit(s))
    model.choose(first)
    assert model.my_turn, "the computer answers at once, so the turn comes back"
    assert model.view is not None and model.view.shot & bit(first)
    shots = model.shots_fired(True)
    assert not model.choose(first)
    assert "shot already" in model.notice and "counts as a miss" in model.notice
    assert model.shots_fired(True) == shots
    # Sink something, then a square beside it is refused by the touching rule.
    square = 0
    while model.stage is Stage.BATTLE and not (model.view and model.view.marked):
        if model.refusal(square) is None:
            model.choose(square)
        square += 1
    view = model.view
    assert view is not None and view.marked
    beside = next(iter(s for s in range(100) if view.marked & bit(s)))
    assert model.refusal(beside) is not None
    assert "never touch" in (model.refusal(beside) or "")


def test_salvo_marks_every_shot_of_the_turn_then_fires(tmp_path: Path) -> None:
    model, _ = game(tmp_path, "salvo", seed=9)  # one in which the player starts
    model.ready()
    assert model.my_turn and model.shots_due == 10
    model.cursor = 0
    assert model.choose()
    assert model.marks == [0]
    assert not model.choose(), "a marked square is refused"
    assert "already marked" in model.notice
    assert model.toggle_mark(0) and model.marks == []
    for square in range(10):
        model.choose(square)
    assert len(model.marks) == 10 and model.shots_fired(True) == 0
    assert "Enter fires" in model.notice
    model.choose()
    assert model.shots_fired(True) == 10
    assert model.marks == []


def test_typing_a_coordinate_moves_the_cursor(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    model.ready()
    for char in "j10":
        model.type_key(char)
    assert model.cursor == 99
    for char in "b4":
        model.type_key(char)
    assert model.cursor == parse_square("B4")


def test_a_whole_game_ends_with_both_fleets_the_verdict_and_the_log(tmp_path: Path) -> None:
    model, history = game(tmp_path)
    model.ready()
    play_out(model)
    assert model.stage is Stage.OVER
    end = model.end_screen
    assert end is not None
    assert end.ending.end is End.SUNK and end.result is not Result.NONE
    assert end.result is end.ending.result(model.session.role)
    assert end.their_fleet is not None and end.my_fleet is not None
    assert end.findings == ()
    assert end.verdict.startswith("You won" if end.result is Result.WON else "You lost")
    assert end.my_shots == model.shots_fired(True) > 0
    assert end.log_path is not None
    assert judge_log(end.log_path.read_bytes()).valid
    assert len(read_log(end.log_path.read_bytes()).frames) > 20
    (row,) = history.games()
    assert row.result == end.result.value
    assert row.opponent_name == "computer (random)"
    assert row.verdict and row.verdict.startswith("valid")
    model.toggle_overlay(Overlay.HISTORY)
    assert model.history[0][0].game_id == row.game_id


def test_the_rematch_gives_the_first_shot_to_the_other_side(tmp_path: Path) -> None:
    model, history = game(tmp_path)
    model.ready()
    first = model.first
    play_out(model)
    assert model.rematch()
    assert model.stage is Stage.PLACING
    assert model.notice.startswith("Rematch: ")
    model.ready()
    assert model.first is not None and model.first is not first
    # The computer shot first: its volley made the line on who starts stale at once.
    starts = model.first_words(model.first)
    assert "toss" not in starts, "nobody tossed: the rematch agreed who starts"
    assert starts.endswith("first, as agreed"), starts
    play_out(model)
    assert len(history.games()) == 2


def test_resigning_mid_game_ends_it_properly(tmp_path: Path) -> None:
    model, history = game(tmp_path)
    model.ready()
    model.ask_quit()
    assert model.overlay is Overlay.QUIT
    assert "Resign" in model.quit_consequence()
    model.confirm_quit()
    assert not model.done, "the end screen shows the resignation, as it shows any end"
    model.ask_quit()
    assert model.done, "q leaves the end screen at once"
    end = model.end_screen
    assert end is not None
    assert end.ending.end is End.RESIGNED and end.result is Result.LOST
    assert end.verdict == "You resigned: the opponent wins"
    assert end.their_fleet is not None, "the reveal still happens"
    assert history.games()[0].end_reason == "resigned"


class SaysMissForHits(Behaviour):
    """Answers "miss" where a shot hit."""

    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        if answer.outcomes and answer.outcomes[0] is Outcome.HIT:
            return Answer.single(Outcome.MISS)
        return answer


class LyingComputer(LocalGame):
    def _pair(self) -> tuple[Session, Session]:
        player, bot = super()._pair()
        bot.behaviour = SaysMissForHits()
        return player, bot


def test_cheating_is_found_and_shown(tmp_path: Path) -> None:
    model, history = game(tmp_path, cls=LyingComputer)
    model.ready()
    play_out(model)
    end = model.end_screen
    assert end is not None
    assert end.ending.end is End.CHEATED and end.ending.culprits == {model.session.peer}
    assert end.result is Result.WON
    assert end.verdict == "You won: the opponent cheated"
    assert end.findings and "computer (random)" in end.findings[0]
    assert history.games()[0].end_reason == "cheated"


def test_a_lost_connection_is_told_plainly_and_the_game_goes_on(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    model.ready()
    model.handle(model.session.connection_lost(9_999_999))
    assert "Connection lost" in model.notice and model.trouble
    assert model.stage is Stage.BATTLE, "a lost connection does not end the game (protocol v2)"
    finish_alone(model)
    assert stage_now(model) is Stage.OVER
    end = model.end_screen
    assert end is not None and end.verdict == "You won on time: the opponent ran out of time"
    assert end.ending.end is End.TIME and end.result is Result.WON


def finish_alone(model: Model) -> None:
    """After a lost connection: fire if it is the player's turn, then let the opponent's time
    run out (as the timer of a real connection would)."""
    session = model.session
    if model.my_turn:
        model.handle(session.shoot((next(iter(_unshot(session))),), 10_000_000))
    due = session.deadline()
    assert due is not None
    model.handle(session.check_time(due))


def _unshot(session: Session) -> list[int]:
    view = session.view
    assert view is not None
    return [s for s in range(100) if not view.shot >> s & 1]


def test_hints_shade_squares_where_no_ship_left_fits(tmp_path: Path) -> None:
    model, _ = game(tmp_path, "five-ships")
    model.ready()
    rules = ruleset_named("five-ships")
    b1, a2 = parse_square("B1"), parse_square("A2")
    sea = Sea(rules).apply((b1,), Answer.single(Outcome.MISS))
    sea = sea.apply((a2,), Answer.single(Outcome.MISS))
    model.session.transcript.sides[Role.HOST].sea = sea
    assert model.hint_squares() == bit(0), "only A1 is walled in, and no ship is 1 long"


def test_hints_shade_the_sides_and_corners_of_a_line_of_hits(tmp_path: Path) -> None:
    # The tester's sea under classic: B1, C1, D1 hit.  No ship can touch them without
    # being part of their line, so row 2 from A to E is shaded; the line's ends are not.
    model, _ = game(tmp_path, "classic")
    model.ready()
    sea = Sea(ruleset_named("classic"))
    for name in ("B1", "C1", "D1"):
        sea = sea.apply((parse_square(name),), Answer.single(Outcome.HIT))
    model.session.transcript.sides[Role.HOST].sea = sea
    shaded = model.hint_squares()
    assert [
        name
        for name in ("A1", "E1", "A2", "B2", "C2", "D2", "E2", "F2")
        if shaded >> parse_square(name) & 1
    ] == ["A2", "B2", "C2", "D2", "E2"]


def test_every_volley_of_the_computers_turn_is_told_once(tmp_path: Path) -> None:
    """A hit earns another shot: the computer's turn can be several volleys, all shown."""
    from statki_client.layout import last_turn, plain, screen

    model, _ = game(tmp_path, seed=9)
    model.ready()
    square = 0
    while len(last_turn(model.volleys, mine=False)) < 2:
        assert model.stage is Stage.BATTLE and square < 100, "the computer never hit twice"
        if model.refusal(square) is None:
            model.choose(square)
        square += 1
    turn = last_turn(model.volleys, mine=False)
    text = " ".join(plain(screen(model)).split())
    told = ", ".join(volley.words(model.size) for volley in turn)
    assert f"Their last turn {told}" in text, text
    assert "Opponent:" not in text
