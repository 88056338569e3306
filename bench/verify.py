"""Benchmark: game logs verified per second, beside the floor of their cryptography.

Run from the checkout:  python bench/verify.py [--logs N]

It plays honest games in memory under every preset (tests/peers.py), then
measures in one run:

- judge: ``statki_net.referee.verify.judge_log`` over every log, in this process,
  as it runs (checking each side's last signature, SPEC.md section 16) and with
  ``every_signature``;
- the floor: every Ed25519 verification of those logs' signatures, computed
  alone with nothing else (what a referee that checks each signature cannot
  do without); and beside it the cryptography of a judging pass that checks
  every signature: those verifications and the SHA-256 / HMAC-SHA-256 hashes
  (recorded by watching one such pass);
- the ratios to the floor's time, in CPU time (``time.process_time``), best
  of ``--rounds``, so that other jobs on the machine disturb them little;
- ``statki verify DIR`` as a real subprocess on all cores, wall clock
  (start-up included), for the figure a referee sees.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey  # noqa: E402
from peers import log_bytes, make_pair, play  # noqa: E402

from statki_net.game.rules import PRESETS  # noqa: E402
from statki_net.protocol import commitment, transcript, wire  # noqa: E402
from statki_net.referee import report  # noqa: E402
from statki_net.referee.verify import judge_log  # noqa: E402

Work = tuple[list[tuple[bytes, bytes, bytes]], list[bytes], list[tuple[bytes, bytes]]]
"""One log's cryptography: (key, signature, signed bytes), SHA-256 inputs, HMAC (key, message)."""


def make_logs(count: int) -> list[bytes]:
    presets = sorted(PRESETS)
    logs = []
    for n in range(count):
        pair = make_pair(PRESETS[presets[n % len(presets)]], seed=1000 + n)
        play(pair, seed=2000 + n)
        logs.append(log_bytes(pair.host))
    return logs


@contextmanager
def watching() -> Iterator[Work]:
    """Record every signature check and hash the judge makes while inside."""
    signatures: list[tuple[bytes, bytes, bytes]] = []
    hashes: list[bytes] = []
    macs: list[tuple[bytes, bytes]] = []

    def sha256(data: bytes = b"") -> Any:
        hashes.append(bytes(data))
        return hashlib.sha256(data)

    def hmac_new(key: bytes, msg: bytes, digestmod: object) -> hmac.HMAC:
        macs.append((key, msg))
        return hmac.new(key, msg, hashlib.sha256)

    def signature_valid(key: bytes, frame: wire.Frame) -> bool:
        signatures.append((key, frame.signature, wire.SIGN_LABEL + frame.body))
        return wire.signature_valid(key, frame)

    fake_hashlib = types.SimpleNamespace(sha256=sha256)
    saved = (wire.hashlib, commitment.hashlib, report.hashlib, commitment.hmac)
    saved_check = transcript.signature_valid
    wire.hashlib = commitment.hashlib = report.hashlib = fake_hashlib  # type: ignore[assignment]
    commitment.hmac = types.SimpleNamespace(new=hmac_new)  # type: ignore[assignment]
    transcript.signature_valid = signature_valid  # type: ignore[assignment]
    try:
        yield signatures, hashes, macs
    finally:
        wire.hashlib, commitment.hashlib, report.hashlib, commitment.hmac = saved
        transcript.signature_valid = saved_check  # type: ignore[assignment]


def signatures_alone(work: list[Work]) -> None:
    from_bytes = Ed25519PublicKey.from_public_bytes
    for signatures, _, _ in work:
        for key, signature, signed in signatures:
            from_bytes(key).verify(signature, signed)


def cryptography_alone(work: list[Work]) -> None:
    sha256, new = hashlib.sha256, hmac.new
    signatures_alone(work)
    for _, hashes, macs in work:
        for data in hashes:
            sha256(data).digest()
        for mac_key, message in macs:
            new(mac_key, message, sha256).digest()


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def best_of(rounds: int, run: Callable[[], object], clock: Callable[[], float]) -> float:
    times = []
    for _ in range(rounds):
        start = clock()
        run()
        times.append(clock() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=48, help="logs to verify (default 48)")
    parser.add_argument("--rounds", type=int, default=5, help="best of this many (default 5)")
    parser.add_argument(
        "--cli-logs",
        type=int,
        default=None,
        metavar="N",
        help="logs for the statki verify DIR figure (default: the same as --logs)",
    )
    args = parser.parse_args()

    logs = make_logs(args.logs)
    work = []
    for log in logs:
        with watching() as seen:
            assert judge_log(log, every_signature=True).valid
        work.append(seen)
    frames = sum(len(s) for s, _, _ in work)
    hashes = sum(len(h) + 2 * len(m) for _, h, m in work)

    cpu = time.process_time
    judge_time = best_of(args.rounds, lambda: [judge_log(log) for log in logs], cpu)
    every_time = best_of(
        args.rounds, lambda: [judge_log(log, every_signature=True) for log in logs], cpu
    )
    floor_time = best_of(args.rounds, lambda: signatures_alone(work), cpu)
    crypto_time = best_of(args.rounds, lambda: cryptography_alone(work), cpu)

    cli_logs = logs if args.cli_logs is None else make_logs(args.cli_logs)
    with tempfile.TemporaryDirectory() as directory:
        for n, log in enumerate(cli_logs):
            Path(directory, f"{n}.statki").write_bytes(log)
        command = [sys.executable, "-m", "statki_net", "verify", directory]

        def cli() -> None:
            subprocess.run(command, check=True, capture_output=True, cwd=ROOT)

        def cli_cpu() -> float:
            """The CPU time of the process and its workers, as the kernel counts it."""
            children = resource.RUSAGE_CHILDREN
            before = resource.getrusage(children)
            cli()
            after = resource.getrusage(children)
            return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

        cli_time = best_of(max(1, args.rounds // 2), cli, time.perf_counter)
        cli_cpu_time = min(cli_cpu() for _ in range(max(1, args.rounds // 2)))

    size = sum(map(len, logs))
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores, {platform.machine()}")
    print(f"python {platform.python_version()}, {platform.system()} {platform.release()}")
    print(
        f"logs: {len(logs)} honest games over {len(PRESETS)} presets, "
        f"{frames} signed messages, {size / 2**20:.1f} MiB"
    )
    print(
        f"cryptography per log: {frames / len(logs):.0f} Ed25519 verifications, "
        f"{hashes / len(logs):.0f} SHA-256 hashes (an HMAC counted as 2)"
    )
    print("one core, CPU time; x = the time of the floor (every signature verified alone)")
    rows = [
        ("judge_log (each side's last signature)", judge_time),
        ("judge_log, every_signature", every_time),
        ("floor: every signature verified alone", floor_time),
        ("every signature and every hash alone", crypto_time),
    ]
    for what, seconds in rows:
        print(f"  {what:40} {len(logs) / seconds:8.1f} logs/s  {seconds / floor_time:5.2f}x")
    count = len(cli_logs)
    print(f"statki verify DIR of {count} logs, all cores, start-up and workers included:")
    print(f"  wall clock: {count / cli_time:8.1f} logs/s")
    per_cpu_second = count / cli_cpu_time
    cores = os.cpu_count() or 1
    print(
        f"  CPU time:   {cli_cpu_time:8.2f} s, {per_cpu_second:.1f} logs per CPU-second; "
        f"10,000 logs on {cores} cores: {10_000 / per_cpu_second / cores:.0f} s"
    )


if __name__ == "__main__":
    main()
