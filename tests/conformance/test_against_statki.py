"""statki passes its own conformance suite, played against a second statki process.

``statki conformance`` runs as a real process, and for each case starts the
implementation under test through the driver contract: here
``statki_driver.py``, which runs ``statki host``/``statki join`` with a bot.
The whole table takes minutes (README says how long); CI plays a
representative subset, a few cases per test so each stays well inside the
time limit, and each group of the table in both roles.  A deliberately broken
peer (``broken_peer.py``) shows that the cases it gets wrong fail.
"""

from __future__ import annotations

import json
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import rendered
from netproc import finish, line_starting, run, start
from statki_driver import free_port

HERE = Path(__file__).resolve().parent
STATKI = f"{sys.executable} {HERE / 'statki_driver.py'}"
BROKEN = f"{sys.executable} {HERE / 'broken_peer.py'}"

SUBSETS = {
    "implementation hosts": [
        "honest.classic@host",
        "frame.bad-signature@host",
        "turn.commit-in-shoot@host",
    ],
    "implementation joins": [
        "honest.five-ships+salvo@guest",
        "field.shot-off-board@guest",
        "hello.board-too-small@guest",
        "join.names-its-game@guest",
    ],
    "lies and endings": [
        "lie.miss-for-hit@guest",
        "stop.in-host-coin@guest",
        "time.early-claim@host",
    ],
    "resume and resign": [
        "resume.answer-in-flight@guest",
        "resume.before-a-shot@host",
        "resign.in-answer@host",
    ],
}


def conformance(tmp_path: Path, driver: str, cases: list[str], *extra: str) -> dict:  # type: ignore[type-arg]
    args = ["conformance", "--driver", driver, "--json", *extra]
    for case in cases:
        args += ["--case", case]
    done = run(tmp_path / "home", *args)
    report = json.loads(done.stdout)
    assert sorted(c["id"] for c in report["cases"]) == sorted(cases), done.stderr
    report["status"] = done.returncode
    return report  # type: ignore[no-any-return]


@pytest.mark.parametrize("subset", list(SUBSETS))
def test_statki_passes_its_own_suite(tmp_path: Path, subset: str) -> None:
    report = conformance(tmp_path, STATKI, SUBSETS[subset])
    failed = [
        (c["id"], c["observed"], c["reasons"]) for c in report["cases"] if c["outcome"] != "pass"
    ]
    assert not failed
    assert report["status"] == 0
    assert report["summary"]["pass"] == len(SUBSETS[subset])


FLAWED = ["turn.commit-in-shoot@host", "hello.version-newer@host", "frame.bad-signature@host"]
"""The cases ``broken_peer.py`` gets wrong, one flaw each."""


# ---------------------------------------------------------------- the HTML report


class Cells(HTMLParser):
    """The rows of the page's table of cases, and its summary, as the browser left them."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None
        self.summary: list[str] | None = None
        self.summary_text = ""
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self.cell = []
        elif tag == "p" and ("id", "summary") in attrs:
            self.summary = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None
        elif tag == "p" and self.summary is not None:
            self.summary_text = "".join(self.summary)
            self.summary = None

    def handle_data(self, data: str) -> None:
        for open_text in (self.cell, self.summary):
            if open_text is not None:
                open_text.append(data)


def test_a_broken_peer_fails_the_cases_it_gets_wrong_and_the_page_shows_it(
    tmp_path: Path,
) -> None:
    page = tmp_path / "report.html"
    report = conformance(tmp_path, BROKEN, [*FLAWED, "honest.classic@host"], "--html", str(page))
    outcomes = {c["id"]: c for c in report["cases"]}
    for case in FLAWED:
        assert outcomes[case]["outcome"] == "fail", outcomes[case]
    assert "error bad-field instead of out-of-turn" in outcomes[FLAWED[0]]["reasons"]
    assert "no error version came back" in outcomes[FLAWED[1]]["reasons"]
    assert "it answered with error bad-signature" in outcomes[FLAWED[2]]["reasons"]
    assert outcomes["honest.classic@host"]["outcome"] == "pass"
    assert report["status"] == 1
    # The HTML report, as a real headless browser shows it, holds what the JSON holds.
    html = page.read_text()
    assert "<script" not in html and "http" not in html
    dom = Cells()
    dom.feed(rendered(page))
    assert "script" not in dom.tags and {"style", "table"} <= dom.tags
    rows = [row for row in dom.rows if row]
    assert [(row[0], row[2]) for row in rows] == [(c["id"], c["outcome"]) for c in report["cases"]]
    assert dom.summary_text == "conformance: 4 cases: 1 pass, 3 fail, 0 informational"


# ---------------------------------------------------------------- no driver


def test_without_a_driver_it_prints_an_invite_to_join_and_joins_an_invite_given(
    tmp_path: Path,
) -> None:
    """Both roles with a peer nobody started for it: the invite the suite prints is joined
    by hand (here: statki join), and the suite joins the invite a host printed."""
    suite = start(tmp_path / "suite", "conformance", "--case", "honest.classic@guest")
    assert suite.stderr is not None
    said = suite.stderr.readline()
    assert said.startswith("honest.classic@guest: join this invite now: statki://"), said
    invite = said.split()[-1]
    guest = start(tmp_path / "guest", "join", invite, "--bot", "random", "--plain")
    status, out, _ = finish(suite)
    assert status == 0 and "conformance: 1 cases: 1 pass, 0 fail" in out, out
    assert finish(guest)[0] == 0

    port = str(free_port())  # advertised on loopback: the suite dials nothing else
    where = ["--port", port, "--advertise", f"127.0.0.1:{port}"]
    host = start(tmp_path / "host", "host", "--bot", "random", "--plain", *where)
    seen: list[str] = []
    line_starting(host, "listening", seen)
    hosted = line_starting(host, "statki://", seen)
    done = run(tmp_path / "suite", "conformance", hosted, "--case", "honest.classic@host")
    assert done.returncode == 0 and "1 pass, 0 fail" in done.stdout, done.stdout + done.stderr
    assert finish(host)[0] == 0
