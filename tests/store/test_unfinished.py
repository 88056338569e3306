"""Unfinished games' secrets in the home, and a log picked up after a crash."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest
from peers import make_pair, play

from statki_net.game.errors import UsageError
from statki_net.game.rules import PRESETS
from statki_net.protocol.logformat import Note, header_record, read_log
from statki_net.protocol.session import SideSecrets
from statki_net.protocol.wire import Role
from statki_net.store.claim import RESUME_PATIENCE_S, GameTaken, claim, is_free, lock_path
from statki_net.store.language import catalog
from statki_net.store.logwriter import LogWriter
from statki_net.store.unfinished import (
    SecretKeeper,
    Unfinished,
    find_unfinished,
    forget,
    glance,
    keep,
    unfinished_games,
)

SECRETS = SideSecrets(((0, 1, 2), (5,)), bytes(range(32)), bytes(32))


def kept(game: str, started: int = 5) -> Unfinished:
    return Unfinished(game, Role.GUEST, "Olek", Path("/x/log"), SECRETS, "statki://a", 0, started)


def test_kept_secrets_are_the_owners_alone_and_read_back(tmp_path: Path) -> None:
    keep(tmp_path, kept("ab" * 32))
    (path,) = (tmp_path / "unfinished").iterdir()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "unfinished").stat().st_mode) == 0o700
    assert unfinished_games(tmp_path) == [kept("ab" * 32)]
    keep(tmp_path, kept("ab" * 32, started=9))  # rewritten whole, never two files
    assert [g.started for g in unfinished_games(tmp_path)] == [9]
    forget(tmp_path, "ab" * 32)
    assert unfinished_games(tmp_path) == []
    forget(tmp_path, "ab" * 32)  # already gone: nothing to do


def test_a_game_is_found_by_the_start_of_its_id(tmp_path: Path) -> None:
    keep(tmp_path, kept("ab" * 32, started=2))
    keep(tmp_path, kept("ac" * 32, started=1))
    (tmp_path / "unfinished" / "broken.json").write_text("{")
    assert [g.game[:2] for g in unfinished_games(tmp_path)] == ["ac", "ab"], "oldest first"
    assert find_unfinished(tmp_path, "ABAB").game == "ab" * 32
    with pytest.raises(UsageError, match="2 unfinished games"):
        find_unfinished(tmp_path, "a")
    with pytest.raises(UsageError, match="no unfinished game"):
        find_unfinished(tmp_path, "ff")


def test_a_log_cut_mid_record_is_appended_to_after_its_last_whole_record(
    tmp_path: Path,
) -> None:
    path = tmp_path / "logs" / "game.statki"
    log = LogWriter(path, header_record("guest", "statki test", 1))
    log.note(Note("first", 2))
    log.close()
    whole = path.read_bytes()
    path.write_bytes(whole + b"\x82\xa4note")  # a record the crash cut short
    again = LogWriter.appending(path)
    again.note(Note("second", 3))
    again.close()
    contents = read_log(path.read_bytes())
    assert contents.damage is None
    assert [n.text for n in contents.notes] == ["first", "second"]


def test_a_game_whose_log_is_gone_or_no_log_is_glanced_at_as_none(tmp_path: Path) -> None:
    """The start screen then names the game without details instead of failing."""
    assert glance(kept("ab" * 32)) is None  # /x/log: gone
    garbage = tmp_path / "game.statki"
    garbage.write_bytes(b"not a log at all")
    base = kept("ab" * 32)
    assert glance(Unfinished(base.game, base.role, base.name, garbage, SECRETS)) is None


def test_a_claim_at_the_instant_another_program_asks_is_free_is_not_refused(
    tmp_path: Path,
) -> None:
    """A start screen's ``is_free`` holds the lock for an instant (made 50 ms here, in a
    process of its own): a ``statki resume`` claiming then waits it out."""
    game = "ab" * 32
    claim(tmp_path, game).release()  # the lock file is there, as for any game once kept
    asking = subprocess.Popen(
        [sys.executable, "-c", ASKS_A_WHILE, str(lock_path(tmp_path, game))],
        stdout=subprocess.PIPE,
    )
    try:
        assert asking.stdout is not None and asking.stdout.readline() == b"locked\n"
        assert is_free(tmp_path, game), "two askers do not exclude each other"
        claimed = claim(tmp_path, game, patience_s=RESUME_PATIENCE_S)
    finally:
        asking.wait(10)
    assert claimed.holds(tmp_path, game) and not is_free(tmp_path, game)
    claimed.release()
    assert is_free(tmp_path, game)


def test_a_keeper_never_waits_for_a_held_lock(tmp_path: Path) -> None:
    """A keeper claims inside the daemon's event loop: a lock held at that instant (50 ms,
    by a process of its own) refuses it at once, instead of a sleep that would stop every
    game the daemon plays."""
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, seed=4)
    game = pair.host.transcript.game.hex()
    claim(tmp_path, game).release()
    asking = subprocess.Popen(
        [sys.executable, "-c", ASKS_A_WHILE, str(lock_path(tmp_path, game))],
        stdout=subprocess.PIPE,
    )
    try:
        assert asking.stdout is not None and asking.stdout.readline() == b"locked\n"
        with pytest.raises(GameTaken):
            SecretKeeper(tmp_path).keep(pair.host, tmp_path / "game.statki")
    finally:
        asking.wait(10)


def test_a_keeper_refused_its_new_game_does_not_say_resumed(tmp_path: Path) -> None:
    """At its commit a game is new, not picked up: the keeper's refusal says it cannot be
    played (both sides of one game in one home, say), in Polish too."""
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, seed=4)
    game = pair.host.transcript.game.hex()
    held = claim(tmp_path, game)  # the other side's program, from the same home
    with pytest.raises(GameTaken) as refused:
        SecretKeeper(tmp_path).keep(pair.guest, tmp_path / "game.statki")
    held.release()
    why = "another statki program in this home plays it now"
    assert str(refused.value) == f"Game {game[:8]} cannot be played: {why}"
    polish = refused.value.in_words(catalog("pl"))
    taken = "rozgrywa ją teraz inny program statki w tym katalogu"
    assert polish == f"Gry {game[:8]} nie da się rozegrać: {taken}"


ASKS_A_WHILE = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_SH)
print("locked", flush=True)
time.sleep(0.05)
"""
"""What ``is_free`` does, held 50 ms (a shared lock: asking never excludes another asker)."""


def test_a_keeper_serving_a_new_game_claims_it_though_it_holds_another(tmp_path: Path) -> None:
    """A keeper reused for a rematch, still holding the game before's lock: the new game's
    lock is taken too, so that no second program picks the new game up."""
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, seed=4)
    before = "cd" * 32
    keeper = SecretKeeper(tmp_path, claimed=claim(tmp_path, before))
    keeper.keep(pair.host, tmp_path / "game.statki")
    game = pair.host.transcript.game.hex()
    assert keeper.claimed is not None and keeper.claimed.holds(tmp_path, game)
    assert not is_free(tmp_path, game), "the new game is this program's"
    assert is_free(tmp_path, before), "the game before is let go"
    with pytest.raises(GameTaken, match="another statki program in this home plays it now"):
        claim(tmp_path, game)
    keeper.forget()
    assert is_free(tmp_path, game) and unfinished_games(tmp_path) == []


def test_a_keeper_given_its_games_lock_under_another_spelling_of_the_home_keeps_it(
    tmp_path: Path,
) -> None:
    """``statki resume`` claims the game, then gives the claim to the keeper: the same file
    by another path is the lock it holds (a second claim would wait on it, then fail)."""
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, seed=4)
    game = pair.host.transcript.game.hex()
    (tmp_path / "elsewhere").mkdir()
    held = claim(tmp_path / "elsewhere" / "..", game)
    keeper = SecretKeeper(tmp_path, claimed=held)
    keeper.keep(pair.host, tmp_path / "game.statki")
    assert keeper.claimed is held and held.holds(tmp_path, game)
    keeper.forget()
