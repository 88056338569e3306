"""A daemon plays under the player's kept name (issue 14): started without ``--name`` it
called itself "statki daemon", so that was the host's name on the guest's screen, in the
logs and the verdicts.  Kept in the home it is the player's; with none kept, no name, as
``statki host --bot`` plays.  Real daemon, real guest process, loopback TCP: a few seconds.
"""

from __future__ import annotations

from pathlib import Path

from netproc import line_starting, run, start, stop

from statki_net.protocol.logformat import frames_of, read_log
from statki_net.protocol.wire import Hello
from statki_net.store.player import keep_name


def _host_named_to_the_guest(tmp_path: Path) -> tuple[str, str]:
    """The line the guest of the daemon in ``tmp_path / "a"`` is told its opponent on, and
    the host's name in the guest's log."""
    alice, bob = tmp_path / "a", tmp_path / "b"
    daemon = start(
        alice, "daemon", "--listen", "127.0.0.1:0", "--bot", "random", "--rules", "corners"
    )
    try:
        port = line_starting(daemon, "listening on 127.0.0.1:", []).rsplit(":", 1)[1]
        line_starting(daemon, "control socket", [])
        joined = run(bob, "join", f"127.0.0.1:{port}", "--bot", "random")
    finally:
        stop(daemon)
    assert joined.returncode == 0, joined.stderr
    [told] = [line for line in joined.stdout.splitlines() if line.startswith("opponent: ")]
    [log] = list((bob / "logs").iterdir())
    hello = frames_of(read_log(log.read_bytes()))[0].message
    assert isinstance(hello, Hello)
    return told, hello.name


def test_a_daemon_plays_under_the_name_kept_in_its_home(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    keep_name(tmp_path / "a", "Zosia")
    told, logged = _host_named_to_the_guest(tmp_path)
    assert told.startswith("opponent: Zosia ["), told
    assert logged == "Zosia"


def test_a_daemon_with_no_name_kept_plays_without_one(tmp_path: Path) -> None:
    told, logged = _host_named_to_the_guest(tmp_path)
    assert told.startswith("opponent: (no name) ["), told
    assert logged == ""
