"""Every screen of the client, in English and in Polish, at 80x24.

Each screen is driven to with the real model (a local game against the
computer, a host's and a guest's model over a ``ConnectionLink``) and drawn
once per language; a screen fails when ``cut_short`` finds a text the 80x24
screen would cut, when a Polish screen shows an English message of the
catalog, or when a line reads the same in both languages though it holds words
(a string nobody marked for translation).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from statki_client.keys import press
from statki_client.layout import HEIGHT, WIDTH, cut_short, plain, screen, terminal_screen
from statki_client.local import LocalGame, simple_chooser
from statki_client.model import Model, Overlay, Stage
from statki_client.pickup import unfinished_words
from statki_client.remote import ConnectionLink
from statki_client.review import AnalysisJob, Report, Update, run_now
from test_client_analysis import SMALL
from test_client_analysis import play_out as play_small
from test_client_model import CLASSIC_FLEET, clock, game, place, play_out
from test_client_netscreen import GUEST_KEY, INVITE, guest_arrives, host_model
from test_client_resumed import first_screen_kept, kept_list, kept_refused, picked_up_battle
from test_client_talk import heard

from statki_net.ai.strength import Strength
from statki_net.game.rules import PRESETS, ruleset_named
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Failed
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Role
from statki_net.store.history import History
from statki_net.store.language import LOCALE_DIR, speak
from statki_net.store.unfinished import Glance

CATALOG = LOCALE_DIR / "pl" / "LC_MESSAGES" / "statki.po"

SAME_IN_BOTH = {"statki", "Enter", "Tab", "Esc", "OK", "classic", "alternate", "salvo"}
"""Words a Polish screen shares with the English one: key names, preset names."""
SAID = {"powodzenia", "nawzajem"}
"""Words the players said in the games shown: their talk reads the same in both languages."""

ALA_TO_MOVE = Glance("Ala-the-longest-name", ruleset_named("salvo-count"), my_move=False)
"""A kept game as its log reads: the longest words the line can hold (the name is cut)."""

Shown = Callable[[], Model]
"""Makes a model and brings it to one screen; called once per language."""


def local(tmp_path: Path, rules: str = "classic") -> Model:
    (tmp_path / rules).mkdir(parents=True, exist_ok=True)
    model, _history = game(tmp_path / rules, rules)
    return model


def placing(tmp_path: Path) -> Model:
    return local(tmp_path)


def placing_touching(tmp_path: Path) -> Model:
    model = local(tmp_path)
    place(model, [*CLASSIC_FLEET[:-1], "B8"])  # touches A7 at a corner
    model.ready()  # refused, with the reason
    return model


def rules_screen(tmp_path: Path, strength: Strength = Strength.MEDIUM) -> Model:
    link = LocalGame(
        ruleset_named("classic"),
        GUEST_KEY,
        name="Ala",
        strategy="medium",
        chooser=simple_chooser(random.Random(1)),
        rng=random.Random(2),
        home=tmp_path,
        clock=clock(),
        entropy=random.Random(3).randbytes,
    )
    strengths = tuple(s.value for s in Strength)
    return Model(
        link,
        random.Random(4),
        rule_choices=tuple(PRESETS),
        strength_choices=strengths,
        strength_cursor=strengths.index(strength.value),
    )


def rules_screen_at(strength: Strength) -> Callable[[Path], Model]:
    """The rules screen with ``strength`` chosen: each strength says what it plays."""
    return lambda tmp_path: rules_screen(tmp_path, strength)


def battle(tmp_path: Path, rules: str = "classic", shots: int = 12) -> Model:
    model = local(tmp_path, rules)
    place(model, CLASSIC_FLEET)
    model.ready()
    square = 0
    while model.stage is Stage.BATTLE and shots:
        if model.my_turn and model.refusal(square) is None:
            model.choose(square)
            shots -= 1
        square += 1
    model.cursor = 45
    return model


def salvo_battle(tmp_path: Path) -> Model:
    model = battle(tmp_path, "salvo", shots=0)
    model.choose(0)
    return model


def battle_refused_shot(tmp_path: Path) -> Model:
    model = battle(tmp_path)
    shot = next(volley.squares[0] for volley in model.volleys if volley.mine)
    model.choose(shot)  # at a square shot already: refused, with the reason
    return model


def end_screen(tmp_path: Path) -> Model:
    model = local(tmp_path)
    place(model, CLASSIC_FLEET)
    model.ready()
    play_out(model)
    return model


_ANALYSED: dict[str, list[Update]] = {}


def run_once(job: AnalysisJob, report: Report) -> None:
    """``run_now``, each game analysed once in a run: the same small game's analysis is
    drawn in both languages on several screens, and is the same every time (seeded by the
    game).  Its reports are figures and phrases said where shown, so one language's run
    serves the other's screens."""
    key = repr((job.rules, job.my_volleys, job.their_volleys, job.my_fleet))
    key += repr((job.their_fleet, job.seed, job.effort))
    if key not in _ANALYSED:
        updates: list[Update] = []
        run_now(job, updates.append)
        _ANALYSED[key] = updates
    for update in _ANALYSED[key]:
        report(update)


def small_end(tmp_path: Path) -> Model:
    tmp_path.mkdir(parents=True, exist_ok=True)
    history = History.in_home(tmp_path)
    link = LocalGame(
        SMALL,
        GUEST_KEY,
        name="Ala",
        strategy="random",
        chooser=simple_chooser(random.Random(8)),
        rng=random.Random(7),
        home=tmp_path,
        history=history,
        clock=clock(),
        entropy=random.Random(107).randbytes,
    )
    model = Model(link, random.Random(7), background=run_once)
    model.ready()
    play_small(model)
    return model


def analysed(tmp_path: Path) -> Model:
    model = small_end(tmp_path)
    press(model, "a")  # run_once: the whole analysis before the screen is drawn
    return model


def analysed_end(tmp_path: Path) -> Model:
    model = analysed(tmp_path)
    press(model, "a")  # back to the end screen, with the summary
    return model


def rematch(tmp_path: Path) -> Model:
    model = end_screen(tmp_path)
    assert model.rematch()
    return model


def overlay(kind: Overlay) -> Callable[[Path], Model]:
    def shown(tmp_path: Path) -> Model:
        model = end_screen(tmp_path) if kind is Overlay.HISTORY else battle(tmp_path)
        model.overlay = kind
        return model

    return shown


def host_placing(tmp_path: Path) -> Model:
    return host_model(invite=INVITE)  # statki host's first screen: placing, the invite below


def host_waiting(tmp_path: Path) -> Model:
    model = host_model(invite=INVITE)
    press(model, "enter")  # the fleet committed: waiting for a guest
    return model


def host_met(tmp_path: Path) -> Model:
    model = host_waiting(tmp_path)
    guest_arrives(model)
    return model


def chatting(tmp_path: Path) -> Model:
    model = battle(tmp_path)
    press(model, "t")  # the chat line open, a line half typed
    for key in "good luck":
        press(model, key)
    return model


def talk_heard(tmp_path: Path) -> Model:
    model = battle(tmp_path)
    heard(model, "nice shot")  # the talk beside the boards, its heading, the notice
    return model


def with_unfinished(shown: Callable[[Path], Model], count: int) -> Callable[[Path], Model]:
    """``shown`` in a home that keeps ``count`` unfinished games, the last one's log read."""

    def unfinished(tmp_path: Path) -> Model:
        model = shown(tmp_path)
        model.unfinished = unfinished_words([None] * (count - 1) + [ALA_TO_MOVE])
        return model

    return unfinished


def guest(failure: Failed | None) -> Callable[[Path], Model]:
    def shown(tmp_path: Path) -> Model:
        session = Session(Role.GUEST, GUEST_KEY, name="Ola", entropy=random.Random(1).randbytes)
        link = ConnectionLink(session)
        model = Model(link, random.Random(2))
        if failure is not None:
            session.failure = failure
            link.connection_ended()
        return model

    return shown


SCREENS: dict[str, Callable[[Path], Model]] = {
    "placement": placing,
    "placement, a fleet breaking the rules": placing_touching,
    "rules screen": rules_screen,
    **{f"rules screen, {s.value}": rules_screen_at(s) for s in Strength if s.value != "medium"},
    "battle": battle,
    "battle, a refused shot": battle_refused_shot,
    "battle, a salvo": salvo_battle,
    "battle, the chat line": chatting,
    "battle, talk heard": talk_heard,
    "quit question": overlay(Overlay.QUIT),
    "help": overlay(Overlay.HELP),
    "past games": overlay(Overlay.HISTORY),
    "end screen": end_screen,
    "analysis": analysed,
    "end screen, analysed": analysed_end,
    "rematch": rematch,
    "host waiting, invite": host_waiting,
    "host, the guest arrived": host_met,
    "placement, an unfinished game": with_unfinished(placing, 1),
    "rules screen, unfinished games": with_unfinished(rules_screen, 3),
    "host placing, invite, an unfinished game": with_unfinished(host_placing, 1),
    "battle, picked up from its log": picked_up_battle,
    "placement, u picks a kept game up": first_screen_kept,
    "the kept games to pick one up from": kept_list,
    "placement, a kept game that cannot be resumed": kept_refused,
    "guest connecting": guest(None),
    "guest turned away": guest(Failed(Code.NOT_INVITED, "the hello proves no invite", True)),
}


def drawn(shown: Callable[[Path], Model], tmp_path: Path, language: str) -> tuple[str, list[str]]:
    speak(language)
    (tmp_path / language).mkdir(parents=True, exist_ok=True)
    model = shown(tmp_path / language)
    return plain(screen(model)), cut_short(model)


@pytest.fixture(scope="module")
def english_messages() -> list[tuple[str, str]]:
    """The catalog's probes: for each message translated differently, its longest run of
    words between placeholders (what a screen would show of it), and its translation."""
    probes = []
    with CATALOG.open("rb") as po:
        for message in read_po(po):
            msgid = message.id if isinstance(message.id, str) else message.id[0]
            string = message.string
            msgstr = string if isinstance(string, str) else (string or ("",))[0]
            pieces = [p.strip() for p in re.split(r"\{[^}]*\}", msgid)]
            probe = max(pieces, key=len, default="")
            if len(probe) >= 8 and probe not in msgstr:
                probes.append((probe, msgstr))
    return probes


def wordy(line: str) -> bool:
    """Whether a line holds words a person reads (not a board row, a key, a name)."""
    words = [w for w in re.findall(r"[A-Za-z]{3,}", line) if w not in SAME_IN_BOTH | SAID]
    return len(words) >= 2


@pytest.mark.parametrize("name", list(SCREENS))
def test_every_screen_fits_80x24_and_is_polish_in_polish(name: str, tmp_path: Path) -> None:
    shown = SCREENS[name]
    english, english_cut = drawn(shown, tmp_path, "en")
    polish, polish_cut = drawn(shown, tmp_path, "pl")
    assert not english_cut, f"{name}: cut at {WIDTH}x{HEIGHT} in English: {english_cut}"
    assert not polish_cut, f"{name}: cut at {WIDTH}x{HEIGHT} in Polish: {polish_cut}"
    assert polish != english
    untranslated = [
        line
        for line in polish.splitlines()
        if wordy(line) and line in english.splitlines() and "statki://" not in line
    ]
    assert not untranslated, f"{name}: the same in both languages:\n" + "\n".join(untranslated)


def test_no_polish_screen_shows_an_english_message(
    tmp_path: Path, english_messages: list[tuple[str, str]]
) -> None:
    found = []
    for name, shown in SCREENS.items():
        polish, _cut = drawn(shown, tmp_path / name.replace(" ", "_"), "pl")
        found += [f"{name}: {probe!r}" for probe, _ in english_messages if probe in polish]
    assert not found, "English on Polish screens:\n" + "\n".join(found)


def test_a_terminal_too_small_says_so_in_polish(tmp_path: Path) -> None:
    speak("pl")
    model = placing(tmp_path)
    text = plain(terminal_screen(model, 60, 20))
    assert "Terminal jest za mały" in text and "ten ma 60x20" in text
    assert all(len(line) <= 60 for line in text.splitlines())


def test_the_polish_words_are_the_players_own(tmp_path: Path) -> None:
    """The answers and the ships as shared/rules name them."""
    speak("pl")
    shots = plain(screen(battle(tmp_path, shots=40)))
    assert "pudło" in shots or "trafiony" in shots
    assert "TWÓJ RUCH" in shots or "ma ruch" in shots
    placed = plain(screen(placing(tmp_path / "placing")))
    for ship in ("czteromasztowiec", "trójmasztowiec", "dwumasztowiec", "jednomasztowiec"):
        assert ship in placed
    assert "10 statków" in plain(screen(rules_screen(tmp_path / "rules")))


@pytest.mark.parametrize("language", ["en", "pl"])
def test_the_analysis_names_its_command_on_one_line(language: str, tmp_path: Path) -> None:
    """A command a player may copy is never broken between two lines of the screen
    (the Polish one was: "... dokładniej liczy statki" / "analyze ZAPIS")."""
    text, _cut = drawn(analysed, tmp_path, language)
    log = {"en": "LOG", "pl": "ZAPIS"}[language]
    assert f"statki analyze {log}" in text, text


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_fleet_typed_at_the_prompt_is_not_told_about_lines(language: str, tmp_path: Path) -> None:
    """Typed on one line, "B2-E2 Z9" was refused for its "wiersz 2" (line 2)."""
    speak(language)
    line = {"en": "line", "pl": "wiersz"}[language]
    for typed, named in (("B2-E2 Z9", "Z9"), ("B2-E2 nowa", "nowa"), ("B2-", "B2-")):
        model = placing(tmp_path / typed.replace(" ", "_"))
        assert not model.place_typed(typed)
        assert named in model.notice and line not in model.notice, model.notice
