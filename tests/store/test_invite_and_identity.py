"""Invites read strictly; the identity key created once even when processes race."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from statki_net.game.errors import UsageError
from statki_net.net.invite import format_invite, parse_address, parse_invite


@pytest.mark.parametrize("text", ["127.0.0.1:²", "127.0.0.1:0", "127.0.0.1:65536", "[::1]:x", ""])
def test_bad_addresses_are_one_clear_error(text: str) -> None:
    with pytest.raises(UsageError):
        parse_address(text, 47470, listening=False)


def test_an_invite_reads_back() -> None:
    key = bytes(range(32))
    invite = parse_invite(format_invite([parse_address("[::1]:5000", 47470, listening=False)], key))
    assert invite.key == key


def test_processes_racing_to_create_the_key_agree(tmp_path: Path) -> None:
    env = dict(os.environ, STATKI_HOME=str(tmp_path / "home"))
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "statki_net", "id"], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    prints = {run.communicate(timeout=60)[0].strip() for run in runs}
    assert len(prints) == 1 and all(run.returncode == 0 for run in runs)
    assert sorted(p.name for p in (tmp_path / "home").iterdir()) == ["identity.pem"]


@pytest.mark.parametrize("text", ["not an address!!", "[example.org]:5", "a_b-.c", "-a:5", "a b"])
def test_an_address_names_a_host(text: str) -> None:
    with pytest.raises(UsageError, match="neither an IP address nor a host name"):
        parse_address(text, 47470)


@pytest.mark.parametrize("text", ["localhost", "198.51.100.7:9", "[fe80::1%eth0]:3", "a.example."])
def test_host_names_and_addresses_are_read(text: str) -> None:
    assert parse_address(text, 47470)[0]
