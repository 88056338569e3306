"""The conformance suite: statki plays a stranger's peer over TCP and checks it against SPEC.md.

Like Autobahn|Testsuite for WebSocket or h2spec for HTTP/2, it is a table of
cases, each tied to the SPEC section it checks, with what the suite sends and
what the implementation under test must then do; and a report per case.
The modules, from the pure core outwards:

- ``cases``: the table (frozen ``Case`` values: id, SPEC section, the role
  the implementation plays, what the suite does, what is expected).  Pure.
- ``acts``: the bytes and behaviours a case sends (malformed frames, messages
  out of place, lies, forged claims), built with the wire module.  Pure.
- ``judging``: an ``Observation`` (what the implementation sent, whether it
  closed, the verdict it signed, its log as our referee judges it) against a
  case's ``Expectation``: pass, fail, or information for what a MAY leaves
  open.  Pure.
- ``report``: the text, JSON and HTML reports.  Pure.
- ``runner``: plays one case over one TCP connection (asyncio).
- ``driver``: the implementation under test: a command started once per
  case (protocol/CONFORMANCE.md, "The driver contract"), or a person.

The pure modules import no sockets, files, clock or OS
(tests/conformance/test_cases.py checks it); the runner and the driver are
the thin shells around them.
"""
