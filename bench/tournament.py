"""Benchmark: ``statki tournament`` over a folder of many real logs: time and peak memory.

Run from the checkout (it is long: run it at low priority):

    nice -n 19 python bench/tournament.py [--games N] [--keep DIR] [--html] [--logs N,N...]

It plays N real games (default 5,000: 10,000 logs) between 100 players with
keys of their own, through real sessions back to back with random-shooting
bots on fixed seeds (tests/tournaments.py, as the tests build theirs), and
writes both sides' logs of each, in four equal parts.  Every game is a game of
its own (its own hellos, so its own game id): no log is a copy.  ``--keep
DIR`` keeps the logs there and reuses them on the next run (and the games
already there when a run was stopped half way: they are not played again).
A hundred players make 4,950 pairs: 5,000 games meet 50 of them twice (the
last round's), so the tournament's rules let each pair meet twice
(``--games-per-pair 2``, a double round robin's) and every game is scored:
the figures are of a clean tournament, which exits 0.

Then it runs the command as a referee would, in a fresh process on all cores,
over one part and over all four (or, with ``--logs``, over the first games'
logs up to each count given: links to them in a scratch folder), and prints
for each: the logs, the wall
clock, the CPU time of the process and its workers, the logs per second two
idle cores would judge (from the CPU time: the figure that holds on a
shared machine), and the peak resident memory of the main process and of its
largest worker.  Flat memory means the main process's peak does not
grow with the logs beyond their small per-game summaries.  ``--html`` has the
command write the HTML page (every game's boards) instead of the JSON.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from tournaments import START_MS, entrants, play_game, write_logs  # noqa: E402

PLAYERS = 100
PARTS = 4
RULES = ("--games-per-pair", "2")
"""The tournament's rules: every pair may meet twice (5,000 games meet 50 pairs twice)."""

MEASURE = """
import resource, sys
from statki_net.cli.main import main
status = main(sys.argv[1:])
me = resource.getrusage(resource.RUSAGE_SELF)
workers = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime
# Not ru_maxrss: Linux carries it over exec from the process that spawned us (Python
# spawns with vfork, so that is the bench itself, after its walk of all the logs).
# VmHWM is this program's own peak: exec gives it a memory of its own.
with open("/proc/self/status") as status_file:
    peak = next(int(line.split()[1]) for line in status_file if line.startswith("VmHWM:"))
# The workers' ru_maxrss is their own: the pool forks them and they exec nothing, so each
# peak is its own memory's (with the pages it shares from this process at the fork, as its
# VmHWM counts them), and there is no exec to carry another process's peak over.
print(f"rss {peak} {workers.ru_maxrss} {status} {cpu}", file=sys.stderr)
"""


def play_some(job: tuple[Path, int, int, int]) -> int:
    """Play games ``first`` to ``last`` of ``games`` and write their logs under ``folder``,
    each game's in the part its number falls in (runs in a worker); a game whose logs are
    there already is not played again (game ``n`` is the same game whatever ``games``)."""
    folder, first, last, games = job
    players = entrants([f"P{n:03d}" for n in range(PLAYERS)], seed=7000)
    there = {path.name for path in folder.rglob("*.statki")}
    for n in range(first, last):
        if {f"g{n:05d}-host.statki", f"g{n:05d}-guest.statki"} <= there:
            continue
        # Every pair in turn, round after round, each player hosting as often as not.
        host = players[n % PLAYERS]
        guest = players[(n + 1 + n // PLAYERS) % PLAYERS]
        if guest is host:
            guest = players[(n + 1) % PLAYERS]
        pair = play_game(host, guest, seed=10_000 + n, start=START_MS + n * 1000)
        write_logs(pair, folder / f"part{n * PARTS // games}", f"g{n:05d}")
    return last - first


def generate(folder: Path, games: int, jobs: int) -> None:
    done = sum(1 for _ in folder.rglob("*.statki"))
    if done == 2 * games:
        print(f"reusing {done} logs under {folder}")
        return
    began = time.monotonic()
    step = max(1, games // (jobs * 20))
    chunks = [(folder, n, min(n + step, games), games) for n in range(0, games, step)]
    made = 0
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for count in pool.map(play_some, chunks):
            made += count
            print(f"\rplayed {made}/{games} games", end="", file=sys.stderr, flush=True)
    print(f"\nplayed {games} games in {time.monotonic() - began:.0f} s", file=sys.stderr)


def measure(paths: list[Path], logs: int, shown: str) -> None:
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, "tournament", *map(str, paths), *RULES, shown],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    seconds = time.monotonic() - began
    rss = next(line for line in done.stderr.splitlines() if line.startswith("rss "))
    _, me, workers, status, cpu = rss.split()
    print(
        f"| {logs:>6} | {seconds:>7.1f} | {float(cpu):>7.1f} | {logs / float(cpu) * 2:>6.1f}"
        f" | {int(me) / 1024:>6.1f} | {int(workers) / 1024:>6.1f} | {status} |"
    )


def first_logs(folder: Path, count: int, scratch: Path) -> Path:
    """A folder of links to the logs of the first ``count / 2`` games under ``folder``."""
    chosen = scratch / f"first{count}"
    chosen.mkdir()
    logs = sorted(folder.rglob("*.statki"), key=lambda path: path.name)[:count]
    for log in logs:
        (chosen / log.name).symlink_to(log.resolve())
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5000, help="games to play (2 logs each)")
    parser.add_argument("--keep", metavar="DIR", help="keep the logs here, and reuse them")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--html", action="store_true", help="measure the HTML page, not JSON")
    parser.add_argument("--logs", help="measure over the first N logs, for each N (2000,5000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.keep or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        generate(folder, args.games, args.jobs)
        parts = sorted(p for p in folder.iterdir() if p.is_dir())
        shown = "--html" if args.html else "--json"
        print(f"{os.cpu_count()} cores; statki tournament {shown}, whole process, all cores")
        print("|   logs | wall s | CPU s | logs/s on 2 idle cores | main MiB | worker MiB | exit |")
        print("|---|---|---|---|---|---|---|")
        if args.logs:
            for logs in map(int, args.logs.split(",")):
                measure([first_logs(folder, logs, Path(scratch))], logs, shown)
            return
        for count in (1, PARTS):
            chosen = parts[:count]
            logs = sum(1 for p in chosen for _ in p.glob("*.statki"))
            measure(chosen, logs, shown)


if __name__ == "__main__":
    main()
