"""A front end trusts a control socket only if this user's own daemon could have made it."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from statki_net.net.control import ControlClient, UntrustedSocket, socket_path


def _listening(home: Path) -> socket.socket:
    """A socket where the daemon's would be: someone answers, whoever made it."""
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(socket_path(home)))
    sock.listen()
    return sock


def _world_writable(home: Path) -> None:
    os.chmod(socket_path(home), 0o666)


def _open_home(home: Path) -> None:
    os.chmod(home, 0o777)


def _another_users(home: Path) -> None:
    os.chown(socket_path(home), 65534, 65534)


Plant = Callable[[Path], None]
PLANTED: dict[str, tuple[Plant, str]] = {
    "writable by others": (_world_writable, "others may write to it"),
    "in a home open to others": (_open_home, "its folder is not yours alone"),
}
if os.getuid() == 0:  # only root can give a file away
    PLANTED["another user's"] = (_another_users, "it belongs to another user")


@pytest.mark.parametrize("name", list(PLANTED))
def test_a_socket_someone_else_could_have_planted_is_refused(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    plant, reason = PLANTED[name]
    with _listening(home):
        os.chmod(socket_path(home), 0o600)
        assert asyncio.run(_connected(home)), "the socket as the daemon leaves it is trusted"
        plant(home)
        with pytest.raises(UntrustedSocket, match=reason):
            asyncio.run(_connected(home))


def test_a_link_or_a_file_in_the_socket_s_place_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    with _listening(elsewhere):
        socket_path(home).symlink_to(socket_path(elsewhere))
        with pytest.raises(UntrustedSocket, match="not a socket"):
            asyncio.run(_connected(home))
    socket_path(home).unlink()
    socket_path(home).write_bytes(b"")
    with pytest.raises(UntrustedSocket, match="not a socket"):
        asyncio.run(_connected(home))


def test_no_socket_means_no_daemon(tmp_path: Path) -> None:
    assert asyncio.run(_connected(tmp_path)) is False


async def _connected(home: Path) -> bool:
    client = await ControlClient.connect(home)
    if client is None:
        return False
    await client.close()
    return True
