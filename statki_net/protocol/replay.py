"""What a game picked up from its log has told its player so far, as the session's events.

A front end that keeps state of its own (the full-screen client) builds it
from the session's events as they come.  A session restored from its log
after its program stopped (``Session.restore``) has come a long way with
nobody listening: ``told_so_far`` gives the events its messages and its talk
announced, in the order they came, so the front end starts where the game
stood by the same path it follows live (``session.announced`` decides both).
The turn itself is not among them: the restored session asks for it when it
starts, as a live one does.

Pure: the session and the log's contents in, events out.
"""

from __future__ import annotations

from statki_net.protocol.errors import ProtocolError
from statki_net.protocol.events import Event
from statki_net.protocol.logformat import LogContents, TalkRecord
from statki_net.protocol.session import Session, announced
from statki_net.protocol.talk import TalkHeard, TalkSaid
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import SayFrame, is_say, read_body, read_say


def told_so_far(session: Session, contents: LogContents) -> list[Event]:
    """The events ``session``'s transcript and the talk of ``contents`` (its log) announced
    to this side's player, in order; talk stands after the messages its log put before it."""
    talk = sorted(
        (said for said in (_said(record) for record in contents.talk) if said is not None),
        key=lambda said: said[0],
    )
    replayed = Transcript()
    events: list[Event] = []
    for index, frame in enumerate(session.transcript.frames):
        while talk and talk[0][0] <= index:
            events.append(_talk_event(talk.pop(0)[1], session))
        replayed.add(frame)
        events += announced(frame, replayed, session.role)
    events += [_talk_event(frame, session) for _after, frame in talk]
    return events


def _said(record: TalkRecord) -> tuple[int, SayFrame] | None:
    """A talk record's line and where it stands; None for one that does not read (the log
    kept it as received; the referee says what is wrong with it)."""
    try:
        fields = read_body(record.body)
        if not is_say(fields):
            return None
        return record.after, read_say(record.body, record.signature, fields)
    except ProtocolError:
        return None


def _talk_event(frame: SayFrame, session: Session) -> TalkHeard | TalkSaid:
    return TalkSaid(frame) if frame.say.sender is session.role else TalkHeard(frame)
