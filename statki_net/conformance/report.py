"""The reports: a line per case and a summary for people, JSON for tools, an HTML page.

The summary line reads "conformance: N cases: N pass, N fail, N informational":
never "N passed, N failed" alone on a line, which CI's log reader would take for
a test run's result.  The HTML page stands alone (its style inline, no script,
nothing fetched), like Autobahn's report: a summary, then a table of every
case.  Pure: values in, text out.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from statki_net.conformance.judging import Outcome, Result
from statki_net.game.words import ENGLISH, Words

MARKS = {Outcome.PASS: "pass", Outcome.FAIL: "FAIL", Outcome.INFO: "info"}
"""Each outcome's mark at the head of its line: a word of the catalog in context ``mark``
(``_marks``)."""


def summary(results: Sequence[Result], words: Words = ENGLISH) -> str:
    """The counts in ``words``' language (the HTML page and tools keep the English)."""
    counts = Counter(result.outcome for result in results)
    return words.gettext(
        "conformance: {cases} cases: {passed} pass, {failed} fail, {info} informational"
    ).format(
        cases=len(results),
        passed=counts[Outcome.PASS],
        failed=counts[Outcome.FAIL],
        info=counts[Outcome.INFO],
    )


def line(result: Result, words: Words = ENGLISH) -> str:
    """One case for people: its mark, id, section, and, unless it passed, why.

    The case's title, what it expects and what it observed quote SPEC.md and the
    implementation: they stay as written, in English; the frame around them is said in
    ``words``' language."""
    case = result.case
    mark = words.pgettext("mark", MARKS[result.outcome])
    text = f"{mark:4}  {case.id}  (SPEC {case.section})  {case.title}  [{result.seconds:.1f} s]"
    if result.outcome is not Outcome.PASS:
        text += "\n      " + words.gettext("expected: {expected}").format(expected=result.expected)
        text += "\n      " + words.gettext("observed: {observed}").format(observed=result.observed)
        for reason in result.reasons:
            text += f"\n      - {reason}"
    return text


def _marks(words: Words) -> tuple[str, ...]:
    """The marks, written out for the catalog's extraction: never called."""
    return (
        words.pgettext("mark", "pass"),
        words.pgettext("mark", "FAIL"),
        words.pgettext("mark", "info"),
    )


def text_report(results: Sequence[Result]) -> str:
    return "\n".join([*(line(r) for r in results), summary(results)]) + "\n"


def as_json(results: Sequence[Result], implementation: str = "") -> dict[str, Any]:
    counts = Counter(result.outcome for result in results)
    return {
        "implementation": implementation,
        "summary": {
            "cases": len(results),
            "pass": counts[Outcome.PASS],
            "fail": counts[Outcome.FAIL],
            "informational": counts[Outcome.INFO],
        },
        "cases": [
            {
                "id": r.case.id,
                "section": r.case.section,
                "title": r.case.title,
                "implementation_role": r.case.implementation.value,
                "rules": r.case.rules,
                "outcome": r.outcome.value,
                "expected": r.expected,
                "observed": r.observed,
                "reasons": list(r.reasons),
                "seconds": round(r.seconds, 3),
                "long": r.case.long,
                "may": r.case.may,
            }
            for r in results
        ],
    }


def json_text(results: Sequence[Result], implementation: str = "") -> str:
    return json.dumps(as_json(results, implementation), indent=2) + "\n"


STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #bbb; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
th { background: #eee; }
td.pass { background: #cfc; } td.fail { background: #fbb; } td.info { background: #ddf; }
code { font-size: 90%; }
"""


def html_page(results: Sequence[Result], implementation: str = "") -> str:
    """A page that stands alone: the summary, then a row per case."""
    e = html.escape
    rows = []
    for r in results:
        reasons = "".join(f"<li>{e(reason)}</li>" for reason in r.reasons)
        rows.append(
            "<tr>"
            f'<td><code id="{e(r.case.id)}">{e(r.case.id)}</code></td>'
            f"<td>{e(r.case.section)}</td>"
            f'<td class="{r.outcome.value}">{e(r.outcome.value)}</td>'
            f"<td>{e(r.case.title)}</td>"
            f"<td>{e(r.expected)}</td>"
            f"<td>{e(r.observed)}{f'<ul>{reasons}</ul>' if reasons else ''}</td>"
            f"<td>{r.seconds:.2f}</td>"
            "</tr>"
        )
    who = f" of {e(implementation)}" if implementation else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>statki conformance report{who}</title><style>{STYLE}</style></head><body>"
        f"<h1>statki conformance report{who}</h1>"
        f'<p id="summary">{e(summary(results))}</p>'
        '<table id="cases"><thead><tr><th>Case</th><th>SPEC</th><th>Outcome</th>'
        "<th>What the suite does</th><th>Expected</th><th>Observed</th><th>Seconds</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></body></html>\n"
    )
