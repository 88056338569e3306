"""Benchmark: what a person waits for before statki says anything.

    nice -n 19 python bench/startup.py [--rounds N]

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


def timed_processes(
    rounds: int, log_path: Path, checkouts: dict[str, Path], directory: str
) -> dict[str, dict[str, float]]:
    """Each checkout's best CPU time for each process, the checkouts alternating round by round."""
    python = sys.executable
    commands = {
        "bare": [python, "-c", "pass"],
        "help": [python, "-m", "statki_net", "--help"],
        "verify": [python, "-m", "statki_net", "verify", str(log_path)],
        "libraries": [python, "-c", LIBRARIES],
    }
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    envs = {
        label: base
        | {
            "PYTHONPATH": os.pathsep.join([str(root), base.get("PYTHONPATH", "")]),
            "PYTHONPYCACHEPREFIX": str(Path(directory, f"pycache-{label}")),
        }
        for label, root in checkouts.items()
    }
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


def report(label: str, cpu: dict[str, float], judged: float) -> None:
    bare, helped, verified, libraries = (cpu[k] for k in ("bare", "help", "verify", "libraries"))
    print(f"{label}:")
    print(f"  python -c pass                 {bare * 1000:7.1f} ms")
    print(f"  statki --help                  {helped * 1000:7.1f} ms  {helped / bare:5.2f}x bare")
    print(f"  the libraries verify imports   {libraries * 1000:7.1f} ms  (a whole process)")
    print(f"  judge_log, one classic log     {judged * 1000:7.1f} ms  (in this process)")
    print(
        f"  statki verify ONE              {verified * 1000:7.1f} ms  "
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
        cpu = timed_processes(args.rounds, path, checkouts, directory)
    judged = best(args.rounds, lambda: in_process_cpu(lambda: judge_log(log)))
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores (nproc), {platform.machine()}")
    print(f"python {platform.python_version()}; CPU time, best of {args.rounds}")
    for label, times in cpu.items():
        report(label, times, judged)


if __name__ == "__main__":
    main()
