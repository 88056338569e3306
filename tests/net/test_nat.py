"""Through home routers, tested across real address translation (``natlab``'s small internet).

Real ``statki host`` and ``statki join`` processes in network namespaces
behind routers that masquerade; the host's router runs Debian's miniupnpd.
Skipped, saying why, only where namespaces cannot be made (not root).
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import Cli
from natlab import Lab, NoNamespaces, check_can_build
from netproc import env_for, finish, line_starting, stop

from statki_net.net.invite import DEFAULT_PORT, parse_invite

MakeLab = Callable[..., Lab]


@pytest.fixture(scope="module")
def can_build() -> None:
    try:
        check_can_build()
    except NoNamespaces as why:
        pytest.skip(f"no network namespaces here: {why}")


@pytest.fixture
def make_lab(can_build: None, tmp_path: Path) -> Iterator[MakeLab]:
    """Build a lab (with IPv6 or not, behind CGNAT or not); every one made is taken down
    after the test, whether it passed or not."""
    made: list[Lab] = []

    def make(*, ipv6: bool = True, cgnat: bool = False) -> Lab:
        lab = Lab(tmp_path / f"lab{len(made)}", ipv6=ipv6, cgnat=cgnat)
        lab.folder.mkdir()
        made.append(lab)
        return lab.build()

    yield make
    for lab in made:
        lab.close()


def env(home: Path) -> dict[str, str]:
    """The processes' environment: their home, and the router asked (tests elsewhere never)."""
    values = env_for(home)
    values.pop("STATKI_NO_MAP", None)
    return values


Hosting = Callable[[str, list[str]], None]
"""Checks made while the host waits: given its invite and its lines before it."""


def play(
    lab: Lab, tmp_path: Path, *host_args: str, while_hosting: Hosting | None = None
) -> tuple[str, subprocess.CompletedProcess[str], tuple[int, str, str], list[str]]:
    """A whole game, bots on both sides: the host in its home, the guest joining with the
    invite exactly as the host printed it.  The invite, the guest's run, the host's end, and
    the host's lines before the invite."""
    host = lab.statki("host", env(tmp_path / "alice"), "host", "--bot", "hunt", *host_args)
    try:
        seen: list[str] = []
        invite = line_starting(host, "statki://", seen)
        if while_hosting is not None:
            while_hosting(invite, seen)
        guest = subprocess.run(
            ["ip", "netns", "exec", lab.ns("guest"), *_statki(), "join", invite, "--bot", "hunt"],
            capture_output=True,
            text=True,
            timeout=50,
            env=env(tmp_path / "bob"),
        )
        return invite, guest, finish(host), seen
    finally:
        if host.poll() is None:
            stop(host)


def _statki() -> list[str]:
    return [sys.executable, "-m", "statki_net"]


def verified(cli: Cli, *homes: Path) -> None:
    """Each side's one log passes ``statki verify``."""
    for home in homes:
        [log] = sorted((home / "logs").glob("*.statki"))
        checked = cli("verify", str(log))
        assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_game_through_the_hosts_router_with_the_port_mapped_by_upnp(
    make_lab: MakeLab, tmp_path: Path, cli: Cli
) -> None:
    lab = make_lab()
    lab.start_miniupnpd()

    def mapped(invite: str, seen: list[str]) -> None:
        # The router's external address comes first, the global IPv6 one next, the LAN's last.
        assert parse_invite(invite).addresses == (
            (Lab.HOST_WAN, DEFAULT_PORT),
            (Lab.HOST_V6, DEFAULT_PORT),
            (Lab.HOST_LAN, DEFAULT_PORT),
        )
        assert any(line.startswith("router: ") and Lab.HOST_WAN in line for line in seen), seen
        forwards = lab.mappings()
        assert f"dport {DEFAULT_PORT}" in forwards and f"dnat ip to {Lab.HOST_LAN}" in forwards
        assert list((tmp_path / "alice" / "portmaps").glob("*.json")), "the mapping is kept"

    _, guest, (status, _, err), _ = play(lab, tmp_path, while_hosting=mapped)
    assert guest.returncode == 0, guest.stderr
    assert status == 0, err
    # Through the mapping: to the router's address, and the host saw the guest's router.
    assert f"connected to {Lab.HOST_WAN}:{DEFAULT_PORT}" in guest.stdout
    assert f"dnat ip to {Lab.HOST_LAN}" not in lab.mappings(), "the mapping is gone"
    assert not list((tmp_path / "alice" / "portmaps").glob("*.json"))
    verified(cli, tmp_path / "alice", tmp_path / "bob")


def test_a_game_through_a_router_that_speaks_only_nat_pmp(
    make_lab: MakeLab, tmp_path: Path, cli: Cli
) -> None:
    lab = make_lab(ipv6=False)
    lab.start_miniupnpd(upnp=False)

    def mapped(invite: str, seen: list[str]) -> None:
        assert parse_invite(invite).addresses[0] == (Lab.HOST_WAN, DEFAULT_PORT)
        assert any("(NAT-PMP, " in line for line in seen), seen
        assert f"dnat ip to {Lab.HOST_LAN}:{DEFAULT_PORT}" in lab.mappings()

    _, guest, (status, _, err), _ = play(lab, tmp_path, while_hosting=mapped)
    assert guest.returncode == 0, guest.stderr
    assert status == 0, err
    assert f"connected to {Lab.HOST_WAN}:{DEFAULT_PORT}" in guest.stdout
    assert "dnat" not in lab.mappings(), "the mapping is gone"
    verified(cli, tmp_path / "alice", tmp_path / "bob")


def test_a_router_that_does_not_map_gets_one_clear_message(
    make_lab: MakeLab, tmp_path: Path
) -> None:
    lab = make_lab(ipv6=False)  # no miniupnpd: nothing answers the search; no IPv6 either
    host = lab.statki("host", env(tmp_path / "alice"), "host", "--bot", "hunt")
    try:
        seen: list[str] = []
        invite = line_starting(host, "statki://", seen)
        status, _, err = _terminate(host)
    finally:
        if host.poll() is None:
            stop(host)
    assert parse_invite(invite).addresses == ((Lab.HOST_LAN, DEFAULT_PORT),)
    assert any(line.startswith("router: none answered") for line in seen), seen
    said = " ".join(err.split())  # wrapped at words to the terminal's width
    assert said.count("cannot reach you") == 1, err
    assert f"forward TCP port {DEFAULT_PORT}" in said and "--advertise" in said, said
    assert "IPv6" in said and "swap roles" in said, said
    assert status == 143, err
    doctor = subprocess.run(
        ["ip", "netns", "exec", lab.ns("host"), *_statki(), "doctor"],
        capture_output=True,
        text=True,
        timeout=30,
        env=env(tmp_path / "alice"),
    )
    assert doctor.returncode == 1, doctor.stderr
    assert f"address: {Lab.HOST_LAN} (IPv4, private" in doctor.stdout
    assert (
        "router: none answered" in doctor.stdout
        and "verdict: guests on the internet cannot" in doctor.stdout
    )


def test_doctor_shows_the_router_a_test_mapping_and_the_external_address(
    make_lab: MakeLab, tmp_path: Path
) -> None:
    lab = make_lab(ipv6=False)
    lab.start_miniupnpd()
    doctor = subprocess.run(
        ["ip", "netns", "exec", lab.ns("host"), *_statki(), "doctor"],
        capture_output=True,
        text=True,
        timeout=30,
        env=env(tmp_path / "alice"),
    )
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    lines = doctor.stdout
    assert f"external address: {Lab.HOST_WAN} (global)" in lines, lines
    assert (
        f"test mapping: TCP port {DEFAULT_PORT} -> {Lab.HOST_LAN}:{DEFAULT_PORT} made and removed"
        in lines
    ), lines
    assert "verdict: guests on the internet can reach you" in lines, lines
    assert f"dnat ip to {Lab.HOST_LAN}" not in lab.mappings()


def test_a_router_behind_carrier_grade_nat_refuses_and_the_message_says_so(
    make_lab: MakeLab, tmp_path: Path
) -> None:
    """miniupnpd whose own address is in the provider's 100.64/10 maps nothing."""
    lab = make_lab(ipv6=False, cgnat=True)
    lab.start_miniupnpd()
    host = lab.statki("host", env(tmp_path / "alice"), "host", "--bot", "hunt")
    try:
        seen: list[str] = []
        line_starting(host, "statki://", seen)
        _, _, err = _terminate(host)
    finally:
        if host.poll() is None:
            stop(host)
    [at] = [n for n, line in enumerate(seen) if line.startswith("router: ")]
    router = " ".join(seen[at : at + 2])  # wrapped between words at the terminal's width
    assert "refused" in router and "no public address" in router, router
    assert f"forward TCP port {DEFAULT_PORT}" in " ".join(err.split()), err  # wrapped at words
    assert "dnat" not in lab.mappings()


def test_ipv6_between_two_global_addresses_needs_no_router(
    make_lab: MakeLab, tmp_path: Path, cli: Cli
) -> None:
    lab = make_lab()
    invite, guest, (status, _, err), _ = play(lab, tmp_path, "--no-map")
    assert parse_invite(invite).addresses[0] == (Lab.HOST_V6, DEFAULT_PORT)
    assert guest.returncode == 0, guest.stderr
    assert status == 0, err
    assert f"connected to [{Lab.HOST_V6}]:{DEFAULT_PORT}" in guest.stdout
    verified(cli, tmp_path / "alice", tmp_path / "bob")


def test_a_guest_that_cannot_reach_the_first_address_takes_the_next(
    make_lab: MakeLab, tmp_path: Path, cli: Cli
) -> None:
    lab = make_lab()
    lab.start_miniupnpd()
    lab.drop_from_guest(Lab.HOST_WAN)  # the mapped address: dead from the guest's home
    invite, guest, (status, _, err), _ = play(lab, tmp_path)
    assert parse_invite(invite).addresses[0] == (Lab.HOST_WAN, DEFAULT_PORT)
    assert guest.returncode == 0, guest.stderr
    assert status == 0, err
    # Straight to the next address after the head start: the dead one never had to time out
    # (its attempt was abandoned, so it is not named among the failures).  A later address
    # may be named: the host's LAN address fails at once from here when its attempt starts
    # before the IPv6 one connects, which depends on the machine's load.
    connected = next(line for line in guest.stdout.splitlines() if line.startswith("connected"))
    assert connected.startswith(f"connected to [{Lab.HOST_V6}]:{DEFAULT_PORT}"), guest.stdout
    assert Lab.HOST_WAN not in connected, connected
    verified(cli, tmp_path / "alice", tmp_path / "bob")


def test_the_next_start_removes_the_mapping_a_crashed_host_left(
    make_lab: MakeLab, tmp_path: Path
) -> None:
    lab = make_lab(ipv6=False)
    lab.start_miniupnpd()
    home = tmp_path / "alice"
    host = lab.statki("host", env(home), "host", "--bot", "hunt")
    try:
        line_starting(host, "statki://", [])
    finally:
        host.kill()  # no finally of its own runs: the mapping stays on the router
        host.communicate(timeout=30)
    assert f"dnat ip to {Lab.HOST_LAN}:{DEFAULT_PORT}" in lab.mappings()
    assert list((home / "portmaps").glob("*.json"))
    doctor = subprocess.run(  # any start that asks the router cleans up; doctor on another port
        ["ip", "netns", "exec", lab.ns("host"), *_statki(), "doctor", "--port", "47480"],
        capture_output=True,
        text=True,
        timeout=30,
        env=env(home),
    )
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "dnat" not in lab.mappings(), lab.mappings()
    assert not list((home / "portmaps").glob("*.json"))


def test_a_daemon_maps_its_port_and_its_hosted_games_invite_through_it(
    make_lab: MakeLab, tmp_path: Path, cli: Cli
) -> None:
    lab = make_lab(ipv6=False)
    lab.start_miniupnpd()
    home = tmp_path / "alice"
    daemon = lab.statki("host", env(home), "daemon")
    try:
        seen: list[str] = []
        line_starting(daemon, "control socket", seen)
        assert any(line.startswith("router: ") and Lab.HOST_WAN in line for line in seen), seen
        host = lab.statki("host", env(home), "host", "--bot", "hunt")
        invite = line_starting(host, "statki://", [])
        assert parse_invite(invite).addresses[0] == (Lab.HOST_WAN, DEFAULT_PORT)
        guest = subprocess.run(
            ["ip", "netns", "exec", lab.ns("guest"), *_statki(), "join", invite, "--bot", "hunt"],
            capture_output=True,
            text=True,
            timeout=50,
            env=env(tmp_path / "bob"),
        )
        host_status, _, host_err = finish(host)
        assert f"dnat ip to {Lab.HOST_LAN}" in lab.mappings(), "kept while the daemon runs"
        status, _, err = _terminate(daemon)
    finally:
        if daemon.poll() is None:
            stop(daemon)
    assert guest.returncode == 0, guest.stderr
    assert host_status == 0, host_err
    assert status == 0, err
    assert f"connected to {Lab.HOST_WAN}:{DEFAULT_PORT}" in guest.stdout
    assert "dnat" not in lab.mappings(), "removed when the daemon stopped"
    verified(cli, tmp_path / "bob")


RENEWING = """
import asyncio, sys
from pathlib import Path
from statki_net.net import portmap

async def main() -> None:
    mapping = portmap.PortMapping(Path(sys.argv[1]), 47490, lease_s=4)
    print(type(await mapping.open()).__name__, flush=True)
    # Past the lease: only a renewal (at 2 s, 4 s) keeps the mapping.  Read half-way
    # between renewals, so that the whole seconds left are never read at a renewal.
    for n in range(5):
        await asyncio.sleep(0.5 if n == 0 else 1)
        entry = await portmap._call(
            mapping.gateway.connection,
            "GetSpecificPortMappingEntry",
            NewRemoteHost="",
            NewExternalPort=47490,
            NewProtocol="TCP",
        )
        print(entry["NewLeaseDuration"], flush=True)
    await mapping.close()

asyncio.run(main())
"""


def test_the_mapping_is_renewed_before_its_lease_runs_out(
    make_lab: MakeLab, tmp_path: Path
) -> None:
    lab = make_lab(ipv6=False)
    lab.start_miniupnpd()
    home = tmp_path / "alice"
    home.mkdir()
    said = lab.sh("host", sys.executable, "-c", RENEWING, str(home)).split()
    assert said[0] == "Mapped", said
    # The seconds left, once a second: never run out, and back up after each renewal.
    left = [int(n) for n in said[1:]]
    assert len(left) == 5 and min(left) > 0, left
    assert any(later > earlier for earlier, later in itertools.pairwise(left)), left
    assert "dnat" not in lab.mappings()


def _terminate(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    os.kill(process.pid, signal.SIGTERM)
    return finish(process)
