"""The implementation under test, case by case: a driver command, or a person, or a peer that
is already there; and the run of a whole suite against it.

The driver contract (protocol/CONFORMANCE.md): for every case the suite
starts ``COMMAND host`` (the implementation hosts: it prints its invite on a
line of its standard output, then plays) or ``COMMAND join INVITE`` (it joins
the suite's invite), with the environment variables of ``DriverCommand.env``.
When the case is over the suite waits a moment for the process to end by
itself (the game is over for it), then ends it (SIGTERM, then SIGKILL), and
judges with our referee every log file the implementation left in
``STATKI_CONFORMANCE_LOG_DIR``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import secrets
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.conformance.cases import Case, Kind
from statki_net.conformance.judging import LogSeen, Observation, Result, judge
from statki_net.conformance.runner import CaseRun, Connect, Streams, suite_session
from statki_net.game.errors import UsageError
from statki_net.game.words import N_, phrase
from statki_net.net.invite import Address, Invite, format_invite, parse_invite
from statki_net.protocol.logformat import NotALog, is_log, read_log
from statki_net.protocol.phases import Phase
from statki_net.protocol.session import public_key_bytes
from statki_net.protocol.wire import INVITE_SECRET_SIZE, Role
from statki_net.referee.verify import NamedLog, judge_logs
from statki_net.store.failures import failed
from statki_net.store.language import _

INVITE_SECONDS = 30.0
"""How long an implementation that hosts may take to print its invite."""
CONNECT_SECONDS = 30.0
"""How long an implementation that joins may take to connect to the suite."""
EXIT_SECONDS = 10.0
"""How long a driver's process may take to end by itself once its game is over."""
INVITE = re.compile(r"statki://\S+")


class Implementation(Protocol):
    """Where the implementation under test is, for one case at a time."""

    async def start(self, case: Case, invite: str | None) -> str | None:
        """Get the implementation going for ``case``: to join ``invite`` (it is the guest),
        or to host (``invite`` is None): then return its invite."""

    async def stop(self, case: Case, over: bool) -> list[bytes]:
        """The case is over (``over``: for the implementation too); its logs of the case."""


class DriverCommand:
    """``COMMAND host`` / ``COMMAND join INVITE``, a fresh process for every case."""

    def __init__(self, command: str, work: Path) -> None:
        self.command = shlex.split(command)
        if not self.command:
            raise UsageError("--driver needs a command")
        self.work = work
        self.process: asyncio.subprocess.Process | None = None
        self.log_dir: Path | None = None
        self.output: list[str] = []

    def env(self, case: Case, log_dir: Path) -> dict[str, str]:
        return dict(
            os.environ,
            STATKI_CONFORMANCE_CASE=case.id,
            STATKI_CONFORMANCE_RULES=case.rules,
            STATKI_CONFORMANCE_MOVE_MS="60000",
            STATKI_CONFORMANCE_LOG_DIR=str(log_dir),
        )

    async def start(self, case: Case, invite: str | None) -> str | None:
        self.log_dir = Path(tempfile.mkdtemp(prefix="case-", dir=self.work))
        args = [*self.command, "host"] if invite is None else [*self.command, "join", invite]
        try:
            self.process = await asyncio.create_subprocess_exec(
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                env=self.env(case, self.log_dir),
                start_new_session=True,
            )
        except OSError as error:
            raise UsageError(failed(N_("starting the driver"), error)) from None
        if invite is not None:
            return None
        return await self._invite()

    async def _invite(self) -> str:
        assert self.process is not None and self.process.stdout is not None
        try:
            async with asyncio.timeout(INVITE_SECONDS):
                while line := await self.process.stdout.readline():
                    found = INVITE.search(line.decode(errors="replace"))
                    if found:
                        return found.group(0)
        except TimeoutError:
            raise UsageError(f"the driver printed no invite in {INVITE_SECONDS:g} s") from None
        raise UsageError("the driver ended without printing an invite")

    async def stop(self, case: Case, over: bool) -> list[bytes]:
        process = self.process
        self.process = None
        if process is not None:
            await _end(process, EXIT_SECONDS if over else 0.5)
        logs = []
        if self.log_dir is not None:
            files = [p for p in self.log_dir.rglob("*") if p.is_file() and not p.is_symlink()]
            for path in sorted(files, key=lambda p: p.stat().st_mtime):
                with path.open("rb") as file:
                    if is_log(file.read(64)):
                        logs.append(path.read_bytes())
        return logs


async def _end(process: asyncio.subprocess.Process, grace: float) -> None:
    """Let the process end by itself within ``grace`` seconds; else end it, and its group."""
    # Read on, so a process that still writes is never stuck on a full pipe.
    drain = asyncio.ensure_future(process.stdout.read()) if process.stdout else None
    try:
        async with asyncio.timeout(grace):
            await process.wait()
    except TimeoutError:
        for signal in (15, 9):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal)
            try:
                async with asyncio.timeout(5):
                    await process.wait()
                break
            except TimeoutError:
                continue
    if drain is not None:
        drain.cancel()


class Person:
    """No driver: someone (or something) joins each invite the suite prints, or hosts at the
    invite the suite was given, once per case."""

    def __init__(self, invite: Invite | None, say: Callable[[str], None]) -> None:
        self.invite = invite
        self.say = say

    async def start(self, case: Case, invite: str | None) -> str | None:
        if invite is not None:
            self.say(
                _("{case}: join this invite now: {invite}").format(case=case.id, invite=invite)
            )
            return None
        if self.invite is None:
            raise UsageError(
                phrase(N_("give the implementation's invite (or --connect and --key)"))
            )
        self.say(
            _("{case}: host a game at the invite given (rules {rules})").format(
                case=case.id, rules=case.rules
            )
        )
        if self.invite.key is None:
            raise UsageError(
                phrase(N_("the suite needs the implementation's key: --key, or an invite"))
            )
        return format_invite(self.invite.addresses, self.invite.key, self.invite.secret)

    async def stop(self, case: Case, over: bool) -> list[bytes]:
        return []


class Listener:
    """The suite's port, for the cases in which it hosts: connections queue up."""

    def __init__(self) -> None:
        self.arrived: asyncio.Queue[Streams] = asyncio.Queue()
        self.server: asyncio.Server | None = None
        self.address: Address = ("127.0.0.1", 0)

    async def open(self, host: str, port: int) -> None:
        async def arrive(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await self.arrived.put((reader, writer))

        self.server = await asyncio.start_server(arrive, host, port)
        bound = self.server.sockets[0].getsockname()
        self.address = (host, int(bound[1]))

    def forget(self) -> None:
        """Connections left from an earlier case are closed, unread."""
        while not self.arrived.empty():
            self.arrived.get_nowait()[1].close()

    async def next(self) -> Streams:
        try:
            async with asyncio.timeout(CONNECT_SECONDS):
                return await self.arrived.get()
        except TimeoutError:
            raise UsageError(
                f"the implementation did not connect in {CONNECT_SECONDS:g} s"
            ) from None

    def close(self) -> None:
        self.forget()
        if self.server is not None:
            self.server.close()


def dialling(addresses: tuple[Address, ...]) -> Connect:
    """A connection to the implementation's invite, tried until it answers (it may still be
    opening its port when it prints its invite, or listening again for a resume)."""

    async def connect() -> Streams:
        give_up = time.monotonic() + CONNECT_SECONDS
        failures = ""
        while time.monotonic() < give_up:
            for host, port in addresses:
                try:
                    async with asyncio.timeout(5):
                        return await asyncio.open_connection(host, port)
                except (OSError, TimeoutError) as error:
                    failures = str(error)
            await asyncio.sleep(0.1)
        raise UsageError(f"cannot connect to the implementation: {failures}")

    return connect


def _log_seen(logs: list[bytes]) -> LogSeen | None:
    named = []
    for index, data in enumerate(logs):
        try:
            named.append(NamedLog(f"log {index + 1}", read_log(data)))
        except NotALog:
            continue
    judgements = [j for j in judge_logs(named) if j.game is not None]
    if not judgements:
        return None
    last = judgements[-1]
    return LogSeen(last.ending, last.standing, str(last.reason))


def _over_for_it(case: Case) -> bool:
    """Whether the implementation's game is over when the suite is done with the case (so
    its process should end by itself): not after a frame that was nobody's word, nor for
    a host that turned a guest's hello away (it waits on for its guest, SPEC.md section 3,
    "Admission")."""
    turned_away = case.at is not None and case.at.phase is Phase.GUEST_HELLO
    return case.expect.kind is not Kind.IGNORES and not turned_away


async def run_case(
    case: Case, implementation: Implementation, listener: Listener, rng: random.Random
) -> Result:
    key = Ed25519PrivateKey.from_private_bytes(secrets.token_bytes(32))
    started = time.monotonic()
    observation: Observation
    try:
        if case.suite is Role.HOST:
            secret = secrets.token_bytes(INVITE_SECRET_SIZE)
            invite = format_invite([listener.address], public_key_bytes(key), secret)
            session, moment = suite_session(case, rng, key)
            listener.forget()
            await implementation.start(case, invite)
            run = CaseRun(case, session, moment, listener.next, rng, invite_secret=secret)
        else:
            text = await implementation.start(case, None)
            assert text is not None
            theirs = parse_invite(text)
            session, moment = suite_session(
                case, rng, key, host_key=theirs.key, invite_secret=theirs.secret
            )
            run = CaseRun(case, session, moment, dialling(theirs.addresses), rng)
        observation = await run.run()
    except UsageError as error:
        observation = Observation(problem=str(error))
    logs = await implementation.stop(case, _over_for_it(case))
    observation = replace(observation, log=_log_seen(logs), seconds=time.monotonic() - started)
    return judge(case, observation)


async def run_suite(
    cases: list[Case],
    implementation: Implementation,
    *,
    listen: Address = ("127.0.0.1", 0),
    on_result: Callable[[Result], None] = lambda result: None,
    seed: int | None = None,
) -> list[Result]:
    """Every case in turn against the implementation; each result as soon as it is known."""
    rng = random.Random(seed)
    listener = Listener()
    await listener.open(*listen)
    results = []
    try:
        for case in cases:
            result = await run_case(case, implementation, listener, rng)
            on_result(result)
            results.append(result)
    finally:
        listener.close()
    return results


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
