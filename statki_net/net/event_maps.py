"""A session's own events as control-socket maps, and back: for a front end that follows a
game the daemon plays (SPEC.md, "The control socket", ``follow``).

The full-screen client keeps a ``Session`` of its own and reads its events,
in-process (``statki_client.remote``) as through the daemon
(``statki_client.daemon_link``).  Through the daemon it is told, for each
batch of events the daemon's session gave, the frames the batch added and
the events themselves: ``event_map`` writes one event as a map, and
``event_from_map`` reads it back into the same value, here and nowhere else.
Frames, talk frames and refused envelopes travel as their exact wire bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgpack

from statki_net.game.battle import Answer, Outcome
from statki_net.game.rules import Ruleset
from statki_net.game.words import phrase_from_map as _phrase
from statki_net.game.words import phrase_map as _phrase_map
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import Code
from statki_net.protocol.events import (
    BattleOver,
    ConnectionLost,
    Event,
    Evidence,
    Failed,
    FrameAdded,
    GameClosed,
    GameStarted,
    PeerHello,
    Resumed,
    RulesProposed,
    VolleyDone,
    YourTurn,
)
from statki_net.protocol.talk import TalkDropped, TalkHeard, TalkSaid
from statki_net.protocol.transcript import Finding, FindingKind
from statki_net.protocol.wire import (
    Admit,
    Envelope,
    Frame,
    Hello,
    Limits,
    Role,
    SayFrame,
    decode_frame,
    read_envelope,
    read_incoming,
)

Message = dict[str, Any]


def frame_from_bytes(data: bytes) -> Frame:
    """A frame the daemon's transcript holds, from its exact bytes (``Frame.encode``)."""
    return decode_frame(msgpack.unpackb(data, raw=False))


def _say_frame(data: bytes) -> SayFrame:
    said = read_incoming(msgpack.unpackb(data, raw=False))
    if not isinstance(said, SayFrame):
        raise ValueError("not a line of talk")
    return said


def _ending_map(ending: Ending) -> Message:
    return {
        "end": ending.end.value,
        "winner": ending.winner.value if ending.winner else None,
        "culprits": sorted(role.value for role in ending.culprits),
        "reason": _phrase_map(ending.reason),
    }


def _ending(value: Mapping[str, Any]) -> Ending:
    winner = value["winner"]
    return Ending(
        End(value["end"]),
        Role(winner) if winner else None,
        frozenset(Role(role) for role in value["culprits"]),
        _phrase(value["reason"]),
    )


def _finding_map(finding: Finding) -> Message:
    return {
        "culprit": finding.culprit.value,
        "kind": finding.kind.value,
        "detail": _phrase_map(finding.detail),
        "move": finding.move,
        "square": finding.square,
    }


def _finding(value: Mapping[str, Any]) -> Finding:
    move, square = value["move"], value["square"]
    return Finding(
        Role(value["culprit"]),
        FindingKind(value["kind"]),
        _phrase(value["detail"]),
        int(move) if move is not None else None,
        int(square) if square is not None else None,
    )


def answer_map(answer: Answer) -> Message:
    return {
        "outcomes": [outcome.value for outcome in answer.outcomes],
        "hits": answer.hits,
        "sunk": answer.sunk,
        "names": list(answer.names),
    }


def answer_from_map(value: Mapping[str, Any]) -> Answer:
    return Answer(
        tuple(Outcome(outcome) for outcome in value["outcomes"]),
        int(value["hits"]),
        int(value["sunk"]),
        tuple(str(name) for name in value["names"]),
    )


def _hello_map(hello: Hello) -> Message:
    return {
        "protocol": hello.protocol,
        "software": hello.software,
        "key": hello.key,
        "name": hello.name,
        "nonce": hello.nonce,
        "caps": list(hello.caps),
        "rules": dict(hello.rules) if hello.rules is not None else None,
        "limits": dict(hello.limits) if hello.limits is not None else None,
        "first": hello.first.value if hello.first else None,
        "admit": hello.admit.value if hello.admit else None,
        "proof": hello.proof,
    }


def _hello(value: Mapping[str, Any]) -> Hello:
    first, admit, proof = value["first"], value["admit"], value["proof"]
    return Hello(
        int(value["protocol"]),
        str(value["software"]),
        bytes(value["key"]),
        str(value["name"]),
        bytes(value["nonce"]),
        tuple(str(cap) for cap in value["caps"]),
        value["rules"],
        value["limits"],
        Role(first) if first else None,
        Admit(admit) if admit else None,
        bytes(proof) if proof is not None else None,
    )


def _got(value: object) -> int | None:
    """A frame's ``got`` as pushed: an int, or nothing."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _code(text: str) -> Code:
    code = Code.of(text)
    if code is None:
        raise ValueError(f"not a code: {text!r}")
    return code


def event_map(event: Event) -> Message:
    """``event`` as the map a ``session`` push carries, its ``kind`` first."""
    match event:
        case FrameAdded(frame=frame, outgoing=outgoing, got=got):
            pushed: Message = {"kind": "frame", "frame": frame.encode(), "outgoing": outgoing}
            return pushed if got is None else {**pushed, "got": got}
        case Evidence(frame=envelope, code=code, at=at):
            return {"kind": "evidence", "frame": envelope.encode(), "code": code.value, "at": at}
        case PeerHello(role=role, hello=hello):
            return {"kind": "peer-hello", "role": role.value, "hello": _hello_map(hello)}
        case RulesProposed(rules=rules, limits=limits, first=first):
            return {
                "kind": "rules-proposed",
                "rules_map": rules.to_map(),
                "limits": limits.to_map(),
                "first": first.value if first else None,
            }
        case GameStarted(first=first):
            return {"kind": "game-started", "first": first.value}
        case YourTurn(shots=shots):
            return {"kind": "your-turn", "shots": shots}
        case VolleyDone(shooter=shooter, move=move, squares=squares, answer=answer):
            return {
                "kind": "volley-done",
                "shooter": shooter.value,
                "move": move,
                "squares": list(squares),
                "answer": answer_map(answer),
            }
        case BattleOver(ending=ending):
            return {"kind": "battle-over", "ending": _ending_map(ending)}
        case ConnectionLost(code=code, detail=detail, data=data):
            return {"kind": "connection-lost", "code": code.value, "detail": detail, "data": data}
        case Resumed(have=have, sent=sent):
            return {"kind": "resumed", "have": have, "sent": sent}
        case Failed(detail=detail, by_peer=by_peer):
            return {"kind": "failed", "code": event.code_text, "detail": detail, "by_peer": by_peer}
        case GameClosed(ending=ending, findings=findings):
            return {
                "kind": "game-closed",
                "ending": _ending_map(ending),
                "findings": [_finding_map(finding) for finding in findings],
            }
        case TalkHeard(frame=frame):
            return {"kind": "talk-heard", "frame": frame.encode()}
        case TalkSaid(frame=frame):
            return {"kind": "talk-said", "frame": frame.encode()}
        case TalkDropped(code=code, detail=detail, at=at, data=data, noted=noted):
            return {
                "kind": "talk-dropped",
                "code": code.value,
                "detail": detail,
                "at": at,
                "data": data,
                "noted": noted,
            }
    raise AssertionError(f"not a session event: {event!r}")


def _failed(value: Mapping[str, Any]) -> Failed:
    text = str(value["code"])
    code = Code.of(text)
    return Failed(code, str(value["detail"]), bool(value["by_peer"]), "" if code else text)


def _rules_proposed(value: Mapping[str, Any]) -> RulesProposed:
    limits, first = value["limits"], value["first"]
    return RulesProposed(
        Ruleset.from_map(value["rules_map"]),
        Limits(int(limits["move_ms"]), int(limits["reveal_ms"])),
        Role(first) if first else None,
    )


def _evidence(value: Mapping[str, Any]) -> Evidence:
    envelope: Envelope = read_envelope(msgpack.unpackb(value["frame"], raw=False))
    return Evidence(envelope, _code(str(value["code"])), int(value["at"]))


READERS: dict[str, Callable[[Mapping[str, Any]], Event]] = {
    "frame": lambda v: FrameAdded(
        frame_from_bytes(v["frame"]), bool(v["outgoing"]), _got(v.get("got"))
    ),
    "evidence": _evidence,
    "peer-hello": lambda v: PeerHello(Role(v["role"]), _hello(v["hello"])),
    "rules-proposed": _rules_proposed,
    "game-started": lambda v: GameStarted(Role(v["first"])),
    "your-turn": lambda v: YourTurn(int(v["shots"])),
    "volley-done": lambda v: VolleyDone(
        Role(v["shooter"]),
        int(v["move"]),
        tuple(int(square) for square in v["squares"]),
        answer_from_map(v["answer"]),
    ),
    "battle-over": lambda v: BattleOver(_ending(v["ending"])),
    "connection-lost": lambda v: ConnectionLost(
        _code(str(v["code"])), str(v["detail"]), bytes(v["data"])
    ),
    "resumed": lambda v: Resumed(int(v["have"]), int(v["sent"])),
    "failed": _failed,
    "game-closed": lambda v: GameClosed(
        _ending(v["ending"]), tuple(_finding(finding) for finding in v["findings"])
    ),
    "talk-heard": lambda v: TalkHeard(_say_frame(v["frame"])),
    "talk-said": lambda v: TalkSaid(_say_frame(v["frame"])),
    "talk-dropped": lambda v: TalkDropped(
        _code(str(v["code"])), str(v["detail"]), int(v["at"]), bytes(v["data"]), bool(v["noted"])
    ),
}
"""How each ``kind`` is read back: the one table of them."""


def event_from_map(value: Mapping[str, Any]) -> Event | None:
    """The event ``value`` writes; None for a kind not known here (a newer daemon's).

    Raises ValueError, KeyError or TypeError for a map that is not what SPEC.md says.
    """
    reader = READERS.get(str(value.get("kind")))
    return reader(value) if reader is not None else None
