"""What a first screen tells its command when the player left it for a kept game.

The first screens of ``statki play``, ``host`` and ``join`` name the games
kept for ``statki resume`` (``statki_net.store.unfinished``), and ``u`` picks
one up: the screen closes, its command ends its own game, and the command
line goes on with that game (``statki_net.cli.resume.resume_chosen``).  This
module is light on purpose: the command line's entry catches it before it
knows which command runs.
"""

from __future__ import annotations


class ChosenToResume(Exception):
    """The player left a first screen to resume kept ``game`` (its whole id)."""

    def __init__(self, game: str) -> None:
        super().__init__(game)
        self.game = game
