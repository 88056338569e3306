"""Benchmark: what a person waits for before statki says anything.

    nice -n 19 python bench/startup.py [--rounds N] [--against DIR] [--instructions]

Times whole processes in CPU time (user + system, from ``getrusage`` of the
finished child, best of ``--rounds``), so that a shared machine disturbs
them little, and prints each beside its reference, as a ratio in one run.
The children run with their bytecode cached (in a temporary
``PYTHONPYCACHEPREFIX``, after one warm-up run each), as an installed statki
runs, whatever ``PYTHONDONTWRITEBYTECODE`` says here:

- ``statki --help`` beside a bare interpreter (``python -c pass``);
- the libraries that verify path imports, alone (``LIBRARIES``: argparse,
  dataclasses, gettext, hashlib, msgpack, cryptography's Ed25519), a whole
  process: what any verifier written with them pays before its first line of
  its own;
- ``statki verify ONE`` (one honest classic log) beside issue 16's floor, "the
  cost of the verification itself plus that start-up": the bare interpreter
  plus ``judge_log`` of the same bytes in this process (the 1.5x asked is
  against this one); and, for information, beside the libraries' process plus
  that ``judge_log`` (what a verifier written with those libraries could not
  go below).

The bare interpreter is the same venv's, so it pays what ``site`` loads
there (an editable install's finder, with ``pathlib`` and ``re``) as the
other processes do: that cost is in every row and in no ratio's excess.

``--instructions`` counts instead the user-space instructions each process
executes, once, under valgrind's cachegrind (no cache simulation): a count
the machine's load does not move, for comparing a change on a busy machine
(``judge_log``'s is a child judging the log twice less one judging it once:
the second, warm judgement, as the CPU time's best of N is).  Its ratios
are higher than CPU time's: the kernel's share of start-up (exec, mapping
the libraries, page faults) is in the CPU time and in no count.

``--rounds`` takes the best of N (the machine is shared: best of N is what
a quiet moment costs).  ``--against DIR`` also times the same processes with
``DIR`` (another checkout, say ``git archive HEAD | tar -x -C DIR``)
first on ``PYTHONPATH``, alternating with this checkout round by round, so
that a before/after comparison sees the same load (``judge_log`` in process
is this checkout's for both: the comparison is of start-up).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from peers import log_bytes, make_pair, play  # noqa: E402

from statki_net.game.rules import PRESETS  # noqa: E402
from statki_net.referee.verify import judge_log  # noqa: E402

LIBRARIES = (
    "import argparse, dataclasses, gettext, hashlib, msgpack\n"
    "from cryptography.hazmat.primitives.asymmetric import ed25519\n"
    "argparse.ArgumentParser().add_argument('x')  # its formatter loads shutil\n"
)
"""What ``statki verify`` needs of the standard library and its two dependencies."""


def child_cpu(command: list[str], env: dict[str, str], cwd: Path) -> float:
    """The CPU seconds one run of ``command`` took, itself and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, capture_output=True, cwd=cwd, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(rounds: int, measure: Callable[[], float]) -> float:
    return min(measure() for _ in range(rounds))


def in_process_cpu(run: Callable[[], object]) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


JUDGING = (
    "import sys\n"
    "from statki_net.referee.verify import judge_log\n"
    "data = open(sys.argv[1], 'rb').read()\n"
    "for _ in range(int(sys.argv[2])):\n"
    "    judge_log(data)\n"
)
"""A child that judges the log named N times: two less one is a warm judgement's count."""


VALGRIND = ("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null")


def instructions(command: list[str], env: dict[str, str], cwd: Path) -> float:
    """The user-space instructions one run of ``command`` executes, counted by valgrind."""
    counted = subprocess.run(
        [*VALGRIND, *command],
        check=True,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", counted.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no instruction count:\n{counted.stderr}")
    return float(found[1].replace(",", ""))


def process_commands(log_path: Path) -> dict[str, list[str]]:
    python = sys.executable
    return {
        "bare": [python, "-c", "pass"],
        "help": [python, "-m", "statki_net", "--help"],
        "verify": [python, "-m", "statki_net", "verify", str(log_path)],
        "libraries": [python, "-c", LIBRARIES],
    }


def checkout_envs(checkouts: dict[str, Path], directory: str) -> dict[str, dict[str, str]]:
    """Each checkout's environment: it first on the path, its own bytecode cache."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {
        label: base
        | {
            "PYTHONPATH": os.pathsep.join([str(root), base.get("PYTHONPATH", "")]),
            "PYTHONPYCACHEPREFIX": str(Path(directory, f"pycache-{label}")),
        }
        for label, root in checkouts.items()
    }


def counted_processes(
    log_path: Path, checkouts: dict[str, Path], directory: str
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """Each checkout's instruction count for each process, and for a warm ``judge_log``."""
    commands = process_commands(log_path)
    envs = checkout_envs(checkouts, directory)
    counts: dict[str, dict[str, float]] = {}
    judged: dict[str, float] = {}
    for label, env in envs.items():
        cwd = checkouts[label]
        for command in commands.values():
            subprocess.run(command, check=True, capture_output=True, cwd=cwd, env=env)
        counts[label] = {name: instructions(c, env, cwd) for name, c in commands.items()}
        once, twice = (
            instructions([sys.executable, "-c", JUDGING, str(log_path), str(n)], env, cwd)
            for n in (1, 2)
        )
        judged[label] = twice - once
    return counts, judged


def timed_processes(
    rounds: int, log_path: Path, checkouts: dict[str, Path], directory: str
) -> dict[str, dict[str, float]]:
    """Each checkout's best CPU time for each process, the checkouts alternating round by round."""
    commands = process_commands(log_path)
    envs = checkout_envs(checkouts, directory)
    cpu = {label: dict.fromkeys(commands, float("inf")) for label in checkouts}
    # ``-m`` puts the working directory first on sys.path: each checkout runs from its own.
    for label, env in envs.items():
        for command in commands.values():
            child_cpu(command, env, checkouts[label])  # writes the bytecode cache
    for _ in range(rounds):
        for name, command in commands.items():
            for label, env in envs.items():
                took = child_cpu(command, env, checkouts[label])
                cpu[label][name] = min(cpu[label][name], took)
    return cpu


def report(label: str, cost: dict[str, float], judged: float, unit: str = "ms") -> None:
    """Each process's cost beside its floor; ``unit`` ms (CPU seconds given) or M instructions."""
    scale = 1000 if unit == "ms" else 1e-6
    bare, helped, verified, libraries = (cost[k] for k in ("bare", "help", "verify", "libraries"))

    def amount(value: float) -> str:
        return f"{value * scale:7.1f} {unit}"

    print(f"{label}:")
    print(f"  python -c pass                 {amount(bare)}")
    print(f"  statki --help                  {amount(helped)}  {helped / bare:5.2f}x bare")
    print(f"  the libraries verify imports   {amount(libraries)}  (a whole process)")
    print(f"  judge_log, one classic log     {amount(judged)}  (in process, warm)")
    print(
        f"  statki verify ONE              {amount(verified)}  "
        f"{verified / (bare + judged):5.2f}x (bare start-up + verification: issue 16's floor)"
    )
    with_libraries = verified / (libraries + judged)
    print(f"  {'':41} {with_libraries:5.2f}x (the libraries + verification: information)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="best of this many (default 10)")
    parser.add_argument(
        "--against", type=Path, help="another checkout, timed alternately with this one"
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count instructions under valgrind (once each) instead of timing",
    )
    args = parser.parse_args()
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, seed=4)
    log = log_bytes(pair.host)
    checkouts = {"this checkout": ROOT}
    if args.against is not None:
        checkouts[f"against {args.against}"] = args.against.resolve()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "one.statki")
        path.write_bytes(log)
        if args.instructions:
            counts, judged_counts = counted_processes(path, checkouts, directory)
        else:
            cpu = timed_processes(args.rounds, path, checkouts, directory)
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores (nproc), {platform.machine()}")
    if args.instructions:
        print(f"python {platform.python_version()}; user-space instructions (valgrind), once")
        for label, counted in counts.items():
            report(label, counted, judged_counts[label], unit="M")
        return
    judged = best(args.rounds, lambda: in_process_cpu(lambda: judge_log(log)))
    print(f"python {platform.python_version()}; CPU time, best of {args.rounds}")
    for label, times in cpu.items():
        report(label, times, judged)


if __name__ == "__main__":
    main()
