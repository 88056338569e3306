import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the same examples every time, so a red run can be rerun and a green
# one means the same; a developer's run explores new examples each time.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def statki(tmp_path: Path) -> Run:
    """Run the real ``statki`` command in a subprocess with its own STATKI_HOME."""

    def run(
        *args: str, stdin: str | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, STATKI_HOME=str(tmp_path / "home"), NO_COLOR="1")
        return subprocess.run(
            [sys.executable, "-m", "statki_net", *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )

    return run
