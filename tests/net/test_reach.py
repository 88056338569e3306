"""The pure decisions about reaching a host: outcomes, the invite's order, the dial order."""

from __future__ import annotations

from statki_net.net.reach import (
    DoubleNat,
    Mapped,
    NoRouter,
    Refused,
    Via,
    advice,
    dial_order,
    invite_addresses,
    is_global,
    mapping_outcome,
    outcome_line,
)

PORT = 47470
LAN = ("192.168.1.2", PORT)
V6 = ("2a00:11::2", PORT)
V6_LOCAL = ("fd00::2", PORT)


def test_a_mapping_is_worth_what_the_routers_external_address_is() -> None:
    assert mapping_outcome("r", "11.0.1.1", PORT, 3600) == Mapped(
        ("11.0.1.1", PORT), Via.UPNP, "r", 3600
    )
    assert mapping_outcome("r", "100.64.0.7", PORT, 3600) == DoubleNat("r", "100.64.0.7")
    assert mapping_outcome("r", "10.0.0.1", PORT, 3600) == DoubleNat("r", "10.0.0.1")
    assert isinstance(mapping_outcome("r", None, PORT, 3600), Refused)
    assert isinstance(mapping_outcome("r", "0.0.0.0.0", PORT, 3600), Refused)


def test_global_means_routed_on_the_internet() -> None:
    assert is_global("11.0.1.1") and is_global("2a00:11::2") and is_global("statki.example")
    for host in ("192.168.1.2", "100.64.0.1", "127.0.0.1", "fe80::1%eth0", "fd00::1", "::1"):
        assert not is_global(host), host


def test_the_invite_names_the_advertised_then_the_mapped_then_global_ipv6_then_the_rest() -> None:
    mapped = Mapped(("11.0.1.1", PORT), Via.UPNP, "r", 3600)
    local = [LAN, V6_LOCAL, V6]
    assert invite_addresses([], mapped, local) == [("11.0.1.1", PORT), V6, LAN, V6_LOCAL]
    assert invite_addresses([("me.example", PORT)], NoRouter(2.0), local) == [
        ("me.example", PORT),
        V6,
        LAN,
        V6_LOCAL,
    ]
    assert invite_addresses([LAN], None, [LAN]) == [LAN]


def test_the_families_take_turns_in_the_dial_order_keeping_the_invites_within_each() -> None:
    a4, b4, c4 = ("11.0.0.1", 1), ("11.0.0.2", 2), ("11.0.0.3", 3)
    a6, b6 = ("2a00::1", 1), ("2a00::2", 2)
    assert dial_order([a4, b4, c4, a6, b6]) == [a4, a6, b4, b6, c4]
    assert dial_order([a6, a4, b6]) == [a6, a4, b6]
    assert dial_order([a4, a4]) == [a4]


def test_the_advice_names_what_to_do_and_only_when_nothing_reaches_the_host() -> None:
    mapped = Mapped(("11.0.1.1", PORT), Via.UPNP, "r", 3600)
    assert advice(mapped, PORT, [LAN]) is None
    assert advice(NoRouter(2.0), PORT, [V6, LAN]) is None  # IPv6 reaches it
    said = advice(NoRouter(2.0), PORT, [LAN])
    assert said is not None
    assert f"forward TCP port {PORT}" in said and "--advertise" in said
    assert "IPv6" in said and "swap roles" in said
    cgnat = advice(DoubleNat("r", "100.64.0.7"), PORT, [LAN])
    assert cgnat is not None and "provider" in cgnat and "forward TCP" not in cgnat
    assert "refused" in outcome_line(Refused("r", "ConflictInMappingEntry"))
    assert "100.64.0.7" in outcome_line(DoubleNat("r", "100.64.0.7"))
    assert "11.0.1.1:47470" in outcome_line(mapped)
