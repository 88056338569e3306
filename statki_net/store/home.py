"""Where statki keeps its files: one home directory for the key, the logs and the history.

``--home``, else ``STATKI_HOME``, else ``$XDG_DATA_HOME/statki``
(``~/.local/share/statki``).  Kept apart from the key so that commands which
only need the folder do not load the cryptography.
"""

from __future__ import annotations

import os
from pathlib import Path


def home_dir(explicit: str | None = None) -> Path:
    """statki's home: the argument, ``STATKI_HOME``, or the XDG data directory."""
    if explicit:
        home = Path(explicit)
    elif os.environ.get("STATKI_HOME"):
        home = Path(os.environ["STATKI_HOME"])
    else:
        data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        home = Path(data) / "statki"
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    return home
