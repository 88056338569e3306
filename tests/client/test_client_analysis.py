"""The analysis on the client's end screen: asked for, its progress, its results.

On a 6x6 board with three ships ``density`` counts exactly and plays in
moments, so whole analyses run here; the model runs jobs at once unless a
runner says otherwise, and the key test runs it in the screen's thread.
"""

from __future__ import annotations

import random
import threading
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from statki_client.keys import build_app, press
from statki_client.layout import plain, screen
from statki_client.local import LocalGame, simple_chooser
from statki_client.model import Model, Overlay, Stage
from statki_client.plain import run_plain
from statki_client.review import (
    AnalysisJob,
    AnalysisState,
    AnalysisStatus,
    FleetsRanked,
    Progress,
    Report,
    ShotsReviewed,
    Update,
)
from test_client_model import clock

from statki_net.game.battle import Answer, Outcome
from statki_net.game.board import square_name
from statki_net.game.replay import Volley
from statki_net.game.rules import Ruleset, Touching
from statki_net.game.words import N_
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Failed
from statki_net.store.failures import failed
from statki_net.store.history import History
from statki_net.store.language import speak

SMALL = Ruleset(size=6, fleet=(3, 2, 1), touching=Touching.NONE)


def small_game(tmp_path: Path, seed: int = 7) -> tuple[Model, History]:
    history = History.in_home(tmp_path)
    link = LocalGame(
        SMALL,
        Ed25519PrivateKey.from_private_bytes(bytes(range(32))),
        name="Ala",
        strategy="random",
        chooser=simple_chooser(random.Random(seed + 1)),
        rng=random.Random(seed),
        home=tmp_path,
        history=history,
        clock=clock(),
        entropy=random.Random(seed + 100).randbytes,
    )
    model = Model(link, random.Random(seed), lambda: (history.games(), history.tally("opponent")))
    return model, history


def play_out(model: Model, shots: int = 10_000) -> None:
    """Fire at the squares in order (at most ``shots`` of them) until the game ends."""
    square = 0
    while model.stage is Stage.BATTLE and shots:
        if model.refusal(square % 36) is None:
            model.choose(square % 36)
            shots -= 1
        square += 1
        assert square < 1000


def recording(seen: list[Update], screens: list[str], model: Model) -> None:
    """Run jobs at once, keeping every report and the screen as each one arrives."""

    def run(job: AnalysisJob, report: Report) -> None:
        def keep(update: Update) -> None:
            report(update)
            seen.append(update)
            screens.append(plain(screen(model)))

        job.run(keep)

    model.background = run


def test_the_analysis_reports_progress_shows_the_shots_first_then_the_fleets(
    tmp_path: Path,
) -> None:
    model, _ = small_game(tmp_path)
    model.ready()
    play_out(model)
    assert model.stage is Stage.OVER
    assert model.analysis.status is AnalysisStatus.NOT_ASKED
    assert "a analyses the game" in plain(screen(model))
    seen: list[Update] = []
    screens: list[str] = []
    recording(seen, screens, model)

    assert model.analyse()

    kinds = [type(update) for update in seen]
    reviewed, ranked = kinds.index(ShotsReviewed), kinds.index(FleetsRanked)
    assert reviewed < ranked == len(seen) - 1
    for part in (seen[:reviewed], seen[reviewed + 1 : ranked]):
        percents = [update.percent for update in part if isinstance(update, Progress)]
        assert percents[0] == 0 and percents[-1] == 100 and percents == sorted(percents)
    on_review = screens[reviewed]
    assert "Analysis of this game" in on_review and "accuracy" in on_review
    assert "being estimated" in on_review and "(an estimate), 0%" in on_review

    state = model.analysis
    assert state.status is AnalysisStatus.DONE and state.percent == 100
    assert state.mine is not None and state.theirs is not None
    assert len(state.mine.shots) == model.shots_fired(True)
    assert len(state.theirs.shots) == model.shots_fired(False)
    assert state.my_fleet is not None and state.their_fleet is not None
    assert len(state.my_fleet.reference) == state.effort.reference_fleets
    shown = plain(screen(model))
    assert model.overlay is Overlay.ANALYSIS
    assert f"You: {len(state.mine.shots)} shots, accuracy" in shown
    assert "Your fleet: harder to find than" in shown
    assert "computer (random)".capitalize() in shown and "Their fleet: harder to find" in shown
    assert "Fleets: an estimate (6 random fleets, 2 games each)" in shown
    assert "Analysing" not in shown

    press(model, "a")
    assert model.overlay is None
    end = plain(screen(model))
    assert "Analysis (a shows it): your accuracy" in end and "fleet was harder to find" in end


def test_the_worst_shots_are_the_ones_furthest_below_the_best_square(tmp_path: Path) -> None:
    model, _ = small_game(tmp_path, seed=3)
    model.ready()
    play_out(model)
    model.analyse()
    review = model.analysis.mine
    assert review is not None
    worst = max(review.shots, key=lambda s: s.best_chance - s.chance)
    assert worst.best_chance - worst.chance > 0.05, "reading order is not the best"
    shown = plain(screen(model))
    assert "missed the best square by the most" in shown
    listed = shown.split("by the most:")[1].split("Your fleet")[0].strip().splitlines()
    assert len(listed) == 3
    assert listed[0].split()[:3] == ["move", str(worst.move), square_name(worst.square, 6)]


def test_without_the_reveal_only_the_shots_are_analysed_and_the_screen_says_why(
    tmp_path: Path,
) -> None:
    model, _ = small_game(tmp_path)
    model.ready()
    play_out(model, shots=3)
    session = model.session
    model.handle(session.connection_lost(9_999_999))
    # Protocol v2: the game goes on alone, and ends when the opponent's time runs out.
    if model.my_turn:
        view = session.view
        assert view is not None
        unshot = next(s for s in range(36) if not view.shot >> s & 1)
        model.handle(session.shoot((unshot,), 10_000_000))
    due = session.deadline()
    assert due is not None
    model.handle(session.check_time(due))
    assert model.stage is Stage.OVER and model.end_screen is not None
    assert model.end_screen.their_fleet is None
    model.analyse()
    state = model.analysis
    assert state.status is AnalysisStatus.DONE
    assert state.their_fleet is None and state.my_fleet is not None, "my own fleet is known"
    shown = plain(screen(model))
    assert "Their fleet: not known" in shown
    assert "never revealed" in shown and "before the reveal" in shown


def test_it_is_refused_before_the_end_and_after_a_game_without_shots(tmp_path: Path) -> None:
    model, _ = small_game(tmp_path)
    assert not model.analyse() and "at the end" in model.notice
    assert model.analysis.status is AnalysisStatus.NOT_ASKED
    model.handle(model.session.connection_lost(9_999_999))
    assert model.stage is Stage.OVER
    assert not model.analyse() and "nothing to analyse" in model.notice
    assert "a analyse" not in plain(screen(model))


def test_a_rematch_drops_the_analysis_of_the_last_game(tmp_path: Path) -> None:
    model, _ = small_game(tmp_path)
    model.ready()
    play_out(model)
    started: list[AnalysisJob] = []
    reports: list[Report] = []

    def later(job: AnalysisJob, report: Report) -> None:
        started.append(job)
        reports.append(report)

    model.background = later
    model.analyse()
    assert model.analysis.status is AnalysisStatus.SHOTS and "0%" in plain(screen(model))
    assert model.rematch()
    assert started[0].cancelled
    assert model.background is later, "the new game runs its analysis the same way"
    started[0].run(reports[0])  # a job that ran on anyway reports into the void
    assert model.analysis == AnalysisState(), "the new game's analysis is not asked for yet"


def test_a_failing_analysis_says_so_on_the_screen(tmp_path: Path) -> None:
    model, _ = small_game(tmp_path)
    model.ready()
    play_out(model)

    def broken(job: AnalysisJob, report: Report) -> None:
        # A volley whose answer does not fit its shots: the review cannot go on.
        bad = (Volley(1, (0, 1), Answer.single(Outcome.MISS)),)
        job.my_volleys = bad
        job.run(report)

    model.background = broken
    model.analyse()
    assert model.analysis.status is AnalysisStatus.FAILED
    assert "analysing the game failed: UsageError: " in plain(screen(model))
    model.overlay = None
    assert "analysing the game failed: UsageError: " in plain(screen(model))
    speak("pl")  # one line in the player's words, not "The analysis failed: UsageError"
    assert "analizowanie gry nie powiodło się: UsageError: " in plain(screen(model))


def test_a_cancelled_job_reports_nothing() -> None:
    job = AnalysisJob(SMALL, (), (), None, None, seed=1)
    job.cancel()
    heard: list[Update] = []
    job.run(heard.append)
    assert heard == []


def test_the_key_runs_it_in_a_thread_and_the_screen_follows(tmp_path: Path) -> None:
    model, _ = small_game(tmp_path)
    model.ready()
    play_out(model)
    screens: list[str] = []
    with create_pipe_input() as pipe:
        app = build_app(
            model,
            input=pipe,
            output=DummyOutput(),
            on_key=lambda: screens.append(plain(screen(model))),
        )

        def leave_when_done() -> None:
            for _ in range(600):  # bounded: a 6x6 analysis takes moments
                if model.analysis.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
                    break
                threading.Event().wait(0.1)
            pipe.send_text("aq")

        pipe.send_text("a")
        watcher = threading.Thread(target=leave_when_done)
        watcher.start()
        app.run()
        watcher.join()
    assert "Analysis of this game" in screens[0], "a opens it at once"
    assert "Analysing: reviewing the shots, 0%" in screens[0]
    assert model.analysis.status is AnalysisStatus.DONE
    assert "your accuracy" in screens[-1], "back on the end screen, with the summary"
    assert model.done


def test_the_line_prompt_prints_it_at_the_end(tmp_path: Path) -> None:
    model, _ = small_game(tmp_path)
    squares = [f"{column}{row}" for row in range(1, 7) for column in "ABCDEF"]
    lines = iter(["", *squares, "a", "q"])
    out: list[str] = []

    def read_line(prompt: str) -> str | None:
        out.append(prompt)
        return next(lines, None)

    run_plain(model, read_line, out.append)
    text = "\n".join(out)
    assert "a analyse, r rematch, q quit> " in out
    assert "Your shots: " in text and "Estimating how hard the fleets were" in text
    assert text.index("Your shots: ") < text.index("Your fleet: harder to find than")
    assert "Their fleet: harder to find than" in text
    assert model.analysis.status is AnalysisStatus.DONE


def test_the_line_prompt_wraps_it_between_words_in_polish(tmp_path: Path) -> None:
    """The Polish analysis' long lines were cut by the terminal mid-word ("najlepszy / ch")."""
    speak("pl")
    try:
        model, _ = small_game(tmp_path)
        squares = [f"{column}{row}" for row in range(1, 7) for column in "ABCDEF"]
        lines = iter(["", *squares, "a", "q"])
        out: list[str] = []
        run_plain(model, lambda prompt: next(lines, None), out.append)
    finally:
        speak("en")
    text = "\n".join(out)
    assert "trudniejsza do znalezienia niż" in text, text
    too_wide = [line for line in text.split("\n") if len(line) > 80]
    assert not too_wide, too_wide


def test_a_failure_of_this_sides_own_is_not_blamed_on_the_opponent(tmp_path: Path) -> None:
    """A local ``internal`` stop (the system refused a file) read as "The opponent broke the
    protocol: internal: …"; it is this side's, in the player's words."""
    model, _ = small_game(tmp_path)
    said = failed(N_("playing the game"), PermissionError(13, "Permission denied", "/x"))
    speak("pl")
    model.handle([Failed(Code.INTERNAL, str(said), by_peer=False, said=said)])
    assert model.notice == (
        "Gra przerwana po twojej stronie: rozgrywanie gry nie powiodło się: Permission denied: /x"
    ), model.notice
