"""``statki verify`` on mutated logs: a verdict or one line of refusal, never a traceback.

A real log (frames, a refused frame kept as evidence, talk, a note) is taken
apart into its records and mutated where a damaged disk, a careless tool or a
hostile player would: a record's keys dropped, renamed or given a value of any
msgpack type, records deleted, repeated, swapped or replaced by something that
is no map, the header mutated, the bytes cut, flipped or extended, the magic
value broken.  ``statki verify`` runs in process on each (the ``cli`` fixture)
and must end as README says: 0 or 1 with a judgement that names its standing
and nothing on stderr, or 2 (not a statki log) with one line on stderr; never
a traceback.  ``--json`` must stay one JSON document.  100 examples take about
3 s.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import msgpack
from conftest import Cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peers import finish, log_of, make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.protocol.logformat import MAGIC, Note, note_record
from statki_net.protocol.wire import SIGN_LABEL, Role


@cache
def records() -> tuple[Any, ...]:
    """The host's log of a short game with talk, a refused frame and a note, as records
    (the header first)."""
    pair = make_pair(PRESETS["salvo-count"], seed=41)
    play(pair, seed=42, stop_after=3)
    pair.record(Role.GUEST, pair.guest.say("dzień dobry", pair.now))
    pair.pump()
    # The guest signs a shot of a square off the board: refused, kept as evidence.
    guest = pair.guest
    t = guest.transcript
    body = msgpack.packb(
        {
            "type": "shot",
            "from": "guest",
            "seq": len(t.frames),
            "prev": t.last_digest,
            "game": t.game,
            "at": pair.now,
            "squares": [99999],
        },
        use_bin_type=True,
    )
    bad = msgpack.packb([body, guest.key.sign(SIGN_LABEL + body)], use_bin_type=True)
    pair.now += 1
    pair.record(Role.HOST, pair.host.receive_data(bad, pair.now))
    finish(pair, random.Random(43))
    data = log_of(pair.events[Role.HOST], Role.HOST)
    data += note_record(Note("the peer hung up", pair.now, b"\x00\x01"))
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data[len(MAGIC) :])
    found = tuple(unpacker)
    kinds = {next(iter(r)) for r in found[1:]}
    assert {"body", "evidence", "say", "note"} <= kinds, kinds
    return found


ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=70),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)
RECORD_KEYS = ("log", "body", "sig", "evidence", "code", "at", "say", "resume", "note", "data")


def mutated_record(record: Any, data: st.DataObject) -> Any:
    """One record with one key dropped, renamed, replaced or added."""
    if not isinstance(record, dict) or not record:
        return data.draw(ANY_VALUE, label="record")
    key = data.draw(st.sampled_from(sorted(record)), label="key")
    how = data.draw(st.sampled_from(("drop", "rename", "replace", "add", "flip")), label="how")
    changed = dict(record)
    match how:
        case "drop":
            del changed[key]
        case "rename":
            changed[data.draw(st.sampled_from(RECORD_KEYS), label="to")] = changed.pop(key)
        case "replace":
            changed[key] = data.draw(ANY_VALUE, label="value")
        case "add":
            changed[data.draw(st.sampled_from(RECORD_KEYS), label="added")] = data.draw(ANY_VALUE)
        case "flip" if isinstance(record[key], bytes) and record[key]:
            value = bytearray(record[key])
            value[data.draw(st.integers(0, len(value) - 1), label="byte")] ^= 0x20
            changed[key] = bytes(value)
    return changed


def mutated_log(data: st.DataObject) -> bytes:
    found = list(records())
    where = data.draw(st.integers(0, len(found) - 1), label="record")
    how = data.draw(
        st.sampled_from(("record", "record", "record", "delete", "repeat", "swap", "bytes")),
        label="how",
    )
    match how:
        case "record":
            found[where] = mutated_record(found[where], data)
        case "delete":
            del found[where]
        case "repeat":
            found.insert(where, found[where])
        case "swap":
            other = data.draw(st.integers(0, len(found) - 1), label="other")
            found[where], found[other] = found[other], found[where]
    packed = MAGIC + b"".join(msgpack.packb(r, use_bin_type=True) for r in found)
    if how != "bytes":
        return packed
    cut = data.draw(st.integers(0, len(packed)), label="at")
    match data.draw(st.sampled_from(("cut", "flip", "append", "insert")), label="bytes"):
        case "cut":
            return packed[:cut]
        case "flip":
            return (
                packed[:cut] + bytes([packed[cut] ^ 0xFF]) + packed[cut + 1 :]
                if cut < len(packed)
                else packed[:-1]
            )
        case "append":
            return packed + data.draw(st.binary(min_size=1, max_size=40), label="tail")
        case _:
            return packed[:cut] + data.draw(st.binary(min_size=1, max_size=8)) + packed[cut:]


def verdict_as_readme_says(cli: Cli, path: Path) -> None:
    result = cli("verify", str(path))
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    assert result.returncode in (0, 1, 2), result
    if result.returncode == 2:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        return
    assert not result.stderr, result.stderr
    assert "standing:" in result.stdout, result.stdout
    as_json = cli("verify", "--json", str(path))
    assert as_json.returncode == result.returncode, (as_json, result)
    json.loads(as_json.stdout)


def test_the_log_unchanged_is_valid(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "host.statki"
    path.write_bytes(MAGIC + b"".join(msgpack.packb(r, use_bin_type=True) for r in records()))
    result = cli("verify", str(path))
    assert result.returncode == 0 and "standing: valid" in result.stdout, result


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_mutated_log_gets_a_verdict_or_one_line(
    cli: Cli, tmp_path: Path, data: st.DataObject
) -> None:
    path = tmp_path / "mutated.statki"
    path.write_bytes(mutated_log(data))
    verdict_as_readme_says(cli, path)
