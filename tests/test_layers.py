"""The folder listing is the architecture: each layer imports only the layers below it.

Read from the source with ``ast`` (nothing is imported), so a forbidden import
fails here even inside a function or a branch that no other test reaches.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "statki_net"
CLIENT = PACKAGE.parent / "client"

PURE = ("game", "protocol", "referee", "ai")
ALLOWED: dict[str, set[str]] = {
    "game": {"game"},
    "protocol": {"game", "protocol"},
    "referee": {"game", "protocol", "referee"},
    "ai": {"game", "ai"},
    "store": {*PURE, "store"},
    "net": {*PURE, "store", "net"},
    "vectors": {*PURE, "store", "vectors"},
    "conformance": {*PURE, "store", "net", "vectors", "conformance"},
    "cli": {*PURE, "store", "net", "vectors", "conformance", "cli", "statki_client"},
    "statki_client": {*PURE, "store", "net"},
}
"""The statki layers each subpackage may import; ``statki_net.version`` is open to all."""

SHELL_MODULES = {
    "asyncio",
    "socket",
    "selectors",
    "sqlite3",
    "os",
    "time",
    "datetime",
    "secrets",
    "threading",
    "subprocess",
    "multiprocessing",
    "concurrent",
    "pathlib",
    "shutil",
    "tempfile",
}
"""What the pure layers never import: the network, files, the clock, the OS, threads."""


def modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        layer = parts[0].removesuffix(".py") if len(parts) > 1 else "cli"
        if parts[0] in ("__init__.py", "version.py"):
            continue
        found.append((layer, path))
    return found + [("statki_client", path) for path in sorted(CLIENT.glob("*.py"))]


def imports_of(path: Path) -> list[tuple[str, list[str], int]]:
    """Every import in the file: (module, names imported from it, line)."""
    tree = ast.parse(path.read_text(), str(path))
    found: list[tuple[str, list[str], int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            # Relative imports stay inside their own package (the client's).
            found.append((node.module or "", [a.name for a in node.names], node.lineno))
    return found


def statki_layer(module: str) -> str | None:
    """The layer an imported module belongs to, or None when it is not statki's."""
    if module == "statki_client" or module.startswith("statki_client."):
        return "statki_client"
    parts = module.split(".")
    if parts[0] != "statki_net":
        return None
    if len(parts) == 1:
        return "statki_net"  # the bare package: import what you need from its layer
    return "version" if parts[1] == "version" else parts[1]


@pytest.mark.parametrize(
    ("layer", "path"), modules(), ids=[str(p.relative_to(PACKAGE.parent)) for _, p in modules()]
)
def test_each_module_imports_only_the_layers_below_it(layer: str, path: Path) -> None:
    for module, names, line in imports_of(path):
        where = f"{path.relative_to(PACKAGE.parent)}:{line}"
        imported = statki_layer(module)
        if imported is not None and imported != "version":
            assert imported in ALLOWED[layer], f"{where}: {layer} may not import {module}"
        if layer in PURE:
            top = module.split(".")[0]
            assert top not in SHELL_MODULES, f"{where}: the pure core may not import {module}"
            if top == "random":
                # A seeded generator is passed in (or built from a fixed seed);
                # the module's global generator is never used.
                assert module == "random" and names == ["Random"], (
                    f"{where}: only random.Random, never the global generator"
                )


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom statki_net.net.connection import GameConnection\n")
    found = {(module, line) for module, _, line in imports_of(bad)}
    assert found == {("os", 1), ("statki_net.net.connection", 2)}
    assert statki_layer("statki_net.net.connection") not in ALLOWED["protocol"]
