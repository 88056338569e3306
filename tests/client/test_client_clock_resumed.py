"""The clock of a game picked up after this side's program stopped, on the opponent's move:
the same on both screens.

The tester's host was killed on Bob's move and picked the game up again: its screen gave
Bob a whole move limit from then (56 s), Bob's own screen the rest of his turn (34 s).
The opponent's turn began with this side's last message, by this side's own clock (the
log holds it), which is where the opponent counts from too (SPEC.md, "After the program
stopped"); only a short window for a move made while apart is kept.
"""

from __future__ import annotations

import io
from pathlib import Path

import msgpack
import pytest
from statki_client.layout import plain, screen
from statki_client.run import picked_up_model
from test_client_resumed import kept_game

from statki_net.protocol.bounds import RESUME_WINDOW_MS
from statki_net.protocol.logformat import MAGIC, heard_at
from statki_net.protocol.replay import told_so_far
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Role
from statki_net.store.language import speak
from statki_net.store.unfinished import restore, unfinished_games

MOVE_MS = 60_000


def host_kept_on_the_guests_move(home: Path, *, host_last: bool) -> str:
    """A game whose host was kept, the guest to move, its last message the host's (a hit
    answered: the guest shoots again) or the guest's (the host's miss answered)."""
    for volleys in range(12, 40):
        game = kept_game(home / str(volleys), side=Role.HOST, mover=Role.GUEST, volleys=volleys)
        frames = restore(home / str(volleys), game).session.transcript.frames
        if (frames[-1].header.sender is Role.HOST) is host_last:
            return str(volleys)
    raise AssertionError("no such game among those tried")


def picked_up_at(home: Path, back_after_s: int) -> tuple[Session, int, str]:
    """The kept game in ``home`` picked up ``back_after_s`` after its last message: the
    session, its last message's time, and the screen then."""
    [kept] = unfinished_games(home)
    restored = restore(home, kept.game)
    session = restored.session
    model, _link = picked_up_model(session, told_so_far(session, restored.contents))
    last_at = session.transcript.frames[-1].header.at
    now = last_at + back_after_s * 1000
    model.handle(session.start(now))
    return session, now, plain(screen(model, now=now))


@pytest.mark.parametrize(("back_after_s", "left_s"), [(4, 56), (26, 34), (50, 20)])
def test_the_host_back_on_the_guests_move_counts_from_its_last_message(
    tmp_path: Path, back_after_s: int, left_s: int
) -> None:
    speak("en")
    home = tmp_path / host_kept_on_the_guests_move(tmp_path, host_last=True)
    session, now, shown = picked_up_at(home, back_after_s)
    last_at = session.transcript.frames[-1].header.at
    # The guest took the host's last message at its `at` (back to back): its turn ends a
    # move limit later, by its own screen; never sooner than the window from now.
    due = max(last_at + MOVE_MS, now + RESUME_WINDOW_MS)
    assert session.turn_clock() == (Role.GUEST, due) and session.deadline() == due
    assert f"Olek has {left_s} s left to move." in shown, shown


def clock_moved(home: Path, by_ms: int) -> None:
    """The kept log's ``got`` times moved ``by_ms``: the host's clock that much ahead of the
    guest's, as two machines' clocks may be."""
    [kept] = unfinished_games(home)
    data = kept.log.read_bytes()
    records = list(msgpack.Unpacker(io.BytesIO(data[len(MAGIC) :]), raw=False))
    assert any("got" in r for r in records), "the host's log says when the guest's came"
    moved = [{**r, "got": r["got"] + by_ms} if "got" in r else r for r in records]
    kept.log.write_bytes(MAGIC + b"".join(msgpack.packb(r, use_bin_type=True) for r in moved))


def got_last(home: Path) -> int:
    """When the host's log says the guest's last message came, by the host's clock."""
    [kept] = unfinished_games(home)
    restored = restore(home, kept.game)
    heard = heard_at(restored.contents, restored.session.transcript.frames, Role.HOST)
    assert heard is not None
    return heard


@pytest.mark.parametrize("ahead_ms", [0, 7_000])
@pytest.mark.parametrize(("back_after_s", "left_s"), [(4, 56), (26, 34), (50, 20)])
def test_where_the_guest_spoke_last_the_host_counts_from_when_it_came(
    tmp_path: Path, back_after_s: int, left_s: int, ahead_ms: int
) -> None:
    """The guest's turn began with its own last message, which the host's log says reached
    the host at ``got`` by the host's own clock: the host counts from then, as the guest
    does from sending it, whatever the two clocks say; never sooner than the window."""
    speak("en")
    home = tmp_path / host_kept_on_the_guests_move(tmp_path, host_last=False)
    clock_moved(home, ahead_ms)
    came = got_last(home)
    [kept] = unfinished_games(home)
    restored = restore(home, kept.game)
    session = restored.session
    model, _link = picked_up_model(session, told_so_far(session, restored.contents))
    now = came + back_after_s * 1000
    model.handle(session.start(now))
    due = max(came + MOVE_MS, now + RESUME_WINDOW_MS)
    assert session.turn_clock() == (Role.GUEST, due) and session.deadline() == due
    assert f"Olek has {left_s} s left to move." in plain(screen(model, now=now))


@pytest.mark.parametrize("ahead_ms", [0, 7_000])
def test_back_on_its_own_move_the_host_counts_from_when_the_guests_message_came(
    tmp_path: Path, ahead_ms: int
) -> None:
    """The host's own turn began when the guest's last message reached it: by the host's
    clock (the log's ``got``), not the guest's ``at``, which another clock wrote."""
    speak("en")
    for volleys in range(12, 40):
        home = tmp_path / str(volleys)
        game = kept_game(home, side=Role.HOST, mover=Role.HOST, volleys=volleys)
        frames = restore(home, game).session.transcript.frames
        if frames[-1].header.sender is Role.GUEST:
            break
    else:
        raise AssertionError("no such game among those tried")
    clock_moved(home, ahead_ms)
    came = got_last(home)
    [kept] = unfinished_games(home)
    session = restore(home, kept.game).session
    now = came + 26_000
    session.start(now)
    assert session.turn_clock() == (Role.HOST, came + MOVE_MS)
