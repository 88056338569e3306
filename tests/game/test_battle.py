import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from statki_net.game.battle import Answer, Cell, Defence, Outcome, Score, Sea
from statki_net.game.board import parse_square, square_name
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, random_fleet, read_fleet_text
from statki_net.game.replay import Volley, replay
from statki_net.game.rules import PRESETS, Ruleset, ruleset_named

CLASSIC = PRESETS["classic"]
FLEET_TEXT = "B2-E2\nG2-G4\nA5-A7\nC5-D5\nF6-F7\nH9-I9\nJ1\nJ4\nD9\nA10"


def classic_fleet() -> Fleet:
    return read_fleet_text(CLASSIC, FLEET_TEXT)[0]


def sq(*names: str) -> tuple[int, ...]:
    return tuple(parse_square(n) for n in names)


def test_answers_miss_hit_sunk_and_never_name() -> None:
    defence = Defence(CLASSIC, classic_fleet())
    answer, defence = defence.answer(sq("A1"))
    assert answer == Answer.single(Outcome.MISS)
    answer, defence = defence.answer(sq("C5"))
    assert answer.outcomes == (Outcome.HIT,) and answer.names == ()
    answer, defence = defence.answer(sq("D5"))
    assert answer.outcomes == (Outcome.SUNK,) and answer.names == ()
    answer, defence = defence.answer(sq("J1"))
    assert answer.outcomes == (Outcome.SUNK,), "a one-mast ship sinks at the first hit"


def test_repeated_shot_counts_as_miss() -> None:
    defence = Defence(CLASSIC, classic_fleet())
    first, defence = defence.answer(sq("B2"))
    again, defence = defence.answer(sq("B2"))
    assert first.outcomes == (Outcome.HIT,)
    assert again.outcomes == (Outcome.MISS,)
    score = Score(CLASSIC, to_move=0).after(first).after(again)
    assert score.to_move == 1, "a repeated shot passes the turn"


def test_sink_marks_every_cell_around_classic() -> None:
    sea = Sea(CLASSIC)
    sea = sea.apply(sq("C5"), Answer.single(Outcome.HIT))
    sea = sea.apply(sq("D5"), Answer.single(Outcome.SUNK))
    marked = sorted(square_name(s) for s in range(100) if sea.marked >> s & 1)
    assert marked == ["B4", "B5", "B6", "C4", "C6", "D4", "D6", "E4", "E5", "E6"]
    assert sea.cell(parse_square("C5")) is Cell.SUNK
    assert sea.cell(parse_square("B4")) is Cell.EMPTY
    assert sea.sunk_ships == (sq("C5", "D5"),)


def test_corners_marks_only_sides() -> None:
    rules = PRESETS["corners"]
    sea = Sea(rules).apply(sq("E5"), Answer.single(Outcome.SUNK))
    assert sorted(square_name(s) for s in range(100) if sea.marked >> s & 1) == [
        "D5",
        "E4",
        "E6",
        "F5",
    ]


def test_five_ships_names_the_sunk_ship_and_marks_nothing() -> None:
    rules = PRESETS["five-ships"]
    fleet, _ = read_fleet_text(
        rules,
        "carrier: A1-E1\nbattleship: A2-D2\ncruiser: A3-C3\nsubmarine: A4-C4\ndestroyer: A5-B5",
    )
    defence = Defence(rules, fleet)
    _, defence = defence.answer(sq("A3"))
    _, defence = defence.answer(sq("B3"))
    answer, defence = defence.answer(sq("C3"))
    assert answer == Answer.single(Outcome.SUNK, "cruiser")
    assert answer.words() == "sunk: cruiser"
    sea = Sea(rules).apply(sq("A3"), Answer.single(Outcome.HIT)).apply(sq("C3"), answer)
    assert sea.marked == 0
    assert sea.sunk_names == ("cruiser",)


@pytest.mark.parametrize(
    ("preset", "answers", "movers"),
    [
        ("classic", ["hit", "sunk", "miss", "miss"], [0, 0, 0, 1, 0]),
        ("alternate", ["hit", "sunk", "miss", "miss"], [0, 1, 0, 1, 0]),
        ("five-ships", ["hit", "miss", "hit"], [0, 1, 0, 1]),
    ],
)
def test_whose_turn(preset: str, answers: list[str], movers: list[int]) -> None:
    rules = PRESETS[preset]
    score = Score(rules, to_move=0)
    seen = [score.to_move]
    for word in answers:
        outcome = Outcome(word)
        names = ("destroyer",) if rules.name_sunk and outcome is Outcome.SUNK else ()
        score = score.after(
            Answer(
                (outcome,), int(outcome is not Outcome.MISS), int(outcome is Outcome.SUNK), names
            )
        )
        seen.append(score.to_move)
    assert seen == movers


def test_salvo_size_is_ships_afloat_and_no_extra_shot() -> None:
    rules = PRESETS["salvo"]
    score = Score(rules, to_move=0)
    assert score.shots_due() == 10
    score = score.after(Answer((Outcome.SUNK,) + (Outcome.MISS,) * 9, hits=1, sunk=1))
    assert score.to_move == 1, "no extra shot after a hit in salvo"
    assert score.shots_due() == 9, "player 1 lost a ship, so fires one shot fewer"
    score = score.after(Answer((Outcome.MISS,) * 9, hits=0, sunk=0))
    assert score.shots_due() == 10


def test_salvo_answers_each_shot_in_order() -> None:
    rules = PRESETS["salvo"]
    defence = Defence(rules, read_fleet_text(rules, FLEET_TEXT)[0])
    answer, _ = defence.answer(sq("C5", "A1", "D5", "C5"))
    assert answer.outcomes == (Outcome.HIT, Outcome.MISS, Outcome.SUNK, Outcome.MISS)
    assert (answer.hits, answer.sunk) == (2, 1)


def test_salvo_count_tells_only_totals() -> None:
    rules = PRESETS["salvo-count"]
    defence = Defence(rules, read_fleet_text(rules, FLEET_TEXT)[0])
    answer, _ = defence.answer(sq("C5", "A1", "D5"))
    assert answer == Answer((), hits=2, sunk=1)
    sea = Sea(rules).apply(sq("C5", "A1", "D5"), answer)
    assert sea.cell(parse_square("A1")) is Cell.SHOT
    assert sea.afloat == 9 and sea.hits_told == 2


def test_answer_shape_is_checked() -> None:
    sea = Sea(CLASSIC)
    with pytest.raises(UsageError):
        sea.apply(sq("A1"), Answer((Outcome.HIT, Outcome.MISS), 1, 0))
    with pytest.raises(UsageError):
        sea.apply(sq("A1"), Answer((Outcome.HIT,), 1, 0, ("cruiser",)))
    with pytest.raises(UsageError):
        Sea(PRESETS["salvo-count"]).apply(sq("A1"), Answer((Outcome.HIT,), 1, 0))


def test_game_ends_when_last_ship_sinks() -> None:
    rules = Ruleset(size=4, fleet=(2, 1))
    score = Score(rules, to_move=1)
    score = score.after(Answer.single(Outcome.SUNK)).after(Answer.single(Outcome.SUNK))
    assert score.over and score.winner == 1
    with pytest.raises(UsageError):
        score.after(Answer.single(Outcome.MISS))


def play_out(rules: Ruleset, fleet: Fleet, rng: random.Random) -> list[Volley]:
    """Shoot every square in random order at a fleet until it sinks; honest answers."""
    order = list(range(rules.size**2))
    rng.shuffle(order)
    defence, volleys, sunk, move = Defence(rules, fleet), [], 0, 0
    afloat = len(rules.fleet)
    while sunk < len(rules.fleet):
        count = afloat if rules.turns.value == "salvo" else 1
        shots = tuple(order[:count]) or (0,)
        order = order[count:]
        answer, defence = defence.answer(shots)
        move += 1
        volleys.append(Volley(move, shots, answer))
        sunk += answer.sunk
    return volleys


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**32))
def test_honest_replay_finds_nothing(name: str, seed: int) -> None:
    rules = PRESETS[name]
    rng = random.Random(seed)
    fleet = random_fleet(rules, rng)
    volleys = play_out(rules, fleet, rng)
    assert replay(rules, fleet, volleys).honest


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**32), st.data())
def test_any_changed_answer_is_found(name: str, seed: int, data: st.DataObject) -> None:
    rules = PRESETS[name]
    rng = random.Random(seed)
    fleet = random_fleet(rules, rng)
    volleys = play_out(rules, fleet, rng)
    index = data.draw(st.integers(0, len(volleys) - 1))
    original = volleys[index].answer
    if original.outcomes:
        at = data.draw(st.integers(0, len(original.outcomes) - 1))
        other = data.draw(st.sampled_from([o for o in Outcome if o is not original.outcomes[at]]))
        outcomes = list(original.outcomes)
        outcomes[at] = other
        changed = replace(original, outcomes=tuple(outcomes))
    else:
        changed = replace(original, hits=original.hits + data.draw(st.sampled_from([-1, 1])))
    volleys[index] = replace(volleys[index], answer=changed)
    report = replay(rules, fleet, volleys)
    assert [c.move for c in report.contradictions] == [volleys[index].move]


def test_replay_reports_every_lie_and_the_illegal_fleet() -> None:
    fleet, _ = read_fleet_text(CLASSIC, "B2-E2\nF3-H3\nA5-A7\nC5-D5\nF6-F7\nH9-I9\nJ1\nJ4\nD9\nA10")
    volleys = [
        Volley(1, sq("A1"), Answer.single(Outcome.MISS)),
        Volley(2, sq("B2"), Answer.single(Outcome.MISS)),
        Volley(3, sq("J1"), Answer.single(Outcome.HIT)),
    ]
    report = replay(CLASSIC, fleet, volleys)
    assert [str(c.describe(10)) for c in report.contradictions] == [
        "move 2 at B2: answered miss, the fleet shows hit",
        "move 3 at J1: answered hit, the fleet shows sunk",
    ]
    assert [p.kind for p in report.fleet_problems] == ["touching"]


def test_a_sunk_ships_name_is_said_in_the_readers_words() -> None:
    """The English game's names travel as written and are said in the reader's language."""
    from statki_net.store.language import catalog

    sunk = Answer((Outcome.SUNK,), 1, 1, ("cruiser",))
    assert sunk.words() == "sunk: cruiser"
    assert "krążownik" in sunk.words(catalog("pl"))
    assert ruleset_named("five-ships").ship_label(0, catalog("pl")) == "lotniskowiec"


def test_a_volley_that_sinks_a_named_ship_says_it_once() -> None:
    volley = Answer((Outcome.SUNK, Outcome.MISS, Outcome.SUNK), 2, 2, ("cruiser", "carrier"))
    assert volley.words() == "sunk: cruiser, miss, sunk: carrier"
    assert Answer((Outcome.HIT, Outcome.SUNK), 2, 1, ()).words() == "hit, sunk"
