"""``statki verify LOG...|DIR``: the referee's verdict on game logs.

Exit status: 0 when every log is a valid, honestly played game; 1 when any
shows cheating, tampering, damage or an unfinished game; 2 when a file is
missing or is not a statki log (2 wins over 1, so a script notices it was
not shown everything).  Judging is pure (``statki_net.referee.verify``); this module
finds the files, reads them and spreads them over the machine's cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from statki_net.cli.common import EXIT_BAD_INPUT, EXIT_FOUND, EXIT_OK, Subcommands
from statki_net.protocol.logformat import MAGIC, NotALog
from statki_net.referee.verify import Judgement, Violation, judge_log

MAX_LOG_BYTES = 256 * 1024 * 1024
"""Larger than any game's log can grow (frames are bounded, and so are the moves)."""


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("verify")
    parser.add_argument(
        "paths", nargs="+", metavar="LOG", help="a log file, or a directory to search for logs"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document for tools")
    parser.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="processes to use (default: all cores)"
    )
    parser.set_defaults(run=_verify)


@dataclass(frozen=True)
class Checked:
    """One file's outcome: a judgement, or why it could not be judged."""

    path: str
    judgement: Judgement | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.judgement is None:
            return {"path": self.path, "status": "error", "error": self.error}
        return {"path": self.path, **self.judgement.to_json()}


def _verify(args: argparse.Namespace) -> int:
    named: list[str] = []
    problems: list[Checked] = []
    searched: list[tuple[str, int]] = []
    for given in args.paths:
        path = Path(given)
        if path.is_dir():
            found = list(_logs_under(path))
            searched.append((given, len(found)))
            named += found
        elif path.exists():
            named.append(given)
        else:
            problems.append(Checked(given, error="no such file"))
    results = problems + _judge_all(named, args.jobs)
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=2))
    else:
        _print_people(results, searched)
    return _exit_status(results, searched)


def _logs_under(directory: Path) -> Iterator[str]:
    """Every statki log below ``directory``, by its magic value; other files are passed over."""
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            try:
                with open(path, "rb") as file:
                    start = file.read(len(MAGIC))
            except OSError:
                continue
            if start == MAGIC:
                yield path


def _judge_all(paths: list[str], jobs: int | None) -> list[Checked]:
    workers = min(jobs or os.cpu_count() or 1, len(paths))
    if workers <= 1:
        return [judge_file(path) for path in paths]
    # Many small logs: hand them out in chunks so the pool's messages stay few.
    chunk = max(1, len(paths) // (workers * 8))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(judge_file, paths, chunksize=chunk))


def judge_file(path: str) -> Checked:
    """Read and judge one file (runs in a worker process)."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_LOG_BYTES + 1)
    except OSError as error:
        return Checked(path, error=error.strerror or str(error))
    if len(data) > MAX_LOG_BYTES:
        if not data.startswith(MAGIC):
            return Checked(path, error="not a statki log (no magic value at the start)")
        too_big = f"the file is larger than any statki log ({MAX_LOG_BYTES // 2**20} MiB)"
        return Checked(path, Judgement(violations=[Violation("damaged", too_big)]))
    try:
        return Checked(path, judge_log(data))
    except NotALog as error:
        return Checked(path, error=str(error))


def _print_people(results: list[Checked], searched: list[tuple[str, int]]) -> None:
    for result in results:
        if result.judgement is None:
            print(f"statki: {result.path}: {result.error}", file=sys.stderr)
            continue
        judgement = result.judgement
        print(f"{result.path}: {judgement.headline()}")
        if not judgement.valid:
            for violation in judgement.violations:
                print(f"    {judgement.describe(violation)}")
    for directory, count in searched:
        if count == 0:
            print(f"statki: no statki logs under {directory}", file=sys.stderr)
    judged = [r.judgement for r in results if r.judgement is not None]
    if len(results) > 1 or searched:
        valid = sum(j.valid for j in judged)
        where = f" under {', '.join(d for d, _ in searched)}" if searched else ""
        print(
            f"{len(judged)} log(s) checked{where}: {valid} valid, {len(judged) - valid} invalid"
            + (f", {len(results) - len(judged)} unreadable" if len(judged) < len(results) else "")
        )


def _exit_status(results: list[Checked], searched: list[tuple[str, int]]) -> int:
    if any(r.judgement is None for r in results) or any(n == 0 for _, n in searched):
        return EXIT_BAD_INPUT
    if any(r.judgement is not None and not r.judgement.valid for r in results):
        return EXIT_FOUND
    return EXIT_OK
