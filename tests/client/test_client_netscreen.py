"""The full-screen client's model for ``statki host`` / ``statki join``, without a terminal.

The model drives a real ``Session`` through a ``ConnectionLink`` with no
connection attached yet (as the host is before its guest arrives); events
that would come over the network are the session's own event types.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from statki_client.keys import press
from statki_client.kinds import GuestAtTheDoor
from statki_client.layout import cut_short, keys_line, plain, screen
from statki_client.model import Model, Stage
from statki_client.remote import ConnectionLink
from test_client_model import game, play_out, stage_now

from statki_net.game.rules import ruleset_named
from statki_net.net.invite import parse_invite
from statki_net.net.notices import Closed
from statki_net.protocol.endings import End, Result
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Failed, PeerHello
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Hello, Role
from statki_net.referee.verify import fingerprint
from statki_net.store.language import _, speak

INVITE = "statki://127.0.0.1:47470,[2001:db8::7]:47470/" + "ab" * 32
HOST_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
GUEST_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))


def host_model(*, invite: str = "", fleet_text: str = "") -> Model:
    session = Session(
        Role.HOST,
        HOST_KEY,
        name="Ala",
        entropy=random.Random(1).randbytes,
        rules=ruleset_named("alternate"),
    )
    return Model(ConnectionLink(session), random.Random(2), invite=invite, fleet_text=fleet_text)


def guest_arrives(model: Model) -> None:
    hello = Hello(1, "statki", public_key_bytes(GUEST_KEY), "Ola", bytes(32))
    model.handle([PeerHello(Role.GUEST, hello)])


def test_the_host_sees_the_invite_whole_until_the_guest_arrives() -> None:
    model = host_model(invite=INVITE)
    text = plain(screen(model))
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("statki://"))
    # Broken before the key, not inside an address or the key: each line a whole piece.
    assert lines[start : start + 2] == [INVITE[:44], INVITE[44:]], text
    assert parse_invite("\n".join(lines[start : start + 2])) == parse_invite(INVITE)
    assert len(lines) == 24 and "waiting for the opponent" in lines[0]
    press(model, "enter")
    assert model.stage is Stage.WAITING
    assert "the game starts when a guest joins" in model.notice
    waiting = plain(screen(model))
    assert INVITE[:44] in waiting and "*" not in waiting, "no ship is picked once committed"
    assert "Enter fire" not in keys_line(model), "no battle keys before the battle"
    guest_arrives(model)
    met = plain(screen(model))
    assert INVITE[:44] not in met
    assert f"vs Ola, key {fingerprint(public_key_bytes(GUEST_KEY))}" in met


def test_a_fleet_file_that_fits_is_the_fleet_to_start_from() -> None:
    text = "A1-D1\nA3-C3\nE3-G3\nI1-J1\nA5-B5\nD5-E5\nG5\nI5\nA7\nC7\n"
    model = host_model(fleet_text=text)
    assert model.fleet.ships[0] == (0, 1, 2, 3) and model.problems() == []
    assert not model.trouble


def test_a_fleet_file_that_does_not_fit_gives_a_random_fleet_and_the_reason() -> None:
    model = host_model(fleet_text="A1-D1\nB2\n")
    assert model.problems() == [] and len(model.ships) == 10
    assert model.trouble and "Your fleet file does not fit" in model.notice
    broken = host_model(fleet_text="this is no fleet")
    assert broken.trouble and len(broken.ships) == 10


def test_a_game_that_ends_before_the_rules_is_drawn_with_its_reason() -> None:
    session = Session(Role.GUEST, GUEST_KEY, name="Ola", entropy=random.Random(1).randbytes)
    link = ConnectionLink(session)
    model = Model(link, random.Random(2))
    assert model.stage is Stage.CONNECTING
    session.failure = Failed(Code.WRONG_KEY, "the host's key is not the key in the invite", False)
    link.connection_ended()
    assert stage_now(model) is Stage.OVER and model.end_screen is not None
    text = plain(screen(model))
    assert "No game:" not in text, "no game began: the reason alone, once"
    assert text.count("Not the host your invite names: the host's key is not the key") == 1
    link.connection_ended()  # told once only
    assert len(text.splitlines()) == 24


def test_a_connection_lost_before_any_game_does_not_say_the_game_goes_on() -> None:
    """Played through a daemon: the host left while placing, and the guest's end screen said
    "No game" above "Connection lost: the game goes on in your log"."""
    session = Session(Role.GUEST, GUEST_KEY, name="Ola", entropy=random.Random(1).randbytes)
    model = Model(ConnectionLink(session), random.Random(2))
    model.handle(session.connection_lost(0))
    assert stage_now(model) is Stage.OVER
    text = plain(screen(model))
    assert "No game: it stopped before the rules were accepted" in text
    assert "The host left before the game began" in text and "goes on" not in text
    assert "Shots:" not in text, "no shots were fired in no game (after a rematch: misread)"


@pytest.mark.parametrize(
    ("failure", "words"),
    [
        (
            Failed(Code.NO_INVITE, "this host admits only the guest it invited: ask", False),
            "This host admits only the guest it invited: ask",
        ),
        (
            Failed(Code.NOT_INVITED, "the hello proves no invite", True),
            "The host turned you away: check that you have the whole invite line",
        ),
    ],
)
def test_a_guest_the_host_does_not_admit_is_told_why_in_one_line(
    failure: Failed, words: str
) -> None:
    session = Session(Role.GUEST, GUEST_KEY, name="Ola", entropy=random.Random(1).randbytes)
    link = ConnectionLink(session)
    model = Model(link, random.Random(2))
    session.failure = failure
    link.connection_ended()
    assert stage_now(model) is Stage.OVER
    # The end as the connection tells it, with the referee's line on the guest's own log.
    verdict = "valid: no game: the logs fork at message 1, before the guest's accept"
    model.handle([Closed(Result.NONE, End.NO_GAME, verdict, failure.detail, None)])
    text = plain(screen(model))
    assert text.count(words) == 1, text
    assert "No game:" not in text and "Referee" not in text and "fork" not in text, text


def test_without_a_way_to_meet_again_the_end_offers_no_rematch() -> None:
    model = host_model()  # a link with no reunion, as a front end that cannot meet again
    press(model, "enter")
    guest_arrives(model)
    link = model.link
    assert isinstance(link, ConnectionLink)
    link.connection_ended()
    assert model.stage is Stage.OVER and not model.can_rematch
    assert "rematch" not in keys_line(model)
    press(model, "r")
    assert model.stage is Stage.OVER and "No rematch" in model.notice


def test_the_local_game_offers_a_rematch_at_the_end(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    assert not model.can_rematch, "not before the end"
    assert model.ready()
    play_out(model)
    assert model.can_rematch and "r rematch" in keys_line(model)


def test_a_long_reason_at_the_end_is_wrapped_not_cut() -> None:
    model = host_model()
    press(model, "enter")
    guest_arrives(model)
    detail = "the peer sent a frame " + "much too long " * 10
    link = model.link
    assert isinstance(link, ConnectionLink)
    link.session.failure = Failed(Code.TOO_LARGE, detail, True)
    link.connection_ended()
    text = plain(screen(model))
    assert " ".join(text.split()).count("much too long") == 10, text
    assert all(len(line) <= 80 for line in text.splitlines())


def test_a_game_over_a_network_shows_its_move_limit_and_one_against_the_computer_none(
    tmp_path: Path,
) -> None:
    networked = host_model()
    assert "120 s a move" in plain(screen(networked))
    local, _ = game(tmp_path)
    assert local.move_seconds is None
    assert " s a move" not in plain(screen(local))


def test_each_side_says_what_it_waits_for() -> None:
    guest = Session(Role.GUEST, GUEST_KEY, name="Ola", entropy=random.Random(3).randbytes)
    joined = Model(ConnectionLink(guest), random.Random(4))
    assert "Connected to the host; waiting while it chooses the rules" in plain(screen(joined))
    host = host_model(invite=INVITE)
    press(host, "enter")
    assert "the game starts when a guest joins" in host.notice
    guest_arrives(host)
    assert host.notice == "Ola joined; waiting for them to accept the rules and commit a fleet"
    assert "Ola joined; waiting for them" in plain(screen(host))


def test_a_long_notice_while_placing_is_wrapped_not_cut() -> None:
    model = host_model()
    reason = "ships G8-J8 and H7 touch " + "at a corner or a side " * 4 + "at H7, G8"
    model.say(f"The battle cannot start: {reason}", trouble=True)
    text = plain(screen(model))
    assert reason in " ".join(text.split()), text
    assert all(len(line) <= 80 for line in text.splitlines())


def test_a_long_log_path_is_shown_whole() -> None:
    from statki_client.layout import broken_lines

    path = "/home/someone/" + "a-folder-with-a-long-name/" * 4 + "game.statki"
    lines = broken_lines(path, 75)
    assert "".join(lines) == path and all(len(line) <= 75 for line in lines)
    assert all(line.endswith("/") for line in lines[:-1]), "broken after a folder's name"


def test_two_players_of_one_name_are_told_apart() -> None:
    model = host_model()
    hello = Hello(1, "statki", public_key_bytes(GUEST_KEY), "ala", bytes(32))
    model.handle([PeerHello(Role.GUEST, hello)])
    assert model.opponent_label() == "your opponent ala"
    assert model.session.name == "Ala"


@pytest.mark.parametrize("language", ["en", "pl"])
def test_both_sides_say_what_they_wait_for_once_the_guest_has_connected(language: str) -> None:
    """The host's screen kept the invite and "waiting for the opponent" after its guest had
    connected, until its fleet was committed; the guest's title said the same while connected."""
    speak(language)
    try:
        model = host_model(invite=INVITE)
        alone = plain(screen(model))
        assert INVITE[:44] in alone and _("waiting for the opponent") in alone.splitlines()[0]
        model.handle([GuestAtTheDoor(1)])
        come = plain(screen(model))
        door = _("A guest has connected and waits for your rules: place your fleet, Enter starts")
        assert INVITE[:44] not in come and door in " ".join(come.split())
        assert _("a guest waits for your rules") in come.splitlines()[0], come
        assert not cut_short(model)
        model.handle([GuestAtTheDoor(0)])  # it left: the invite again, for the one to come
        assert INVITE[:44] in plain(screen(model))
        session = Session(Role.GUEST, GUEST_KEY, name="Ola", entropy=random.Random(1).randbytes)
        guest = Model(ConnectionLink(session), random.Random(2))
        said = plain(screen(guest)).splitlines()
        assert (
            _("waiting for the host's rules") in said[0]
            and _("waiting for the opponent") not in said[0]
        )
        assert _("waiting for the host's rules") in said[-1]
    finally:
        speak("en")


def test_a_battle_stopped_before_its_end_is_unfinished_not_no_game() -> None:
    """The daemon killed mid-battle: the screen said "No game: it stopped before the rules
    were accepted" and offered a rematch, while ``statki resume`` picked the game up."""
    from peers import make_pair, play

    from statki_net.game.rules import PRESETS
    from statki_net.protocol.rematch import rematch_of

    pair = make_pair(PRESETS["classic"], seed=12)
    play(pair, seed=13, stop_after=4)
    session = pair.guest
    assert session.transcript.accepted and not session.transcript.ended
    link = ConnectionLink(session)
    model = Model(link, random.Random(2))
    model.handle(pair.events[Role.GUEST])
    session.failure = Failed(Code.CLOSED, "the daemon went away", False)
    link.connection_ended()
    assert stage_now(model) is Stage.OVER and model.end_screen is not None
    text = plain(screen(model))
    assert "The game stopped unfinished: statki resume picks it up" in text, text
    assert "No game" not in text and "Shots: you" in text, text
    assert rematch_of(session) is None and not model.can_rematch
