"""Port mappings this home asked a router for, kept until they are removed.

A host removes its mapping when it stops; one that crashed (or lost power)
cannot, and the router would forward the port to it until the lease runs out,
or for ever where the router only grants permanent ones.  So each mapping is
written down before it is asked for, one small file each::

    HOME/portmaps/EXTERNALPORT.json     owner-only, like the home itself

and removed once the router has removed the mapping.  The next ``statki host``
(or daemon) reads what is left and asks the router to remove it.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from statki_net.store.home import private_folder

FOLDER = "portmaps"


@dataclass(frozen=True)
class KeptMapping:
    """A TCP mapping asked of the router at ``router`` (its description's address)."""

    router: str
    external_port: int
    internal_host: str
    internal_port: int
    pid: int = 0
    """The process that asked for it: while it runs, the mapping is its and no leftover."""

    @property
    def left_behind(self) -> bool:
        """Whether the process that made it is gone (it crashed, or lost power)."""
        if self.pid <= 0:
            return True
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # another user's process: not ours, so not our mapping's
            return True
        return False


def _folder(home: Path) -> Path:
    return private_folder(home / FOLDER)


def keep(home: Path, mapping: KeptMapping) -> None:
    path = _folder(home) / f"{mapping.external_port}.json"
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump(asdict(mapping), file)
    os.replace(temporary, path)


def forget(home: Path, mapping: KeptMapping) -> None:
    with contextlib.suppress(FileNotFoundError):
        (home / FOLDER / f"{mapping.external_port}.json").unlink()


def kept(home: Path) -> list[KeptMapping]:
    """The mappings written down and not yet removed; a file that does not read is dropped."""
    folder = home / FOLDER
    if not folder.is_dir():
        return []
    found: list[KeptMapping] = []
    for path in sorted(folder.glob("*.json")):
        try:
            value = json.loads(path.read_text())
            found.append(
                KeptMapping(
                    str(value["router"]),
                    int(value["external_port"]),
                    str(value["internal_host"]),
                    int(value["internal_port"]),
                    int(value.get("pid", 0)),
                )
            )
        except (OSError, ValueError, KeyError, TypeError):
            with contextlib.suppress(OSError):
                path.unlink()
    return found
