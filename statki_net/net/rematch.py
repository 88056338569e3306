"""Meeting the same opponent again for a rematch, with bounded waits.

``statki host``/``statki join`` in-process (``statki_net.cli.netplay``'s
reunions) and the daemon (the control request ``rematch``) meet the same way,
so either side may play through a daemon or not:

- the host listens again on its invite's port, with the same key, admitting
  by the rematch's secret (``Rematch.admitting``: drawn from the game just
  played and the invite's secret, else the invite's own), and waits for its
  guest at most a move of the last game's limits once its fleet is committed
  (``not_back`` says it when the guest never comes);
- the guest dials the same host again (``redial``): a host not listening yet
  refuses the connection, and is dialled again for up to ``REDIAL_SECONDS``;
  a daemon whose rematch is not hosted yet closes the connection without a
  word when no game waits, or says the hello of another game it hosts (every
  game on a daemon has its key: only the hello's tag tells them apart), and
  where it says others wait (``join``) the guest names its rematch by its
  tag, to be refused while the rematch is not offered.  Such a host is there:
  its player may not have asked yet, and it is dialled again for up to a move.
  In each case the guest dials again rather than land in someone else's game,
  until one deadline, every wait given the time left of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, Phrase, phrase, seconds_said
from statki_net.net.clock import Clock
from statki_net.net.dialer import dial
from statki_net.net.invite import Address
from statki_net.protocol.errors import ProtocolError
from statki_net.protocol.session import public_key_bytes
from statki_net.protocol.wire import (
    READ_SIZE,
    Frame,
    FrameReader,
    Hello,
    Join,
    decode_frame,
    game_tag,
    sign_join,
)

REDIAL_SECONDS = 10.0
"""How long a guest asking for a rematch keeps dialling a host not listening yet."""
REDIAL_PAUSE = 0.25
"""Seconds between two such attempts (each attempt is bounded by ``REDIAL_CONNECT``)."""
REDIAL_CONNECT = 2.0
REDIAL_ATTEMPTS = 600
"""Connections a redial makes at most: a host that answers at once cannot spin a guest.
Its pauses grow with the deadline so that this is never reached before it."""


def not_back(who: str, move_ms: int) -> Phrase:
    """The one line of a host whose guest did not come back within a move."""
    return phrase(
        N_("{who} did not come back for the rematch within {seconds} s"),
        who=who,
        seconds=seconds_said(move_ms / 1000),
    )


Met = tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]
"""A connection to the host and what it said first (the start of its hello)."""


@dataclass(frozen=True)
class _Elsewhere:
    """The host is there but offers other games, or none (a daemon closes a connection no
    game waits for without a word): its player has not asked for the rematch yet."""


@dataclass(frozen=True)
class _Gone:
    """No hello came: why, in the player's words; ``silent``: there, and silent all along."""

    why: Phrase
    silent: bool = False


async def redial(
    addresses: Sequence[Address],
    who: str,
    *,
    secret: bytes | None,
    key: Ed25519PrivateKey,
    clock: Clock,
    hello_within: float,
    host_key: bytes | None = None,
    seconds: float | None = None,
) -> Met:
    """Dial the host ``who`` at ``addresses`` again until it says the hello of the game
    the rematch's ``secret`` admits to (None: the one open to anyone).

    A refused connection is dialled again for up to ``seconds`` (``REDIAL_SECONDS``); a
    host that closes the connection before a word, or says the hello of another game, is
    there, and is dialled again until ``hello_within`` seconds from the start (its player
    has a move to ask for the rematch): where that hello says others wait, and is under
    ``host_key`` (the last game's host's), the guest names its game with a ``join`` signed
    by ``key`` (at ``clock``'s time) and takes the hello that answers it, if it is its
    game's.  A host that is there may keep the connection silent while its player places a
    fleet.  Every wait gets only the time left of one deadline, and the attempts are spaced
    so that ``REDIAL_ATTEMPTS`` is never reached before it.  Raises ``RematchMissed`` with
    the one line the player reads, saying the time it waited.
    """
    loop = asyncio.get_running_loop()
    started = loop.time()
    give_up = started + (REDIAL_SECONDS if seconds is None else seconds)
    there = started + hello_within
    # Spaced with the move: half the cap's attempts, a pause each, outlast the deadline.
    pause = max(REDIAL_PAUSE, 2 * (max(give_up, there) - started) / REDIAL_ATTEMPTS)
    tag = game_tag(secret) if secret is not None else None
    met: _Elsewhere | _Gone = _Elsewhere()
    offered_elsewhere = False  # a wait cut short by the deadline is no host silent all along
    for _attempt in range(REDIAL_ATTEMPTS):
        left = give_up - loop.time()
        try:
            reader, writer, _ = await dial(addresses, timeout=max(min(REDIAL_CONNECT, left), 0.01))
        except UsageError as error:
            met = _Gone(error.as_phrase())
        else:
            give_up = max(give_up, there)  # there: its player has a move to ask
            ours = _Ours(tag, host_key, key, clock)
            said = await _hello_of(reader, writer, ours, give_up - loop.time())
            if isinstance(said, bytes):
                return reader, writer, said
            writer.close()
            met = said
            offered_elsewhere = offered_elsewhere or isinstance(said, _Elsewhere)
            if isinstance(said, _Gone) and said.silent:  # silent all along: no use again
                break
        left = give_up - loop.time()
        if left <= 0:
            break
        await asyncio.sleep(min(pause, left))
    waited = round(min(loop.time(), give_up) - started, 1)  # the time it really waited
    if offered_elsewhere or isinstance(met, _Elsewhere):
        raise _not_offered(who, waited)
    raise _silent(who, waited) if met.silent else _unreachable(who, met.why)


@dataclass(frozen=True)
class _Ours:
    """What tells the rematch's hello from another's, and how to name it by a ``join``."""

    tag: bytes | None
    host_key: bytes | None
    """The last game's host's key; None: any (the session checks it)."""
    key: Ed25519PrivateKey
    clock: Clock


class RematchMissed(UsageError):
    """A guest's rematch whose host never began it: said as the player reads it (the
    error's phrase), with the precise reason kept for what records it (``detail``: the
    daemon's ``failure``, in English, as its game state has always given it)."""

    def __init__(self, said: Phrase, detail: Phrase) -> None:
        super().__init__(said)
        self.detail = detail


def _missed(who: str, said: Phrase, why: Phrase) -> RematchMissed:
    detail = phrase(N_("{who} is not there for the rematch: {error}"), who=who, error=why)
    return RematchMissed(said, detail)


def _silent(who: str, within: float) -> RematchMissed:
    # The host's hello waits for its fleet: silent all along, its player never placed one.
    return _missed(
        who,
        phrase(
            N_("{who} did not place a fleet for the rematch within {seconds} s"),
            who=who,
            seconds=seconds_said(within),
        ),
        phrase(N_("the host said nothing within {seconds} s"), seconds=seconds_said(within)),
    )


def _not_offered(who: str, within: float) -> RematchMissed:
    # A daemon hosting other games says their hello: this game's host never asked for it.
    return _missed(
        who,
        phrase(
            N_("{who} did not offer the rematch within {seconds} s"),
            who=who,
            seconds=seconds_said(within),
        ),
        phrase(N_("the host has not hosted the rematch yet")),
    )


def _unreachable(who: str, error: Phrase) -> RematchMissed:
    # The dialler's own line names the address and what the system said: the player's words.
    said = phrase(N_("{who} is not there for the rematch: {error}"), who=who, error=error)
    return RematchMissed(said, said)


async def _hello_of(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ours: _Ours, within: float
) -> bytes | _Elsewhere | _Gone:
    """The host's bytes from the rematch's hello on (or whatever the session is to judge
    instead), once the hello of another game is passed by, with a ``join`` where it says
    others wait; else what was met.  Both waits share ``within`` seconds."""
    loop = asyncio.get_running_loop()
    until = loop.time() + within
    said = await _first_frame(reader, within)
    if said is None:
        why = phrase(N_("the host said nothing within {seconds} s"), seconds=seconds_said(within))
        return _Gone(why, silent=True)
    if not said:
        return _Elsewhere()
    first, end = _frame_in(said)
    hello = first.message if first is not None else None
    if not isinstance(hello, Hello) or hello.tag == ours.tag:
        return said
    if ours.host_key is not None and hello.key != ours.host_key:
        # Not the host the last game was with: no game of ours, whatever it offers.  The
        # session reads it and ends with wrong-key, as it does for a first game's host,
        # rather than sign a join for a stranger or dial it for a whole move.
        return said
    if not hello.join:
        return _Elsewhere()
    # The session answers the first hello it reads: this one is another game's, so name
    # ours here; the session then reads the named game's hello as its first (SPEC.md,
    # section 3, "Naming the game": nothing of a hello joined is kept).
    assert first is not None
    join = Join(public_key_bytes(ours.key), first.digest, ours.tag, ours.clock.now())
    writer.write(sign_join(ours.key, join).encode())
    answer = await _first_frame(reader, max(until - loop.time(), 0), said[end:])
    named = _frame_in(answer)[0] if answer else None
    if named is not None and isinstance(named.message, Hello) and named.message.tag == ours.tag:
        return answer or b""
    return _Elsewhere()  # refused (``not-invited``): the rematch is not offered yet


def _frame_in(said: bytes) -> tuple[Frame | None, int]:
    """The frame ``said`` begins with, if it is one a host could say, and where it ends
    (0: no whole frame in it)."""
    frames = FrameReader()
    try:
        value = next(frames.values(said))
    except (ProtocolError, StopIteration):
        return None, 0
    try:
        return decode_frame(value), frames.consumed
    except ProtocolError:
        return None, frames.consumed


async def _first_frame(
    reader: asyncio.StreamReader, within: float, said: bytes = b""
) -> bytes | None:
    """The host's bytes up to its first whole frame (or ``READ_SIZE``, or its close),
    after what it ``said`` already; nothing when it closed first; None when it was
    silent for ``within`` seconds."""
    frames = FrameReader()
    try:
        if said and any(True for _ in frames.values(said)):
            return said
        async with asyncio.timeout(within):  # wait_for can lose a cancellation in 3.11
            while len(said) < READ_SIZE:
                piece = await reader.read(READ_SIZE)
                if not piece:
                    return said
                said += piece
                if any(True for _ in frames.values(piece)):
                    return said
    except TimeoutError:
        return said or None
    except ProtocolError:
        return said  # the session reads it again and says what is wrong
    except (ConnectionError, OSError):
        return said
    return said
