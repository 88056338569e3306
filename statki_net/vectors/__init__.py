"""Test vectors for other implementations: every file of protocol/ except its README.

``python -m statki_net.vectors protocol/`` writes them; tests/test_vectors.py
generates them again in memory and compares byte for byte, so they cannot
drift from the code.  Nothing here reads a clock or the OS's randomness: the
keys, secrets, coins and nonces come from fixed seeds through a SHA-256
counter (``Drbg``), fleets from seeded ``random.Random``, and time is a
counter that starts at ``START``.

The modules: ``seeds`` (test keys, ``Drbg``, the clock), ``encoding`` (JSON
output), ``games`` (the scripted games of logs/, honest, cheating and
tampered), ``frames`` (frames.json) and ``crypto`` (signing, commitment,
coin and admission vectors).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from statki_net.vectors.crypto import admission_file, coin_file, commitment_file, signing_file
from statki_net.vectors.encoding import as_json
from statki_net.vectors.frames import frames_file
from statki_net.vectors.games import log_files, scenarios
from statki_net.vectors.seeds import Drbg, test_key, test_seed

README = "README.md"
CONFORMANCE = "CONFORMANCE.md"
HAND_WRITTEN = frozenset({README, CONFORMANCE})
"""The files of protocol/ written by hand, not by this module: its README, and the
conformance suite's driver contract (``statki_net.conformance``)."""


def generate() -> dict[str, bytes]:
    """Every generated file of protocol/, by path relative to it."""
    all_scenarios = list(scenarios())
    by_name = {s.name: s for s in all_scenarios}
    files = {
        "signing.json": signing_file(by_name),
        "commitment.json": commitment_file(),
        "coin.json": coin_file(),
        "frames.json": frames_file(by_name),
        "admission.json": admission_file(by_name),
    }
    files.update(log_files(all_scenarios))
    return files


def write(directory: Path) -> list[str]:
    """Write the vectors into ``directory``, removing stale generated files; the paths written."""
    files = generate()
    for stale in sorted(directory.glob("**/*")):
        relative = stale.relative_to(directory).as_posix()
        if stale.is_file() and relative not in HAND_WRITTEN and relative not in files:
            stale.unlink()
    for relative, data in files.items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return sorted(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m statki_net.vectors", description="Write protocol/'s test vectors."
    )
    parser.add_argument("directory", type=Path, help="where to write them, usually protocol/")
    args = parser.parse_args(argv)
    written = write(args.directory)
    print(f"wrote {len(written)} files to {args.directory}")
    return 0


__all__ = ["Drbg", "as_json", "generate", "test_key", "test_seed", "write"]
