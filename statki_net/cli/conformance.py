"""``statki conformance``: the conformance suite against another implementation's peer.

It plays every case of ``statki_net.conformance.cases`` over TCP against
the implementation under test, in both roles: it hosts and prints an invite
for the implementation to join, and it joins the implementation's invite
(given on the command line, or as ``--connect ADDR --key KEY``).  With
``--driver COMMAND`` it starts the implementation itself, once per case
(protocol/CONFORMANCE.md, "The driver contract"), so a whole run needs no
one.  It prints a line per case and a summary; ``--json`` prints a JSON
document instead, ``--html FILE`` writes an HTML report as well.

Exit status: 0 when no case failed (informational ones included), 1 when any
failed, 2 when the arguments or a file are wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from statki_net.cli.common import EXIT_FOUND, EXIT_OK, Metavar, Subcommands
from statki_net.conformance.cases import all_cases, chosen
from statki_net.conformance.driver import DriverCommand, Implementation, Person, note, run_suite
from statki_net.conformance.judging import Outcome, Result
from statki_net.conformance.report import html_page, json_text, line, summary
from statki_net.game.errors import UsageError
from statki_net.net.invite import Invite, parse_address, parse_invite
from statki_net.protocol.wire import Role
from statki_net.store.language import _, words
from statki_net.store.userfile import write_user_file


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("conformance")
    parser.add_argument(
        "invite",
        nargs="?",
        metavar=_(Metavar.INVITE),
        help=_("the implementation's invite, for the cases in which it hosts"),
    )
    parser.add_argument("--connect", metavar="HOST:PORT", help=_("where the implementation hosts"))
    parser.add_argument("--key", metavar="HEX", help=_("the implementation's key (with --connect)"))
    parser.add_argument(
        "--driver",
        metavar=_(Metavar.COMMAND),
        help=_("started once per case as 'COMMAND host' or 'COMMAND join INVITE'"),
    )
    parser.add_argument(
        "--role",
        choices=("host", "guest", "both"),
        help=_(
            "the role the implementation plays (default: both with --driver; else host"
            " when an invite is given, guest otherwise)"
        ),
    )
    parser.add_argument(
        "--case",
        action="append",
        default=[],
        metavar=_(Metavar.PREFIX),
        help=_("only the cases whose id starts so (repeatable)"),
    )
    parser.add_argument("--quick", action="store_true", help=_("skip the cases that wait a minute"))
    parser.add_argument(
        "--listen",
        default="127.0.0.1:0",
        metavar="HOST:PORT",
        help=_("where the suite listens when it hosts (default 127.0.0.1, any port)"),
    )
    parser.add_argument("--list", action="store_true", help=_("list the cases; play none"))
    parser.add_argument("--json", action="store_true", help=_("print one JSON document for tools"))
    parser.add_argument(
        "--html", metavar=_(Metavar.FILE), help=_("also write the report as an HTML page")
    )
    parser.set_defaults(run=_conformance)


def _their_invite(args: argparse.Namespace) -> Invite | None:
    if args.invite and args.connect:
        raise UsageError(_("give an invite or --connect, not both"))
    if args.invite:
        return parse_invite(args.invite)
    if args.connect:
        if not args.key:
            raise UsageError(_("--connect needs --key, the implementation's public key"))
        address = parse_address(args.connect)
        return parse_invite(f"statki://{address[0]}:{address[1]}/{args.key}")
    if args.key:
        raise UsageError(_("--key goes with --connect"))
    return None


def _roles(args: argparse.Namespace, theirs: Invite | None) -> Role | None:
    """The implementation's role in the cases to play; None for both."""
    role = args.role or ("both" if args.driver else "host" if theirs else "guest")
    if role == "both":
        if not args.driver and not args.list:
            raise UsageError(_("both roles need --driver (or run once per --role)"))
        return None
    if role == "host" and not (args.driver or theirs or args.list):
        raise UsageError(_("for the cases in which it hosts, give the implementation's invite"))
    return Role(role)


def _conformance(args: argparse.Namespace) -> int:
    theirs = _their_invite(args)
    role = _roles(args, theirs)
    listen = parse_address(args.listen, listening=True)
    cases = chosen(all_cases(), quick=args.quick, only=args.case, role=role)
    if args.list:
        for case in cases:
            long = "  " + _("(long)") if case.long else ""
            print(f"{case.id}  (SPEC {case.section})  {case.title}{long}")
        print(_("conformance: {cases} cases listed").format(cases=len(cases)))
        return EXIT_OK
    if args.html:  # a file that cannot be written is said before a run, not after it
        write_user_file(args.html, b"")
    with tempfile.TemporaryDirectory(prefix="statki-conformance-") as work:
        implementation: Implementation = (
            DriverCommand(args.driver, Path(work)) if args.driver else Person(theirs, note)
        )

        def shown(result: Result) -> None:
            if not args.json:
                print(line(result, words()), flush=True)

        results = asyncio.run(run_suite(cases, implementation, listen=listen, on_result=shown))
    who = args.driver or args.invite or args.connect or ""
    if args.json:
        sys.stdout.write(json_text(results, who))
    else:
        print(summary(results, words()))
    if args.html:
        write_user_file(args.html, html_page(results, who).encode())
    failed = any(result.outcome is Outcome.FAIL for result in results)
    return EXIT_FOUND if failed else EXIT_OK
