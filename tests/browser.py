"""A page as a real browser shows it: headless Chromium's DOM, for the reports' HTML tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


def rendered(page: Path) -> str:
    """The page's DOM after a real headless Chromium loaded it."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (./test.sh installs it when root)")
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--dump-dom",
                page.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=50,
            env=dict(os.environ, HOME=profile),
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
