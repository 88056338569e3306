"""The root of statki's errors, and the local caller's mistakes.

``UsageError`` is local misuse (a bad argument, an illegal action for this
side right now).  The remote peer's misbehaviour is ``ProtocolError``, in
``statki_net.protocol.errors``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing's, without loading typing (mypy knows the name)
if TYPE_CHECKING:  # words loads dataclasses: a bare `statki --help` must not (bench/startup.py)
    from statki_net.game.words import Phrase, Words


class StatkiError(Exception):
    """Base of every error statki raises on purpose.

    Raised with a ``Phrase`` (``FleetTextError(phrase(N_("no ships found")))``), it is
    said in the reader's language where it is shown (``in_words``); ``str()`` is its
    English, as logs and tools keep it.  Raised with a string, it is that string.
    """

    def in_words(self, words: Words) -> str:
        return self.as_phrase().in_words(words)

    def as_phrase(self) -> Phrase:
        """The error as a phrase, to be said inside another (``{error} (presets: …)``); one
        raised with a string is that string, as it is."""
        from statki_net.game.words import Phrase, as_is  # where an error is shown, not defined

        said = self.args[0] if len(self.args) == 1 else None
        return said if isinstance(said, Phrase) else as_is(str(self))


class UsageError(StatkiError):
    """The local caller asked for something that cannot be done."""
