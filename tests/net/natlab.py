"""A small internet on this machine: network namespaces, veth pairs, two home routers.

::

    host (192.168.1.2, 2a00:11:1::2)            guest (192.168.2.2, 2a00:11:2::2)
       |                                           |
    router A: LAN 192.168.1.1, WAN 11.0.1.1     router B: LAN 192.168.2.1, WAN 11.0.2.1
       |   (nftables masquerade, miniupnpd)        |   (nftables masquerade)
       +------------------ internet --------------+
                    11.0.1.254, 11.0.2.254

Each home router translates its LAN's IPv4 addresses to its WAN address
(masquerade) and forwards IPv6 untranslated (when the lab has it).  The WAN
addresses are global ones (miniupnpd refuses to map behind a private
external address), but no packet leaves the namespaces: none of them has a
link to the machine's own network.  Router A can run a real ``miniupnpd``
(Debian's package) in the foreground.  Every name carries this process's id
and a counter, so parallel test workers do not meet; ``close`` deletes the
namespaces (and so every interface and rule in them) and ends miniupnpd.
"""

from __future__ import annotations

import itertools
import os
import select
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

TOOLS = ("ip", "nft", "miniupnpd", "upnpc")
"""What the lab needs; ./test.sh installs them with apt (miniupnpd miniupnpc nftables
iproute2) when it may."""
_labs = itertools.count(1)
ROLES = ("host", "guest", "ra", "rb", "inet")
MARKS = Path("/run/statki-natlab")
"""One file a lab, named by its prefix, holding the pid that built it: a worker killed by a
timeout never closes its labs, and the next run removes those whose process is gone."""


class NoNamespaces(Exception):
    """Network namespaces cannot be made here (not root, or no kernel support)."""


def check_can_build() -> None:
    """Raise ``NoNamespaces`` (a reason to skip) unless a namespace can be made and removed."""
    if os.geteuid() != 0:
        raise NoNamespaces("network namespaces need root")
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        raise AssertionError(
            f"missing {', '.join(missing)}: ./test.sh installs miniupnpd miniupnpc nftables"
            " iproute2 with apt"
        )
    name = f"skprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if made.returncode != 0:
        raise NoNamespaces(f"ip netns add failed: {made.stderr.strip()}")
    subprocess.run(["ip", "netns", "del", name], check=True)
    remove_stale_labs()


def remove_stale_labs() -> None:
    for mark in MARKS.glob("sk*") if MARKS.is_dir() else ():
        try:
            os.kill(int(mark.read_text()), 0)
            continue  # its process still runs: its lab is in use
        except ProcessLookupError:
            pass
        except (ValueError, OSError):
            continue
        for role in ROLES:
            subprocess.run(["ip", "netns", "del", f"{mark.name}{role}"], capture_output=True)
        mark.unlink(missing_ok=True)


@dataclass
class Lab:
    """The namespaces of one test's internet; see the module docstring."""

    folder: Path
    ipv6: bool = True
    cgnat: bool = False
    """Router A's WAN is in the provider's shared space (100.64.0.0/10), translated again
    before the internet: what a provider's carrier-grade NAT gives a home."""
    prefix: str = field(default_factory=lambda: f"sk{os.getpid() % 100000}{next(_labs)}")
    miniupnpd: subprocess.Popen[str] | None = None

    HOST_LAN = "192.168.1.2"
    GUEST_LAN = "192.168.2.2"
    HOST_WAN = "11.0.1.1"
    GUEST_WAN = "11.0.2.1"
    HOST_V6 = "2a00:11:1::2"
    GUEST_V6 = "2a00:11:2::2"

    def ns(self, role: str) -> str:
        """The namespace of ``role``: inet, ra, rb, host, guest."""
        return f"{self.prefix}{role}"

    def sh(self, role: str, *command: str, check: bool = True) -> str:
        done = subprocess.run(
            ["ip", "netns", "exec", self.ns(role), *command],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"{role}: {' '.join(command)}: {done.stderr.strip()}")
        return done.stdout

    def build(self) -> Lab:
        MARKS.mkdir(parents=True, exist_ok=True)
        (MARKS / self.prefix).write_text(str(os.getpid()))
        for role in ("inet", "ra", "rb", "host", "guest"):
            subprocess.run(["ip", "netns", "add", self.ns(role)], check=True)
            self.sh(role, "ip", "link", "set", "lo", "up")
        self._link("inet", "ia", "ra", "aw")
        self._link("inet", "ib", "rb", "bw")
        self._link("ra", "al", "host", "h0")
        self._link("rb", "bl", "guest", "g0")
        for side, lan, home in (("a", "1", "host"), ("b", "2", "guest")):
            router = f"r{side}"
            wan = "100.64" if self.cgnat and side == "a" else "11.0"
            self._address("inet", f"i{side}", f"{wan}.{lan}.254/24", f"2a00:11:{side}::fe/64")
            self._address(router, f"{side}w", f"{wan}.{lan}.1/24", f"2a00:11:{side}::1/64")
            self._address(router, f"{side}l", f"192.168.{lan}.1/24", f"2a00:11:{lan}::1/64")
            self._address(home, f"{home[0]}0", f"192.168.{lan}.2/24", f"2a00:11:{lan}::2/64")
            self.sh(router, "ip", "route", "add", "default", "via", f"{wan}.{lan}.254")
            self.sh(home, "ip", "route", "add", "default", "via", f"192.168.{lan}.1")
            if self.ipv6:
                self.sh(router, "ip", "-6", "route", "add", "default", "via", f"2a00:11:{side}::fe")
                self.sh(home, "ip", "-6", "route", "add", "default", "via", f"2a00:11:{lan}::1")
                self.sh(
                    "inet",
                    "ip",
                    "-6",
                    "route",
                    "add",
                    f"2a00:11:{lan}::/64",
                    "via",
                    f"2a00:11:{side}::1",
                )
            self._masquerade(router, f"{self.prefix}{side}w")
        for router in ("inet", "ra", "rb"):
            self.sh(router, "sysctl", "-qw", "net.ipv4.ip_forward=1")
            self.sh(router, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1")
        return self

    def _link(self, left: str, left_end: str, right: str, right_end: str) -> None:
        a, b = self.prefix + left_end, self.prefix + right_end
        subprocess.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b], check=True)
        subprocess.run(["ip", "link", "set", a, "netns", self.ns(left)], check=True)
        subprocess.run(["ip", "link", "set", b, "netns", self.ns(right)], check=True)

    def _address(self, role: str, end: str, ipv4: str, ipv6: str) -> None:
        device = self.prefix + end
        self.sh(role, "ip", "addr", "add", ipv4, "dev", device)
        if self.ipv6:  # nodad: usable at once, not after duplicate address detection
            self.sh(role, "ip", "-6", "addr", "add", ipv6, "dev", device, "nodad")
        else:
            self.sh(role, "sysctl", "-qw", f"net.ipv6.conf.{device}.disable_ipv6=1")
        self.sh(role, "ip", "link", "set", device, "up")

    def _masquerade(self, router: str, wan: str) -> None:
        """The home router's rules: miniupnpd's chains hooked in, and the LAN masqueraded."""
        ruleset = f"""
table inet filter {{
  chain forward {{ type filter hook forward priority 0; policy accept; jump miniupnpd; }}
  chain miniupnpd {{ }}
  chain prerouting {{
    type nat hook prerouting priority -100; policy accept; jump prerouting_miniupnpd;
  }}
  chain postrouting {{
    type nat hook postrouting priority 100; policy accept; jump postrouting_miniupnpd;
    oifname "{wan}" meta nfproto ipv4 masquerade;
  }}
  chain prerouting_miniupnpd {{ }}
  chain postrouting_miniupnpd {{ }}
}}
"""
        done = subprocess.run(
            ["ip", "netns", "exec", self.ns(router), "nft", "-f", "-"],
            input=ruleset,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr

    def drop_from_guest(self, address: str) -> None:
        """The guest's router drops what the guest sends to ``address``: a path that is dead."""
        self.sh(
            "rb",
            "nft",
            "insert",
            "rule",
            "inet",
            "filter",
            "forward",
            "ip",
            "daddr",
            address,
            "drop",
        )

    def start_miniupnpd(self, *, upnp: bool = True) -> None:
        """A real miniupnpd on router A, in the foreground, answering only its LAN: UPnP IGD
        and NAT-PMP, or (``upnp=False``) NAT-PMP alone."""
        config = self.folder / "miniupnpd.conf"
        config.write_text(
            f"ext_ifname={self.prefix}aw\n"
            f"listening_ip={self.prefix}al\n"
            "http_port=0\n"
            f"enable_upnp={'yes' if upnp else 'no'}\n"
            "enable_natpmp=yes\n"
            "secure_mode=yes\n"
            "uuid=3d3cec3a-8cf0-11e0-98ee-001a6bd2d07b\n"
            "allow 1024-65535 192.168.1.0/24 1024-65535\n"
            "deny 0-65535 0.0.0.0/0 0-65535\n"
        )
        self.miniupnpd = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                self.ns("ra"),
                "miniupnpd",
                "-d",
                "-f",
                str(config),
                "-P",
                str(self.folder / "miniupnpd.pid"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._wait_for_miniupnpd("HTTP listening on port" if upnp else "Listening for NAT-PMP")

    def _wait_for_miniupnpd(self, text: str, seconds: float = 10.0) -> None:
        assert self.miniupnpd is not None and self.miniupnpd.stdout is not None
        fd = self.miniupnpd.stdout.fileno()
        seen = b""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and text.encode() not in seen:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                seen += chunk
        assert text.encode() in seen, f"miniupnpd did not start: {seen.decode()[-2000:]}"

    def mappings(self) -> str:
        """The router's port forwards (its nftables DNAT rules), as nft lists them."""
        return self.sh("ra", "nft", "list", "chain", "inet", "filter", "prerouting_miniupnpd")

    def statki(self, role: str, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
        """A real ``statki`` process in ``role``'s namespace."""
        return subprocess.Popen(
            ["ip", "netns", "exec", self.ns(role), sys.executable, "-m", "statki_net", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )

    def close(self) -> None:
        if self.miniupnpd is not None and self.miniupnpd.poll() is None:
            self.miniupnpd.terminate()
            try:
                self.miniupnpd.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                self.miniupnpd.kill()
                self.miniupnpd.communicate()
        for role in ROLES:
            subprocess.run(["ip", "netns", "del", self.ns(role)], capture_output=True)
        (MARKS / self.prefix).unlink(missing_ok=True)
