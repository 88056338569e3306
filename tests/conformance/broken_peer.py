"""A deliberately broken peer, run as a conformance driver: ``broken_peer.py host|join INVITE``.

It plays as statki's session does (the suite's own runner, with no case to
act on), but the bytes it writes pass through flaws that real peers have
had, so the suite's cases for them must fail:

- it answers a frame out of turn with ``bad-field`` instead of ``out-of-turn``;
- it meets a hello of another version with silence instead of ``version``;
- it answers a frame whose signature does not verify with an ``error``
  (a frame that is nobody's word must never be answered).

Every other case it passes, as statki does.
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import sys

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.conformance.cases import Case, Expectation, Kind
from statki_net.conformance.driver import Listener, dialling
from statki_net.conformance.runner import CaseRun, suite_session
from statki_net.net.invite import format_invite, parse_invite
from statki_net.protocol.errors import Code
from statki_net.protocol.events import ConnectionLost, Event
from statki_net.protocol.session import public_key_bytes
from statki_net.protocol.wire import INVITE_SECRET_SIZE, Error, Header, Role, read_envelope, sign

PLAYING = Expectation(Kind.FINISHES)


class BrokenRun(CaseRun):
    """The suite's runner playing honestly, its output bent by the flaws above."""

    watches_the_close = False

    def _write(self, data: bytes) -> None:
        unpacker = msgpack.Unpacker(raw=False, max_buffer_size=2**20)
        unpacker.feed(data)
        for value in unpacker:
            frame = msgpack.packb(value, use_bin_type=True)
            envelope = read_envelope(value)
            code = envelope.fields.get("code") if envelope.type == Error.TYPE else None
            if code == Code.VERSION.value:
                assert self.writer is not None
                self.writer.close()  # flaw: a wrong version met with silence
                return
            if code == Code.OUT_OF_TURN.value:
                header = envelope.header
                frame = sign(self.session.key, header, Error("bad-field", "flaw")).encode()
            super()._write(frame)

    def _events(self, events: list[Event]) -> None:
        super()._events(events)
        for event in events:
            if isinstance(event, ConnectionLost) and event.code is Code.BAD_SIGNATURE:
                t = self.session.transcript
                header = Header(self.session.role, len(t.frames), t.last_digest, t.game, 0)
                # flaw: a frame that is nobody's word, answered
                super()._write(
                    sign(self.session.key, header, Error("bad-signature", "flaw")).encode()
                )


async def main(argv: list[str]) -> None:
    rng = random.Random()
    key = Ed25519PrivateKey.from_private_bytes(secrets.token_bytes(32))
    role = Role.HOST if argv[:1] == ["host"] else Role.GUEST
    # The runner plays the suite's side of a case: here the broken peer's side of a game.
    rules = os.environ.get("STATKI_CONFORMANCE_RULES", "classic")
    case = Case("broken", "-", "a broken peer", role.other, PLAYING, rules=rules)
    if role is Role.HOST:
        listener = Listener()
        await listener.open("127.0.0.1", 0)
        secret = secrets.token_bytes(INVITE_SECRET_SIZE)
        print(format_invite([listener.address], public_key_bytes(key), secret), flush=True)
        session, moment = suite_session(case, rng, key)
        run = BrokenRun(case, session, moment, listener.next, rng, invite_secret=secret)
    else:
        invite = parse_invite(argv[1])
        session, moment = suite_session(
            case, rng, key, host_key=invite.key, invite_secret=invite.secret
        )
        run = BrokenRun(case, session, moment, dialling(invite.addresses), rng)
    await run.run()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
