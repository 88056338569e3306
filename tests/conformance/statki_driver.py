"""The conformance driver for statki itself: ``statki_driver.py host | join INVITE``.

It follows the driver contract of protocol/CONFORMANCE.md with nothing but
statki's command line: a fresh home for the case inside
``STATKI_CONFORMANCE_LOG_DIR`` (so statki's log of the game lands there),
the case's rules and move limit, and the computer playing (``--bot``).  The
process becomes ``statki host`` or ``statki join`` itself (``exec``), so the
suite's signals reach statki.  As host it listens on a free port it
advertises first on loopback, so the invite's first address is 127.0.0.1.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def command(argv: list[str], env: dict[str, str]) -> list[str]:
    seconds = int(env.get("STATKI_CONFORMANCE_MOVE_MS", "60000")) / 1000
    common = ["--bot", "random", "--plain", "--move-timeout", f"{seconds:g}"]
    statki = [sys.executable, "-m", "statki_net"]
    if argv[:1] == ["host"]:
        port = free_port()
        rules = env.get("STATKI_CONFORMANCE_RULES", "classic")
        where = ["--port", str(port), "--advertise", f"127.0.0.1:{port}"]
        return [*statki, "host", "--rules", rules, *where, *common]
    if argv[:1] == ["join"] and len(argv) == 2:
        return [*statki, "join", argv[1], *common]
    raise SystemExit("usage: statki_driver.py host | statki_driver.py join INVITE")


def main() -> None:
    env = dict(os.environ)
    home = Path(env.get("STATKI_CONFORMANCE_LOG_DIR", ".")) / "home"
    env.update(STATKI_HOME=str(home), NO_COLOR="1")
    args = command(sys.argv[1:], env)
    os.execve(args[0], args, env)


if __name__ == "__main__":
    main()
