"""The fuzzing harness, run for a few seconds: mutated real frames crash nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from statki_net import fuzz
from statki_net.protocol import transcript
from statki_net.protocol.wire import Frame, signature_valid


def test_a_short_fuzz_run_crashes_nothing() -> None:
    """The command as a person runs it: in memory for a second, then a live daemon."""
    result = subprocess.run(
        [sys.executable, "-m", "statki_net.fuzz", "--seconds", "1", "--live", "8", "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=50,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    summary = result.stdout.splitlines()[0]
    assert summary.endswith("crashes: 0") and "(seed 7)" in summary
    tried = int(summary.split("frames tried: ")[1].split()[0])
    assert tried > 50, "a second should try more than that, even on a loaded machine"


def test_the_harness_reports_a_crash_with_what_reproduces_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A session that raises on a bad signature (instead of refusing it) is caught."""
    checked = signature_valid

    def raising(key: bytes, frame: Frame) -> bool:
        if not checked(key, frame):
            raise RuntimeError("planted: a bad signature raised")
        return True

    monkeypatch.setattr(transcript, "signature_valid", raising)
    tally = fuzz.run(seed=3, frames=60, seconds=None, live=0)
    assert tally.frames == 60
    assert tally.crashes, "flipped bits break signatures: the planted fault must be found"
    assert all("planted: a bad signature raised" in crash for crash in tally.crashes)
    assert all("game seed" in crash and "trial" in crash for crash in tally.crashes)
