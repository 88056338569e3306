"""Benchmark: what a person waits for before statki says anything.

    nice -n 19 python bench/startup.py [--rounds N]

Times whole processes in CPU time (user + system, from ``getrusage`` of the
finished child, best of ``--rounds``), so that a shared machine disturbs
them little, and prints each beside its reference, as a ratio in one run.
The children run with their bytecode cached (in a temporary
``PYTHONPYCACHEPREFIX``, after one warm-up run each), as an installed statki
runs, whatever ``PYTHONDONTWRITEBYTECODE`` says here:

- ``statki --help`` beside a bare interpreter (``python -c pass``);
- ``statki verify ONE`` (one honest classic log) beside the verification
  itself (``judge_log`` of the same bytes, in this process) plus that bare
  interpreter's start-up;
- the libraries that verify path imports, alone (``LIBRARIES``: argparse,
  dataclasses, gettext, hashlib, msgpack, cryptography's Ed25519): what any
  verifier written with them pays before its first line of its own, and so
  the least ratio such a verifier could show.
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


def child_cpu(command: list[str], env: dict[str, str]) -> float:
    """The CPU seconds one run of ``command`` took, itself and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT, env=env)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="best of this many (default 10)")
    args = parser.parse_args()
    python = sys.executable
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, seed=4)
    log = log_bytes(pair.host)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "one.statki")
        path.write_bytes(log)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(directory, "pycache"))
        commands = {
            "bare": [python, "-c", "pass"],
            "help": [python, "-m", "statki_net", "--help"],
            "verify": [python, "-m", "statki_net", "verify", str(path)],
            "libraries": [python, "-c", LIBRARIES],
        }
        cpu = {}
        for name, command in commands.items():
            child_cpu(command, env)  # writes the bytecode cache
            cpu[name] = best(args.rounds, lambda command=command: child_cpu(command, env))
        bare, helped, verified, libraries = (
            cpu["bare"],
            cpu["help"],
            cpu["verify"],
            cpu["libraries"],
        )
    judged = best(args.rounds, lambda: in_process_cpu(lambda: judge_log(log)))
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores (nproc), {platform.machine()}")
    print(f"python {platform.python_version()}; CPU time, best of {args.rounds}")
    print(f"  python -c pass                 {bare * 1000:7.1f} ms")
    print(f"  statki --help                  {helped * 1000:7.1f} ms  {helped / bare:5.2f}x bare")
    print(f"  judge_log, one classic log     {judged * 1000:7.1f} ms  (in this process)")
    print(
        f"  statki verify ONE              {verified * 1000:7.1f} ms  "
        f"{verified / (judged + bare):5.2f}x (verification + bare start-up)"
    )
    print(
        f"  the libraries verify imports   {libraries * 1000:7.1f} ms  "
        f"{(libraries + judged) / (judged + bare):5.2f}x with the verification: the least ratio"
    )


if __name__ == "__main__":
    main()
