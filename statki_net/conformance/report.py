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

MARKS = {Outcome.PASS: "pass", Outcome.FAIL: "FAIL", Outcome.INFO: "info"}


def summary(results: Sequence[Result]) -> str:
    counts = Counter(result.outcome for result in results)
    return (
        f"conformance: {len(results)} cases: {counts[Outcome.PASS]} pass,"
        f" {counts[Outcome.FAIL]} fail, {counts[Outcome.INFO]} informational"
    )


def line(result: Result) -> str:
    """One case for people: its mark, id, section, and, unless it passed, why."""
    case = result.case
    text = (
        f"{MARKS[result.outcome]:4}  {case.id}  (SPEC {case.section})  {case.title}"
        f"  [{result.seconds:.1f} s]"
    )
    if result.outcome is not Outcome.PASS:
        text += f"\n      expected: {result.expected}\n      observed: {result.observed}"
        for reason in result.reasons:
            text += f"\n      - {reason}"
    return text


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
