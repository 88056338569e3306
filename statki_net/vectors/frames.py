"""frames.json: chosen frames of the logs as sent on the wire, and how a game id is made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack

from statki_net.protocol.resume import RESUME_LABEL, ResumeFrame
from statki_net.protocol.wire import (
    GAME_LABEL,
    GENESIS,
    HASH_LABEL,
    MAX_FRAME,
    SAY_LABEL,
    SIGN_LABEL,
    Frame,
    SayFrame,
    game_id,
    message_hash,
)
from statki_net.vectors.encoding import as_json, dump
from statki_net.vectors.games import Scenario


def frame_entry(name: str, note: str, frame: Frame) -> dict[str, Any]:
    return _signed_entry(name, note, frame, {"hash": frame.digest.hex()})


def _signed_entry(
    name: str, note: str, frame: Frame | ResumeFrame | SayFrame, extra: dict[str, str]
) -> dict[str, Any]:
    """One signed frame as the vectors show it (a resume or a say has no hash: neither is
    chained)."""
    return {
        "name": name,
        "note": note,
        "frame": frame.encode().hex(),
        "body": frame.body.hex(),
        "signature": frame.signature.hex(),
        **extra,
        "map": as_json(msgpack.unpackb(frame.body, raw=False)),
    }


def frames_file(by_name: dict[str, Scenario]) -> bytes:
    picks: list[tuple[str, str, str, Callable[[Frame], bool]]] = []

    def pick(name: str, log: str, note: str, test: Callable[[Frame], bool]) -> None:
        picks.append((name, log, note, test))

    def kind(
        type_: str, extra: Callable[[dict[str, Any]], bool] = lambda m: True
    ) -> Callable[[Frame], bool]:
        def test(frame: Frame) -> bool:
            body = msgpack.unpackb(frame.body, raw=False)
            return bool(body["type"] == type_ and extra(body))

        return test

    classic = "honest-classic"
    pick("hello-host", classic, "The host's hello: it proposes rules and limits.", kind("hello"))
    pick(
        "hello-guest",
        classic,
        "The guest's hello: no rules, no limits.",
        kind("hello", lambda m: m["from"] == "guest"),
    )
    pick("accept", classic, "The guest accepts; the first message with a game id.", kind("accept"))
    pick("commit", classic, "The host's fleet root and coin commitment.", kind("commit"))
    pick("coin", classic, "The host opens its coin.", kind("coin"))
    pick("shot", classic, "One shot: square numbers, row * size + column.", kind("shot"))

    def outcomes(*want: str) -> Callable[[dict[str, Any]], bool]:
        return lambda m: m.get("outcomes") == list(want)

    pick(
        "answer-miss",
        classic,
        "A miss, with the opening of the shot square.",
        kind("answer", outcomes("miss")),
    )
    pick(
        "answer-hit",
        classic,
        "A hit, with the opening of the shot square.",
        kind("answer", outcomes("hit")),
    )
    pick(
        "answer-sunk",
        classic,
        "A sink under classic rules: openings of the shot square and of every square newly "
        "marked empty around the ship.",
        kind("answer", outcomes("sunk")),
    )
    pick(
        "reveal",
        classic,
        "The winner's reveal: ships in fleet order, and the secret.",
        kind("reveal"),
    )
    pick("verdict", classic, "The winner's verdict on an honest game.", kind("verdict"))
    pick(
        "shot-salvo",
        "honest-salvo",
        "A salvo: one shot per ship the shooter has afloat.",
        kind("shot", lambda m: len(m["squares"]) > 1),
    )
    pick(
        "answer-salvo",
        "honest-salvo",
        "A salvo answered shot by shot.",
        kind("answer", lambda m: m["hits"] > 0),
    )
    pick(
        "answer-salvo-count",
        "honest-salvo-count",
        "A salvo answered with the number of hits only: no outcomes, no proofs.",
        kind("answer", lambda m: m["hits"] > 0),
    )
    pick(
        "answer-named-sink",
        "honest-five-ships",
        "A sink under five-ships: the ship is named; ships may touch, so nothing is marked.",
        kind("answer", lambda m: bool(m.get("names"))),
    )
    pick("refuse", "refused", "The guest refuses the rules.", kind("refuse"))
    pick("resign", "honest-resigned", "A resignation.", kind("resign"))
    pick("timeout", "timeout-in-battle", "A claim of the game on time.", kind("timeout"))
    pick("error", "aborted", "A protocol error that stops the game.", kind("error"))
    pick(
        "verdict-cheated",
        "false-answer-on-move",
        "The host's verdict after catching a false answer: findings in words.",
        kind("verdict"),
    )

    entries = []
    for name, log, note, test in picks:
        frame = next(f for f in by_name[log].frames if test(f))
        entries.append(frame_entry(name, f"{note} (from logs/{log}.statki)", frame))
    classic_frames = by_name[classic].frames
    host_hello, guest_hello = classic_frames[0].body, classic_frames[1].body
    return dump(
        {
            "about": "Frames as sent on the wire: frame = msgpack [body bin, signature bin]. "
            "'map' is the body decoded, with every bin written as {\"bin\": hex}. "
            "'hash' is SHA-256(HASH_LABEL || body). Signatures are by the test keys of "
            "signing.json (the 'from' key tells which).",
            "max_frame": MAX_FRAME,
            "labels": {
                "SIGN_LABEL": SIGN_LABEL.hex(),
                "HASH_LABEL": HASH_LABEL.hex(),
                "GAME_LABEL": GAME_LABEL.hex(),
                "GENESIS": GENESIS.hex(),
                "RESUME_LABEL": RESUME_LABEL.hex(),
                "SAY_LABEL": SAY_LABEL.hex(),
            },
            "game_id": {
                "host_hello_body": host_hello.hex(),
                "guest_hello_body": guest_hello.hex(),
                "host_hello_hash": message_hash(host_hello).hex(),
                "guest_hello_hash": message_hash(guest_hello).hex(),
                "game": game_id(host_hello, guest_hello).hex(),
            },
            "frames": entries,
            "resumes": [
                resume_entry(
                    f"resume-{frame.resume.sender}",
                    f"The {frame.resume.sender}'s resume on a new connection, signed over "
                    "RESUME_LABEL || body (from logs/resumed-host.statki).",
                    frame,
                )
                for frame in by_name["resumed-host"].resumes
            ],
            "talk": [
                _signed_entry(
                    f"say-{frame.say.sender}",
                    f"A line of the {frame.say.sender}'s talk, signed over SAY_LABEL || body: "
                    f"no message of the game (from logs/talk-host.statki).",
                    frame,
                    {},
                )
                for frame in by_name["talk-host"].talk[:2]
            ],
        }
    )


def resume_entry(name: str, note: str, frame: ResumeFrame) -> dict[str, Any]:
    return _signed_entry(name, note, frame, {})
