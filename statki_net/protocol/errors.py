"""The remote peer's misbehaviour: ``ProtocolError``, carrying a code from SPEC.md's table."""

from __future__ import annotations

from statki_net.game.errors import StatkiError


class ProtocolError(StatkiError):
    """The remote peer broke the protocol; ``code`` is from SPEC.md's table."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
