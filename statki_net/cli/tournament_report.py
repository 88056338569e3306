"""The tournament as ``statki tournament`` writes it: a terminal table, JSON and CSV.

The JSON report is the whole of it (``tournament_page`` draws the HTML page
from it); the terminal table fits 80 columns with no colour, and shows a
player's name without control characters; the CSV tables are for a
spreadsheet: the standings, the games, the crosstable.
"""

from __future__ import annotations

import csv
import datetime
import json
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict
from typing import IO, Any

from statki_net.game.names import said_name
from statki_net.game.words import (
    ENGLISH,
    N_,
    Fact,
    Phrase,
    Term,
    Words,
    as_is,
    decimal,
    seconds_said,
)
from statki_net.protocol.wire import Role
from statki_net.referee.standings import HOW, TIE_BREAKS, Line, Standings
from statki_net.referee.tournament import (
    Board,
    Flag,
    GameSummary,
    Points,
    SetApart,
    TournamentRules,
)
from statki_net.store.language import _, words

WIDTH = 80
CSV_TABLES = ("standings", "games", "crosstable")

BoardsOf = Callable[[GameSummary], tuple[Board, ...]]
"""Where a game's boards are: in its summary, or put away on disk (``store.summaries``)."""


def own_boards(game: GameSummary) -> tuple[Board, ...]:
    return game.boards


def no_boards(game: GameSummary) -> tuple[Board, ...]:
    """For a table of the games, which shows no boards: nothing to read back."""
    return ()


# ---------------------------------------------------------------- the report (JSON)


def numbered(
    table: Standings, said: Words = ENGLISH
) -> Iterator[tuple[int, GameSummary, str | None, str | None]]:
    """Every game in the order played: its number, why it is set apart and the details,
    in English by default (what ``--json`` and ``--csv`` keep) or as ``said`` says them
    (the terminal's table, the HTML page); read a game at a time: ``Sorted.in_order``."""
    return (
        (n, game, *_why(apart, said, roster_players(table)))
        for n, game, apart in table.games.in_order()
    )


def _why(
    apart: SetApart | None, said: Words, players: Mapping[str, str]
) -> tuple[str | None, str | None]:
    if apart is None:
        return None, None
    return apart.why.value, roster_named(apart.detail, apart.game, players).in_words(said)


def roster_named(said: Phrase, game: GameSummary, players: Mapping[str, str]) -> Phrase:
    """The judgement's words of a game (its result, a board's title) with each side named as
    the tables name it (the roster's name) where they name it by its hello: a page that
    reads Ala Kowalska in its tables and Ala in its results seems to have two players.  A
    side is the ``name`` beside a ``role`` in a phrase (``said_side``, a board's title).
    ``players``: ``roster_players``; the phrase itself where nothing is renamed."""
    if not players:
        return said
    role = dict(said.facts).get("role")
    key = None
    if isinstance(role, Term):
        key = next((k for r, k in game.keys.items() if r.value == role.word), None)
    named = players.get(key) if key is not None else None
    facts: list[tuple[str, Fact]] = []
    for name, fact in said.facts:
        if name == "name" and named is not None:
            fact = as_is(named) if isinstance(fact, Phrase) else named
        elif isinstance(fact, Phrase):
            fact = roster_named(fact, game, players)
        facts.append((name, fact))
    return Phrase(said.text, tuple(facts))


def roster_players(table: Standings) -> Mapping[str, str]:
    """The names ``roster_named`` gives: the players' where a roster names them, else none
    (without a roster a game's words already name each side by its hello, as the tables
    do: nothing to make again for each of ten thousand games)."""
    return table.games.players if table.games.rules.roster else {}


def report(
    table: Standings, rules: TournamentRules, logs: int, boards: BoardsOf = own_boards
) -> dict[str, Any]:
    """The whole report, the games included."""
    return {**report_head(table, rules, logs), "games": list(report_games(table, boards))}


def report_games(
    table: Standings, boards: BoardsOf = own_boards, said: Words = ENGLISH
) -> Iterator[dict[str, Any]]:
    """The report's games, one at a time; their words (a result, a detail, a board's
    title) in English for ``--json``, or as ``said`` says them (the HTML page)."""
    return (
        _game_json(table, n, game, why, detail, boards, said)
        for n, game, why, detail in numbered(table, said)
    )


def write_json(
    table: Standings,
    rules: TournamentRules,
    logs: int,
    out: IO[str],
    boards: BoardsOf = own_boards,
) -> None:
    """The report as ``json.dumps(report(...), indent=2)`` writes it, one game at a time:
    ten thousand games' maps and their text are never all in memory at once."""
    head = {**report_head(table, rules, logs), "games": []}
    after = _written_but_the_end(json.JSONEncoder(indent=2).iterencode(head), out, 64)
    before, empty, after = after.rpartition('"games": []')
    assert empty, "the games come last"
    out.write(before + '"games": [')
    count = 0
    for game in report_games(table, boards):
        out.write(("," if count else "") + "\n    ")
        out.writelines(indented(game, 2))
        count += 1
    out.write(("\n  ]" if count else "]") + after + "\n")


def indented(value: Any, level: int = 0) -> Iterator[str]:
    """``value`` as ``json.dumps(value, indent=2)`` writes it, ``level`` indents in (its first
    line not indented; the keys of its maps strings, as a game's are).  Not ``json.dumps``:
    with ``indent`` it encodes in Python closures that refer to each other, a reference
    cycle for each game, which only the garbage collector frees; ten thousand games'
    cycles came and went with its timing, and the main process's peak with them.  Leaves
    (and empty lists and maps) are ``json.dumps``'s own, in C, which makes none."""
    inner = "\n" + "  " * (level + 1)
    if isinstance(value, dict) and value:
        yield "{"
        for number, (key, item) in enumerate(value.items()):
            yield ("," if number else "") + inner + json.dumps(str(key)) + ": "
            yield from indented(item, level + 1)
        yield "\n" + "  " * level + "}"
    elif isinstance(value, list | tuple) and value:
        yield "["
        for number, item in enumerate(value):
            yield ("," if number else "") + inner
            yield from indented(item, level + 1)
        yield "\n" + "  " * level + "]"
    else:
        yield json.dumps(value)


def _written_but_the_end(chunks: Iterable[str], out: IO[str], kept: int) -> str:
    """Write the text in ``chunks`` as it comes but its last ``kept`` characters, which
    are returned.  The head's text, crosstable and all, is never whole in memory: with
    ``indent`` the encoder gives it in pieces of a few characters, which ``json.dumps``
    would list, ten for each of a hundred players' 9,900 cells."""
    held = ""
    for chunk in chunks:
        held += chunk
        if len(held) > 2 * kept:
            out.write(held[:-kept])
            held = held[-kept:]
    return held


def report_head(table: Standings, rules: TournamentRules, logs: int) -> dict[str, Any]:
    """The report but its games."""
    keys = [line.key for line in table.lines]
    return {
        "tournament": {
            "rules": rules.preset,
            "min_move_limit_ms": rules.min_move_ms,
            "roster": dict(rules.roster),
            "since": rules.since,
            "until": rules.until,
            "games_per_pair": rules.games_per_pair,
            "tau": rules.tau,
            "points": asdict(rules.points),
        },
        "logs": logs,
        "games_judged": len(table.games.scored) + len(table.games.apart),
        "games_scored": len(table.games.scored),
        "tie_breaks": list(TIE_BREAKS),
        "standings": [_line_json(line) for line in table.lines],
        "crosstable": {
            "players": keys,
            "rows": [[list(table.crosstable[row].get(col, ())) for col in keys] for row in keys],
        },
    }


def _line_json(line: Line) -> dict[str, Any]:
    return {
        "place": line.place,
        "name": line.name,
        "key": line.key,
        "games": line.games,
        "wins": line.wins,
        "losses": line.losses,
        "won_by": {end.value: line.won_by[end] for end in HOW},
        "lost_by": {end.value: line.lost_by[end] for end in HOW},
        "points": line.points,
        "head_to_head": line.head_to_head,
        "sonneborn_berger": line.sonneborn_berger,
        "shots_to_win": line.shots_to_win,
        "rating": round(line.rating.rating, 2),
        "deviation": round(line.rating.deviation, 2),
        "volatility": round(line.rating.volatility, 6),
        "rated_games": line.rated_games,
    }


def _game_json(
    table: Standings,
    number: int,
    game: GameSummary,
    why: str | None,
    detail: str | None,
    boards: BoardsOf,
    said: Words,
) -> dict[str, Any]:
    players = roster_players(table)

    def side(role: Role) -> dict[str, Any]:
        key = game.keys.get(role)
        return {
            "key": key,
            "name": table.games.players.get(key or "", game.names.get(role)),
            "hello_name": game.names.get(role),
            "shots": game.shots.get(role, 0),
        }

    return {
        "number": number,
        "game": game.game,
        "started": game.started,
        "host": side(Role.HOST),
        "guest": side(Role.GUEST),
        "first": game.first.value if game.first else None,
        "rules": game.rules,
        "move_limit_ms": game.move_ms,
        "standing": game.standing.value,
        "end": game.end.value if game.end else None,
        "winner": game.winner.value if game.winner else None,
        "result": roster_named(game.result, game, players).in_words(said),
        "logs": list(game.logs),
        "flags": [flag.value for flag in game.flags],
        "scored": why is None,
        "apart": None if why is None else {"why": why, "detail": detail},
        "boards": [
            {"title": roster_named(b.title, game, players).in_words(said), "lines": list(b.lines)}
            for b in boards(game)
        ],
    }


# ---------------------------------------------------------------- CSV


def write_csv(table: Standings, which: str, out: IO[str]) -> None:
    writer = csv.writer(out, lineterminator="\n")
    if which == "standings":
        how = [f"{word} {end.value}" for word in ("won", "lost") for end in HOW]
        head = ["place", "name", "key", "games", "wins", "losses", *how, "points"]
        writer.writerow(
            [*head, "head_to_head", "sonneborn_berger", "shots_to_win", "rating", "deviation"]
        )
        for line in table.lines:
            counts = [line.won_by[end] for end in HOW] + [line.lost_by[end] for end in HOW]
            ties = [_number(line.head_to_head), _number(line.sonneborn_berger), line.shots_to_win]
            rating = [f"{line.rating.rating:.2f}", f"{line.rating.deviation:.2f}"]
            who = [line.place, line.name, line.key, line.games, line.wins, line.losses]
            writer.writerow([*who, *counts, _number(line.points), *ties, *rating])
    elif which == "games":
        head = ["number", "game", "host", "guest", "first", "winner", "how", "standing"]
        writer.writerow(
            [*head, "host shots", "guest shots", "rules", "scored", "set apart", "flags", "logs"]
        )
        for number, game, why, detail in numbered(table):
            players = [_player(table, game, Role.HOST), _player(table, game, Role.GUEST)]
            result = [game.first or "", _winner(table, game), game.end or "", game.standing]
            shots = [game.shots.get(Role.HOST, 0), game.shots.get(Role.GUEST, 0)]
            scored = ["yes" if why is None else "no", f"{why}: {detail}" if why else ""]
            # A log a line of its cell: a space, or a semicolon, may be in a log's name.
            logs = ["; ".join(game.flags), "\n".join(game.logs)]
            writer.writerow(
                [number, game.game, *players, *result, *shots, game.rules or "", *scored, *logs]
            )
    else:
        # A pair's games each get a column of their own (chess's double round robin: a
        # sub-column a game): two games' points in one cell, 2 and 2, are no number a
        # spreadsheet can read, and joined they read as twenty-two.
        keys = [line.key for line in table.lines]
        meetings = range(table.games.rules.games_per_pair)
        names = [table.games.name(key) for key in keys]
        if len(meetings) == 1:
            writer.writerow(["player", *names])
        else:
            writer.writerow(["player", *(f"{name} ({n + 1})" for name in names for n in meetings)])
        for row in keys:
            cells = [
                _number(scores[n]) if n < len(scores) else ""
                for col in keys
                for scores in [table.crosstable[row].get(col, ())]
                for n in meetings
            ]
            writer.writerow([table.games.name(row), *cells])


def _number(value: float) -> str:
    """Points as a program reads them (CSV): a point before a fraction."""
    return f"{value:g}"


def _said_number(value: float) -> str:
    """Points as the reader writes them (the terminal's table): ``2,5`` in Polish."""
    return decimal(value, 2, words(), trimmed=True)


def _scores(scores: tuple[float, ...] | None, said: Callable[[float], str] = _number) -> str:
    """A crosstable's cell: each game's points, a space between them (``1 0``, chess's way
    for a double round robin), so two games' 2 and 2 never read as 22."""
    return GAMES_APART.join(said(s) for s in scores) if scores else ""


GAMES_APART = " "
"""Between the games of a crosstable's cell (the terminal's, the HTML page's)."""


def _player(table: Standings, game: GameSummary, role: Role) -> str:
    key = game.keys.get(role)
    if key is not None and key in table.games.players:
        return table.games.name(key)
    return game.names.get(role) or (key or role.value)


def _said(name: str, key: str) -> str:
    """A player's name in the text table: statki's computer's in the reader's words."""
    return said_name(name, key).in_words(words())


def _player_words(table: Standings, game: GameSummary, role: Role) -> str:
    """``_player`` for a person: statki's computer in the reader's words (``said_name``), the
    role in their language where the log names nobody; the CSV and JSON keep the English."""
    key = game.keys.get(role)
    if key is None and not game.names.get(role):
        return _(role.value)
    return _said(_player(table, game, role), key or "")


def _winner(table: Standings, game: GameSummary) -> str:
    return _player(table, game, game.winner) if game.winner else "nobody"


# ---------------------------------------------------------------- the terminal table


def shown(text: str, width: int) -> str:
    """A name as a terminal shows it safely: no control characters, cut to ``width``."""
    clean = _printable(text)
    return clean if len(clean) <= width else clean[: width - 1] + "~"


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in text)


def told_apart(names: Mapping[str, str], width: int) -> dict[str, str]:
    """Each key's name as ``shown`` cuts it to ``width``, but where two names would be cut
    the same (``Aleksandra Ko~`` for Kowalska-Nowak and Kowalczyk) they keep their ends
    too (``Aleksa~a-Nowak``, ``Aleksa~walczyk``), or else the key's first digits: a
    table whose players read alike is no table.  Only names that were cut change."""
    cut = {key: shown(name, width) for key, name in names.items()}
    alike: dict[str, list[str]] = {}
    for key, said in cut.items():
        alike.setdefault(said, []).append(key)
    taken = set(cut.values())
    for group in alike.values():
        long = [key for key in group if len(_printable(names[key])) > width]
        if len(group) < 2 or not long:
            continue
        # The cut the group shares is free again only if no name of it is shown whole.
        free = taken - {cut[long[0]]} if len(long) == len(group) else taken
        for tail in (width // 2, *range(1, width - 1)):
            tried = {key: _ends(_printable(names[key]), width, tail) for key in long}
            new = set(tried.values())
            if len(new) == len(long) and not new & free:
                break
        else:
            tried = {key: _ends(_printable(names[key]), width - 5, 0) + key[:5] for key in long}
        cut.update(tried)
        taken |= set(tried.values())
    return cut


def _ends(clean: str, width: int, tail: int) -> str:
    """``clean`` in ``width`` characters: its start, ``~``, and its last ``tail``."""
    return clean[: width - 1 - tail] + "~" + (clean[-tail:] if tail else "")


FLAG_MARKS = {
    Flag.DISPUTED: "D",
    Flag.UNCORROBORATED: "T",
    Flag.CUSTOM_RULES: "C",
    Flag.ONE_SIDE: "1",
    Flag.COPY: "2",
}


def how_words() -> dict[str, str]:
    """How a game was won, by its end, in the tables' four columns, in the language spoken
    now (the context ``how``: ``time`` is a column's word here, not an ending's)."""
    w = words()
    return {
        "sunk": w.pgettext("how", "sunk"),
        "resigned": w.pgettext("how", "res"),
        "time": w.pgettext("how", "time"),
        "forfeit": w.pgettext("how", "forf"),
        "cheated": w.pgettext("how", "chtd"),
    }


def log_mark(role: str) -> str:
    """A log's mark in the games' table: H the host's, G the guest's (context ``log``)."""
    return words().pgettext("log", "H") if role == "host" else words().pgettext("log", "G")


TIE_BREAK_WORDS = {
    "head-to-head": N_("head-to-head"),
    "wins": N_("wins"),
    "Sonneborn-Berger": N_("Sonneborn-Berger"),
    "shots-to-win difference": N_("shots-to-win difference"),
}
APART_WORDS = (
    N_("no result"),
    N_("unfinished"),
    N_("disputed"),
    N_("tampered or damaged"),
    N_("other rules"),
    N_("move limit"),
    N_("not on the roster"),
    N_("outside the dates"),
    N_("played again"),
)
"""Each ``Apart`` as the catalog has it, translated where shown (``--json`` keeps it)."""
HEADINGS = (
    N_("Player"),
    N_("G"),
    N_("W"),
    N_("L"),
    N_("Pts"),
    N_("H2H"),
    N_("SB"),
    N_("Shots"),
    N_("Rating"),
    N_("RD"),
    N_("Volatility"),
    N_("Games"),
    N_("Host"),
    N_("Guest"),
    N_("1st"),
    N_("Winner"),
    N_("How"),
    N_("Logs"),
    N_("Flags"),
)
"""The terminal tables' column headings, marked here: they are translated inside the
f-strings that align them, where Babel does not look."""
FLAG_WORDS = (
    N_("disputed"),
    N_("uncorroborated time claim"),
    N_("custom rules"),
    N_("only one side's log"),
    N_("a log given twice"),
)
"""Each ``Flag`` as the catalog has it."""


def text(table: Standings, rules: TournamentRules, logs: int) -> Iterator[str]:
    """The tournament as a terminal shows it, in 80 columns, without colour, a line at a
    time (its games' table is as long as the tournament)."""
    games = table.games
    said = _said_names(table)
    ties = ", ".join(_(TIE_BREAK_WORDS.get(name, name)) for name in TIE_BREAKS)
    out = [
        _(
            "Tournament: {games} game(s) from {logs} log(s); {scored} scored, {apart} set apart"
        ).format(
            games=len(games.scored) + len(games.apart),
            logs=logs,
            scored=len(games.scored),
            apart=len(games.apart),
        ),
        _wrap(_("Rules: {rules}").format(rules=_rules_words(rules))),
        "",
        _wrap(_("Standings (ties: {ties})").format(ties=ties)),
        f"{'#':>3}  {_('Player'):<14} {_('G'):>3} {_('W'):>3} {_('L'):>3} {_('Pts'):>4}  "
        + " ".join(f"{w:>4}" for w in how_words().values())
        + f" {_('H2H'):>4} {_('SB'):>5} {_('Shots'):>6}",
    ]
    player = told_apart(said, 14)
    for line in table.lines:
        how = " ".join(f"{f'{line.won_by[end]}-{line.lost_by[end]}':>4}" for end in HOW)
        out.append(
            f"{line.place:>3}  {player[line.key]:<14}"
            f" {line.games:>3} {line.wins:>3}"
            f" {line.losses:>3} {_said_number(line.points):>4}  {how}"
            f" {_said_number(line.head_to_head):>4} {_said_number(line.sonneborn_berger):>5}"
            f" {line.shots_to_win:>+6}"
        )
    out += [_wrap(shots_words()), ""]
    out += [_("Ratings (Glicko-2, game by game in the order played), best first")]
    out.append(
        f"{'#':>3}  {_('Player'):<16} {_('Rating'):>7} {_('RD'):>6}  {_('Volatility'):>10}"
        f"  {_('Games')}"
    )
    # An entrant with no game has Glicko-2's starting rating, which would rank it above
    # every player who lost: it is listed last, unranked and unrated.
    rated = [line for line in table.lines if line.rated_games]
    by_rating = sorted(rated, key=lambda line: (-line.rating.rating, line.name))
    player = told_apart(said, 16)
    for rank, line in enumerate(by_rating, 1):
        r = line.rating
        out.append(
            f"{rank:>3}  {player[line.key]:<16}"
            f" {decimal(r.rating, 1, words()):>7} {decimal(r.deviation, 1, words()):>6}"
            f"  {r.volatility:>10.6f}  {line.rated_games:>5}"
        )
    unrated = sorted((line for line in table.lines if not line.rated_games), key=_by_name)
    for line in unrated:
        out.append(f"{'-':>3}  {player[line.key]:<16} {'-':>7} {'-':>6}  {'-':>10}  {0:>5}")
    out += ["", *_crosstable_text(table, told_apart(said, 16)), ""]
    yield from out
    yield from _games_text(table, told_apart(said, 13))


def _by_name(line: Line) -> str:
    return line.name


def shots_words() -> str:
    """What the Shots column adds up, under the standings (the text table's, the page's):
    its losses count for a player, so a player beaten in long games shows the highest
    number, which a referee took for the game's best until this said why."""
    return _(
        "Shots: over the games won by sinking a fleet, the shots opponents needed to sink"
        " the player's (in its losses) less those it needed to sink theirs (in its wins);"
        " a tie-break only among players level on all before it."
    )


def _said_names(table: Standings) -> dict[str, str]:
    """Every player's name as the text table says it (``_said``), by key."""
    return {key: _said(table.games.name(key), key) for key in table.games.players}


def rules_from_report(report: dict[str, Any]) -> TournamentRules:
    """The tournament's rules back from the report's ``tournament`` (the HTML page is drawn
    from the report alone)."""
    given = report["tournament"]
    return TournamentRules(
        preset=given["rules"],
        min_move_ms=given["min_move_limit_ms"],
        roster=given["roster"],
        since=given["since"],
        until=given["until"],
        games_per_pair=given["games_per_pair"],
        points=Points(**given["points"]),
        tau=given["tau"],
    )


def rules_words(rules: TournamentRules, *, published: bool = False) -> str:
    """The tournament's terms in one line; ``published`` (the HTML page) says the points
    and Glicko-2's tau even where they are the defaults: a page read away from the
    program says every term its table was made under."""
    said = _rules_words(rules, published=published)
    if published:
        said += "; " + _("Glicko-2 tau {tau}").format(tau=_said_number(rules.tau))
    return said


def _rules_words(rules: TournamentRules, *, published: bool = False) -> str:
    said = [rules.preset or _("any preset or combination of presets")]
    if rules.min_move_ms:
        said.append(
            _("move limit at least {seconds} s").format(
                seconds=seconds_said(rules.min_move_ms / 1000).in_words(words())
            )
        )
    if rules.roster:
        said.append(_("a roster of {n}").format(n=len(rules.roster)))
    if rules.since is not None or rules.until is not None:
        said.append(_("games begun {dates}").format(dates=_dates(rules.since, rules.until)))
    pair = rules.games_per_pair
    said.append(_("one game per pair") if pair == 1 else _("{n} games per pair").format(n=pair))
    if published or rules.points != Points():
        p = rules.points
        said.append(
            _("points: win {win}, loss {loss}, by forfeit {forfeit}, by cheating {cheated}").format(
                win=_said_number(p.win),
                loss=_said_number(p.loss),
                forfeit=_said_number(p.forfeit),
                cheated=_said_number(p.cheated),
            )
        )
    return "; ".join(said)


def _dates(since: int | None, until: int | None) -> str:
    def moment(ms: int) -> str:
        return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M")

    parts = []
    if since is not None:
        parts.append(_("from {moment}").format(moment=moment(since)))
    if until is not None:
        parts.append(_("before {moment}").format(moment=moment(until)))
    return " ".join(parts) + " UTC"


def _crosstable_text(table: Standings, player: Mapping[str, str]) -> list[str]:
    keys = [line.key for line in table.lines]

    def every_cell() -> Iterator[tuple[float, ...]]:
        return (s for row in table.crosstable.values() for s in row.values())

    # Two spaces between cells where a cell's games have one between them, so that
    # ``1 0  0 1`` is two cells of two games, not four games.
    gap = 2 if any(len(s) > 1 for s in every_cell()) else 1
    cell = max([3, *(len(_scores(s, _said_number)) + gap for s in every_cell())])
    if 25 + cell * len(keys) > WIDTH:
        return [
            _(
                "Crosstable: {n} players are too many for {width} columns"
                " (see --csv crosstable, --json or --html)"
            ).format(n=len(keys), width=WIDTH)
        ]
    out = [_("Crosstable (the row's points against the column's, game by game)")]
    numbers = "".join(f"{n:>{cell}}" for n in range(1, len(keys) + 1))
    out.append(f"{'#':>3}  {_('Player'):<16}{numbers}")
    for number, row in enumerate(keys, 1):
        scores = table.crosstable[row]
        cells = "".join(
            f"{'x' if col == row else (_scores(scores.get(col), _said_number) or '.'):>{cell}}"
            for col in keys
        )
        out.append(f"{number:>3}  {player[row]:<16}{cells}")
    return out


def _games_text(table: Standings, player: Mapping[str, str]) -> Iterator[str]:
    lines = _games_lines(table, player)
    return (_wrap(line) if len(line) > WIDTH else line.rstrip() for line in lines)


def _games_lines(table: Standings, player: Mapping[str, str]) -> Iterator[str]:
    def named(game: GameSummary, role: Role | None) -> str:
        if role is None:
            return shown(_("nobody"), 13)
        key = game.keys.get(role)
        return player.get(key or "") or shown(_player_words(table, game, role), 13)

    yield _("Games, in the order played (1st: who shot first; shots: host-guest)")
    yield (
        f"{'#':>3}  {_('Host'):<13} {_('Guest'):<13} {_('1st'):<3}  {_('Winner'):<13}"
        f" {_('How'):<4} {_('Shots'):>7}  {_('Logs'):<5} {_('Flags')}"
    )
    # The games set apart are shown after those scored: a second pass over the games.
    for number, game, why, _detail in numbered(table):
        if why is not None:
            continue
        shots = f"{game.shots.get(Role.HOST, 0)}-{game.shots.get(Role.GUEST, 0)}"
        yield (
            f"{number:>3}  {named(game, Role.HOST):<13} {named(game, Role.GUEST):<13}"
            f" {_first_mark(game):<3}  {named(game, game.winner):<13}"
            f" {how_words().get(game.end or '', '-'):<4} {shots:>7}  {_logs_said(game):<5}"
            f" {''.join(FLAG_MARKS[flag] for flag in game.flags)}"
        )
    yield _(
        "Logs: {host} the host's, {guest} the guest's, {host}2 given twice, - not handed in."
        "  Flags: {flags}"
    ).format(
        host=log_mark("host"),
        guest=log_mark("guest"),
        flags=", ".join(f"{mark} {_(flag)}" for flag, mark in FLAG_MARKS.items()),
    )
    if table.games.apart:
        yield from ["", _("Set apart, not scored")]
        for number, game, why, detail in numbered(table, words()):
            if why is None:
                continue
            host = _player_words(table, game, Role.HOST)
            guest = _player_words(table, game, Role.GUEST)
            marks = "".join(FLAG_MARKS[flag] for flag in game.flags)
            said = f"{number:>3}  {game.game[:16]} " + _(
                "{host} v {guest}: {why}: {detail}"
            ).format(host=host, guest=guest, why=_(why), detail=detail)
            line = shown(said + (f" [{marks}]" if marks else ""), 10**6)
            yield from textwrap.wrap(line, WIDTH, subsequent_indent="       ")


def _logs_said(game: GameSummary) -> str:
    """The logs a game was judged from: H for the host's, G for the guest's, each with how
    many times it was given when more than once (``H2``), and ``-`` for a side's log not
    handed in; ``?`` for one naming no role.  Never cut: ``H H ~`` hid that the guest's
    log was the one missing."""
    given = {role: game.log_roles.count(role) for role in ("host", "guest")}
    unnamed = sum(role not in given for role in game.log_roles)

    def said(mark: str, count: int) -> str:
        return "-" if count == 0 else mark if count == 1 else f"{mark}{count}"

    marks = [said(log_mark(role), count) for role, count in given.items()]
    return " ".join(marks + ([said("?", unnamed)] if unnamed else []))


def _first_mark(game: GameSummary) -> str:
    """Who shot first: the host's mark or the guest's (``-``: nobody shot)."""
    if game.first is None:
        return "-"
    return log_mark(game.first)


def _wrap(line: str) -> str:
    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent="  ")) or line
