"""``statki history`` and ``statki stats``: the games played, and who wins most often."""

from __future__ import annotations

import argparse
import json
import shutil
import textwrap
from dataclasses import asdict
from pathlib import Path

from statki_client.computer import shown_name

from statki_net.cli.common import EXIT_OK, Subcommands, home_argument, positive
from statki_net.cli.told import tell
from statki_net.game.words import N_
from statki_net.store.history import DB_FILE, GameRow, History, Tally, local_minute
from statki_net.store.home import home_path
from statki_net.store.language import _, ngettext, words


def add(commands: Subcommands) -> None:
    history = commands.add_parser("history")
    home_argument(history)
    history.add_argument("--json", action="store_true", help=_("print JSON for tools"))
    history.add_argument(
        "--limit",
        # 1 or more: "the latest 0 games" showed none and said "no games recorded yet".
        type=positive,
        default=1000,
        metavar="N",
        help=_("the latest N games (default 1000)"),
    )
    history.set_defaults(run=_history)
    stats = commands.add_parser("stats")
    home_argument(stats)
    stats.add_argument("--json", action="store_true", help=_("print JSON for tools"))
    stats.set_defaults(run=_stats)


def _history(args: argparse.Namespace) -> int:
    home = home_path(args.home)
    games = []
    # Only read: a home or a database that is not there is no games, not one to make.
    if (home / DB_FILE).exists():
        with History.in_home(home) as history:
            games = history.games(limit=args.limit)
    if args.json:
        print(json.dumps([game.to_json() for game in games], indent=2))
    elif not games:
        tell(_("no games recorded yet (history: {path})").format(path=home / DB_FILE))
    else:
        width = max(shutil.get_terminal_size((WIDTH, 24)).columns, MIN_WIDTH)
        for game in games:
            print("\n".join(_game_lines(game, width)))
        tell(_games(len(games)))
    return EXIT_OK


WIDTH = 80
"""Columns a game's lines fit when the terminal's width is not known (a pipe)."""
MIN_WIDTH = 60
INDENT = "    "


def _game_lines(game: GameRow, width: int) -> list[str]:
    """A game in lines of at most ``width`` columns: what, against whom, the verdict, the log.

    The opponent goes on the first line when it fits there; the verdict is
    wrapped between words; the log's path is never cut (it is copied whole),
    with the home directory as ``~`` and on a line of its own when still too long.
    """
    head, opponent = _game_line(game), _opponent_words(game)
    if len(head) + 2 + len(opponent) <= width:
        lines = [f"{head}  {opponent}"]
    else:
        lines = textwrap.wrap(head, width, subsequent_indent=INDENT + "  ")
        lines += textwrap.wrap(opponent, width, initial_indent=INDENT)
    verdict = game.in_words(words()) or _("no verdict: the game never ended")
    lines += textwrap.wrap(
        verdict,
        width,
        initial_indent=INDENT,
        subsequent_indent=INDENT + "  ",
        break_on_hyphens=False,
    )
    path = _shortened(game.log_path)
    said = INDENT + _("log: {path}").format(path=path)
    lines += [said] if len(said) <= width else [INDENT + _("log:"), path]
    return lines


def _game_line(game: GameRow) -> str:
    result = RESULT_WORDS.get(game.result, game.result) if game.result else N_("unfinished")
    reason = WHO_RESIGNED.get((game.result, game.end_reason), game.end_reason)
    if said := SAID_ONCE.get((game.result, game.end_reason)):
        result, reason = said, None
    how = f" ({_(reason)})" if reason else ""
    return _("{date}  {result}{how}  {rules}, you as {role}  shots {mine}:{theirs}").format(
        date=local_minute(game.started),
        result=_(result),
        how=how,
        rules=_rules_words(game.rules),
        role=_(game.my_role),
        mine=game.my_shots,
        theirs=game.their_shots,
    )


def _rules_words(rules: str) -> str:
    """The rules a row names, for a person: none for a game that ended before the host's
    hello said them."""
    return _(rules) if rules else _("rules not known")


def _opponent_words(game: GameRow) -> str:
    if not game.opponent_key:  # a game that ended before the opponent's hello named them
        return _("against someone not known")
    return _("against {opponent} [{key}]").format(
        opponent=shown_name(game.opponent_name, game.opponent_key) or _("someone"),
        key=game.opponent_key,
    )


def _shortened(path: str) -> str:
    """``path`` with the user's home directory as ``~``, as a shell reads it back."""
    home = str(Path.home())
    if home != "/" and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


RESULT_WORDS = {"won": N_("won"), "lost": N_("lost"), "none": N_("none")}
"""A game's result as the history keeps it, for a person."""

WHO_RESIGNED: dict[tuple[str | None, str | None], str] = {
    ("won", "resigned"): N_("the opponent resigned"),
    ("lost", "resigned"): N_("you resigned"),
}
"""Ends that "won (resigned)" would tell the wrong way round: who resigned?"""

SAID_ONCE: dict[tuple[str | None, str | None], str] = {("none", "no-game"): N_("no game")}
"""Ends whose result and reason say one thing ("none (no game)"): said once."""


def _stats(args: argparse.Namespace) -> int:
    home = home_path(args.home)
    opponents: list[Tally] = []
    rules: list[Tally] = []
    if (home / DB_FILE).exists():
        with History.in_home(home) as history:
            opponents, rules = history.tally("opponent"), history.tally("rules")
    if args.json:
        document = {
            "total": asdict(_total(rules)),
            "opponents": [asdict(t) for t in opponents],
            "rules": [asdict(t) for t in rules],
        }
        print(json.dumps(document, indent=2))
        return EXIT_OK
    if not rules:
        tell(_("no games recorded yet (history: {path})").format(path=home / DB_FILE))
        return EXIT_OK
    tell(_("all games: {score}").format(score=_score(_total(rules))))
    tell()
    tell(_("per opponent (you : them):"))
    for tally in opponents:
        if not tally.key:  # the games that ended before an opponent's hello named them
            nobody = _("someone not known")
            tell(f"{nobody}: {_score(tally)}", indent="  ")
            continue
        opponent = shown_name(tally.label, tally.key) or _("someone")
        tell(f"{opponent} [{tally.key}]: {_score(tally)}", indent="  ")
    tell()
    tell(_("per rules (you : them):"))
    for tally in rules:
        tell(f"{_rules_words(tally.label)}: {_score(tally)}", indent="  ")
    return EXIT_OK


def _total(tallies: list[Tally]) -> Tally:
    return Tally(
        "all",
        sum(t.games for t in tallies),
        sum(t.won for t in tallies),
        sum(t.lost for t in tallies),
        sum(t.unfinished for t in tallies),
    )


def _score(tally: Tally) -> str:
    """As paper players keep it: wins to losses, then who leads."""
    decided = tally.won + tally.lost
    if tally.won > tally.lost:
        lead = _("you lead")
    elif tally.lost > tally.won:
        lead = _("they lead")
    else:
        lead = _("level")
    percent = round(100 * tally.won / decided) if decided else 0  # 1 in 6: 17%, not 16%
    share = _(", you win {percent}%").format(percent=percent) if decided else ""
    open_ = _(", {n} without a winner").format(n=tally.unfinished) if tally.unfinished else ""
    return f"{tally.won} : {tally.lost} ({lead}{share}); {_games(tally.games)}{open_}"


def _games(n: int) -> str:
    """How many games, in the reader's plural ("1 game", "2 games"; "2 gry", "5 gier")."""
    return ngettext("{n} game", "{n} games", n).format(n=n)
