import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from statki_net.game.rules import (
    PRESETS,
    Report,
    RulesError,
    Ruleset,
    Touching,
    Turns,
    combination_name,
    declined_as_custom,
    preset_name,
    rules_label,
    ruleset_named,
)
from statki_net.game.rules_words import describe


def test_classic_is_the_polish_game() -> None:
    rules = PRESETS["classic"]
    assert rules.size == 10
    assert rules.fleet == (4, 3, 3, 2, 2, 2, 1, 1, 1, 1)
    assert rules.ship_cells == 20
    assert rules.touching is Touching.NONE
    assert rules.turns is Turns.CHAIN
    assert not rules.name_sunk


def test_presets() -> None:
    assert PRESETS["corners"].touching is Touching.CORNERS
    assert PRESETS["alternate"].turns is Turns.ALTERNATE
    five = PRESETS["five-ships"]
    assert five.fleet == (5, 4, 3, 3, 2) and five.ship_cells == 17
    assert five.names == ("carrier", "battleship", "cruiser", "submarine", "destroyer")
    assert five.touching is Touching.ANY and five.turns is Turns.ALTERNATE and five.name_sunk
    assert PRESETS["salvo"].turns is Turns.SALVO and PRESETS["salvo"].report is Report.EACH
    assert PRESETS["salvo-count"].report is Report.COUNT


def test_presets_combine() -> None:
    rules = ruleset_named("five-ships+salvo")
    assert rules.fleet == (5, 4, 3, 3, 2)
    assert rules.turns is Turns.SALVO
    assert rules.touching is Touching.ANY
    assert rules.name_sunk
    assert ruleset_named("corners+alternate").touching is Touching.CORNERS
    assert ruleset_named("corners+alternate").turns is Turns.ALTERNATE


def test_later_presets_win_as_spec_md_says() -> None:
    """SPEC.md section 7, "Combining presets", and its three examples."""
    assert ruleset_named("salvo+five-ships") == PRESETS["five-ships"]
    kept = ruleset_named("salvo-count+five-ships")
    assert kept.report is Report.COUNT and kept.turns is Turns.ALTERNATE
    assert kept.fleet == PRESETS["five-ships"].fleet


def test_every_combination_of_presets_has_a_name_and_custom_rules_have_none() -> None:
    names = list(PRESETS)
    for first in names:
        for second in names:
            rules = ruleset_named(f"{first}+{second}")
            name = combination_name(rules)
            assert name is not None and ruleset_named(name) == rules
            assert len(name.split("+")) <= 2
    assert combination_name(PRESETS["corners"]) == "corners"
    assert combination_name(ruleset_named("five-ships+salvo")) == "five-ships+salvo"
    assert combination_name(Ruleset(size=8, fleet=(3, 2, 2, 1))) is None


def test_a_guest_declines_custom_rules_unasked_unless_its_owner_admits_them() -> None:
    crowded = Ruleset(size=5, fleet=(2, 2, 2, 1))  # made to win: the first shooter does
    assert declined_as_custom(crowded, custom_allowed=False)
    assert not declined_as_custom(crowded, custom_allowed=True)
    for first in PRESETS:
        for second in PRESETS:
            assert not declined_as_custom(ruleset_named(f"{first}+{second}"), False)


def test_rules_go_by_one_name_everywhere_a_combination_by_its_presets() -> None:
    """The history, the notices, a referee's judgement and the rules screen all name rules
    by ``rules_label``: a combination by its presets (it was "custom rules" in the history
    and the daemon's state while the notices named it), custom rules as such."""
    from statki_net.net.notices import Rules
    from statki_net.protocol.wire import Limits

    combined = ruleset_named("salvo-count+five-ships")
    assert preset_name(combined) is None
    assert rules_label(combined) == combination_name(combined) == "salvo-count+five-ships"
    assert Rules(combined, Limits(), None).name == rules_label(combined)
    assert describe(combined).name == rules_label(combined)
    custom = Ruleset(size=8, fleet=(3, 2, 2, 1))
    assert rules_label(custom) == "custom rules" == describe(custom).name


def test_unknown_preset_lists_the_known() -> None:
    with pytest.raises(RulesError, match="unknown rules tetris; choose from classic"):
        ruleset_named("tetris")


@pytest.mark.parametrize("name", list(PRESETS))
def test_map_round_trip(name: str) -> None:
    rules = PRESETS[name]
    assert Ruleset.from_map(rules.to_map()) == rules
    assert preset_name(Ruleset.from_map(rules.to_map())) == name


def test_unknown_keys_are_kept_and_ignored() -> None:
    rules = Ruleset.from_map({"size": 8, "fleet": [3, 2], "future": {"x": 1}})
    assert rules.size == 8
    assert rules.to_map()["future"] == {"x": 1}


@pytest.mark.parametrize(
    "bad",
    [
        {"size": 0},
        {"size": 27},
        {"size": True},
        {"fleet": []},
        {"fleet": [1, 4]},
        {"fleet": [11]},
        {"fleet": "4321"},
        {"touching": "sometimes"},
        {"turns": 3},
        {"name_sunk": True},
        {"fleet": [2, 1], "names": ["one"]},
        {"size": 3, "fleet": [3, 3, 3, 1]},
    ],
)
def test_bad_rule_maps_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(RulesError):
        Ruleset.from_map(bad)


@given(
    st.dictionaries(
        st.text(max_size=5),
        st.one_of(st.integers(), st.text(), st.booleans(), st.lists(st.integers())),
    )
)
def test_any_map_reads_or_raises_rules_error(rules: dict[str, object]) -> None:
    with contextlib.suppress(RulesError):
        Ruleset.from_map(rules)


def test_ship_names_are_distinct_and_short() -> None:
    with pytest.raises(RulesError, match="ship names must differ"):
        Ruleset(fleet=(2, 1), names=("boat", "boat"))
    with pytest.raises(RulesError, match="1-40 characters"):
        Ruleset(fleet=(2, 1), names=("x" * 41, "y"))


def test_summaries_tell_every_preset_apart() -> None:
    summaries = [describe(rules).summary for rules in PRESETS.values()]
    assert len(set(summaries)) == len(PRESETS)
    assert describe(PRESETS["classic"]).summary == "10 ships, no touching, a hit earns another shot"
    assert describe(PRESETS["five-ships"]).summary.startswith("5 named ships, ships may touch")


def test_the_rules_in_full_tell_every_preset_apart_too() -> None:
    assert describe(PRESETS["classic"]).lines == (
        "10x10, fleet 4,3,3,2,2,2,1,1,1,1",
        "ships never touch, not even at a corner",
        "a hit earns another shot",
    )
    assert len({describe(rules).lines for rules in PRESETS.values()}) == len(PRESETS)
    assert "only how many hit is told" in describe(PRESETS["salvo-count"]).lines[-1]


def test_rules_that_are_no_preset_are_named_custom_and_counted_on_their_board() -> None:
    rules = Ruleset(size=8, fleet=(3, 2, 2, 1))
    words = describe(rules)
    assert words.name == "custom rules" and words.ships == "4 ships on 8x8"
    assert words.board == "8x8, fleet 3,2,2,1"
    assert describe(ruleset_named("five-ships+salvo")).name == "five-ships+salvo"
    assert describe(PRESETS["corners"]).name == "corners"


def test_every_combination_of_presets_is_named_and_nothing_else() -> None:
    """A ruleset is a combination when some ``A+B+...`` makes it; its name makes it again."""
    from statki_net.game.rules import combination_name

    for spec in ["classic", "five-ships+salvo", "salvo-count+five-ships", "corners+alternate"]:
        name = combination_name(ruleset_named(spec))
        assert name is not None and ruleset_named(name) == ruleset_named(spec)
    assert combination_name(ruleset_named("salvo+five-ships")) == "five-ships"
    assert combination_name(ruleset_named("classic+corners")) == "corners"
    assert combination_name(Ruleset(size=8, fleet=(3, 2, 2))) is None
    # No preset puts the five-ship fleet back to "no touching": custom.
    assert combination_name(PRESETS["five-ships"].with_options(touching=Touching.NONE)) is None


def test_custom_rules_are_shown_by_how_they_depart_from_the_nearest_preset() -> None:
    from statki_net.game.rules_words import match_presets

    assert match_presets(ruleset_named("five-ships+salvo")).departures == ()
    assert not match_presets(PRESETS["salvo"]).custom
    match = match_presets(Ruleset(size=8, fleet=(3, 2, 2)))
    assert match.custom and match.nearest == "classic"
    assert [d.option for d in match.departures] == ["board", "fleet"]
    assert match.differences() == (
        "board: 8x8 (classic: 10x10)",
        "fleet: 3,2,2 (classic: 4,3,3,2,2,2,1,1,1,1)",
    )
    near_salvo = PRESETS["salvo"].with_options(touching=Touching.ANY)
    assert match_presets(near_salvo).words() == (
        "custom rules, unlike salvo: touching: ships may touch (salvo: no touching)"
    )
