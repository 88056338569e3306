"""A game that never began: no rematch terms (``statki_net.protocol.rematch``), and a
decline said in the reader's words."""

import random

from peers import make_pair, play

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.rematch import rematch_of
from statki_net.protocol.session import NO_REASON
from statki_net.protocol.wire import Role
from statki_net.store.language import catalog


def test_a_game_played_has_a_rematch_on_both_sides() -> None:
    pair = make_pair(PRESETS["classic"], seed=31)
    play(pair, seed=32)
    assert rematch_of(pair.host) is not None and rematch_of(pair.guest) is not None


def test_a_declined_game_has_no_rematch() -> None:
    pair = make_pair(PRESETS["classic"], seed=33)
    pair.record(Role.HOST, pair.host.start(0))
    pair.pump()
    pair.record(Role.GUEST, pair.guest.refuse("no", 0))
    pair.pump()
    assert pair.host.closed and pair.guest.closed
    assert rematch_of(pair.host) is None and rematch_of(pair.guest) is None


def test_a_game_stopped_before_the_rules_were_accepted_has_no_rematch() -> None:
    pair = make_pair(PRESETS["classic"], seed=34)
    pair.record(Role.HOST, pair.host.start(0))
    pair.pump()
    pair.cut()
    assert rematch_of(pair.host) is None and rematch_of(pair.guest) is None


def test_a_game_stopped_once_accepted_is_picked_up_not_played_again() -> None:
    """Cut after the accept, the game is not over: ``statki resume`` picks it up; a rematch
    is for a game that ended (the guest's screen offered one after its daemon died)."""
    rules = PRESETS["classic"]
    pair = make_pair(rules, seed=35)
    pair.record(Role.HOST, pair.host.start(0))
    pair.pump()
    pair.record(Role.GUEST, pair.guest.accept(random_fleet(rules, random.Random(36)), 0))
    pair.pump()
    pair.cut()
    assert rematch_of(pair.host) is None and rematch_of(pair.guest) is None
    pair.record(Role.HOST, pair.host.resign(pair.now))  # ended alone: a resignation
    assert pair.host.transcript.ended and rematch_of(pair.host) is not None


def test_a_game_declined_without_a_reason_says_so_in_the_readers_words() -> None:
    """Nothing English inside a Polish ending: the reason the player never gave is none."""
    pair = make_pair(PRESETS["classic"], seed=37)
    pair.record(Role.HOST, pair.host.start(0))
    pair.pump()
    pair.record(Role.GUEST, pair.guest.refuse(NO_REASON, 0))
    pair.pump()
    for side in (pair.host, pair.guest):
        ending = side.transcript.ending
        assert ending is not None and ending.end is End.REFUSED
        assert ending.reason.in_words(catalog("pl")) == "gość odrzucił zasady"
        assert str(ending.reason) == "the guest declined the rules"


def test_a_side_that_leaves_before_the_rules_are_accepted_left_before_the_game() -> None:
    """Its stop (``closed``) is no damage and no code to its opponent: it left (the reason
    as the host reads it, ``Transcript.reason_to``), and there is nothing to play again."""
    pair = make_pair(PRESETS["classic"], seed=38)
    pair.record(Role.HOST, pair.host.start(0))
    pair.pump()
    pair.record(Role.GUEST, pair.guest.abort(Code.CLOSED, "the player quit", 0))
    pair.pump()
    ending = pair.host.transcript.ending
    assert ending is not None and ending.end is End.NO_GAME
    said = pair.host.transcript.reason_to(Role.HOST).in_words(catalog("pl"))
    assert "closed" not in said and "quit" not in said, said
    assert rematch_of(pair.host) is None
