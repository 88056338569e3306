"""Meeting the same opponent again for a rematch, with bounded waits.

``statki host``/``statki join`` in-process (``statki_net.cli.netplay``'s
reunions) and the daemon (the control request ``rematch``) meet the same way,
so either side may play through a daemon or not:

- the host listens again on its invite's port, with the same secret and key,
  and waits for its guest at most a move of the last game's limits once its
  fleet is committed (``not_back`` says it when the guest never comes);
- the guest dials the same host again for up to ``REDIAL_SECONDS``: a host
  not listening yet refuses the connection, a daemon with no game waiting
  closes it without a word, and a daemon whose rematch is not hosted yet may
  say the hello of another game it hosts (every game on a daemon has its key:
  only the hello's tag tells them apart); in each case the guest dials again
  (``redial``) rather than land in someone else's game.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, Phrase, phrase
from statki_net.net.dialer import dial
from statki_net.net.invite import Address
from statki_net.protocol.errors import ProtocolError
from statki_net.protocol.wire import FrameReader, Hello, decode_frame, game_tag

REDIAL_SECONDS = 10.0
"""How long a guest asking for a rematch keeps dialling a host not listening yet."""
REDIAL_PAUSE = 0.25
"""Seconds between two such attempts (each attempt is bounded by ``REDIAL_CONNECT``)."""
REDIAL_CONNECT = 2.0
READ_SIZE = 64 * 1024


def not_back(who: str, move_ms: int) -> Phrase:
    """The one line of a host whose guest did not come back within a move."""
    return phrase(
        N_("{who} did not come back for the rematch within {seconds} s"),
        who=who,
        seconds=f"{move_ms / 1000:g}",
    )


Met = tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]
"""A connection to the host and what it said first (the start of its hello)."""


async def redial(
    addresses: Sequence[Address],
    who: str,
    *,
    secret: bytes | None,
    hello_within: float,
    seconds: float | None = None,
) -> Met:
    """Dial the host ``who`` at ``addresses`` again until it says the hello of the game
    the invite's ``secret`` admits to (or one that lets the guest ``join`` it).

    A refused connection, one closed before a word, or one whose hello is of another
    game is dialled again for up to ``seconds`` (``REDIAL_SECONDS``); a host that is
    there may keep the connection silent while its player places a fleet, at most
    ``hello_within`` seconds.  Raises ``RematchMissed`` with the one line the player reads.
    """
    loop = asyncio.get_running_loop()
    give_up = loop.time() + (REDIAL_SECONDS if seconds is None else seconds)
    tag = game_tag(secret) if secret is not None else None
    missed = _left(who)
    while True:
        try:
            reader, writer, _ = await dial(addresses, timeout=REDIAL_CONNECT)
        except UsageError as error:
            missed = _unreachable(who, error.as_phrase())
        else:
            said = await _first_frame(reader, hello_within)
            if said and _is_ours(said, tag):
                return reader, writer, said
            writer.close()
            if said is None:  # there, and silent all along: no use dialling again
                missed = _silent(who, hello_within)
                give_up = loop.time()
            elif said:
                missed = _not_asked(who, REDIAL_SECONDS if seconds is None else seconds)
            else:
                missed = _left(who)
        if loop.time() >= give_up:
            raise missed
        await asyncio.sleep(REDIAL_PAUSE)


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


def _left(who: str) -> RematchMissed:
    # A host that closes before its hello hosts no rematch: its player left the end screen.
    return _missed(
        who,
        phrase(N_("{who} left before the rematch began"), who=who),
        phrase(N_("the host closed the connection before its hello")),
    )


def _silent(who: str, within: float) -> RematchMissed:
    # The host's hello waits for its fleet: silent all along, its player never placed one.
    return _missed(
        who,
        phrase(
            N_("{who} did not place a fleet for the rematch within {seconds} s"),
            who=who,
            seconds=f"{within:g}",
        ),
        phrase(N_("the host said nothing within {seconds} s"), seconds=f"{within:g}"),
    )


def _not_asked(who: str, within: float) -> RematchMissed:
    # A daemon hosting other games says their hello: this game's host never asked for it.
    return _missed(
        who,
        phrase(
            N_("{who} did not ask for the rematch within {seconds} s"),
            who=who,
            seconds=f"{within:g}",
        ),
        phrase(N_("the host has not hosted the rematch yet")),
    )


def _unreachable(who: str, error: Phrase) -> RematchMissed:
    # The dialler's own line names the address and what the system said: the player's words.
    said = phrase(N_("{who} is not there for the rematch: {error}"), who=who, error=error)
    return RematchMissed(said, said)


def _is_ours(said: bytes, tag: bytes | None) -> bool:
    """Whether the host's first frame begins the rematch: a hello with the invite's tag,
    or one saying other games wait (the guest's session names its game with a ``join``).
    Anything else that is no hello goes to the session, which judges and records it."""
    try:
        value = next(FrameReader().values(said))
        hello = decode_frame(value).message
    except (ProtocolError, StopIteration):
        return True
    if not isinstance(hello, Hello):
        return True
    return hello.tag == tag or hello.join


async def _first_frame(reader: asyncio.StreamReader, within: float) -> bytes | None:
    """The host's bytes up to its first whole frame (or ``READ_SIZE``, or its close);
    nothing when it closed first; None when it was silent for ``within`` seconds."""
    said = b""
    frames = FrameReader()
    try:
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
