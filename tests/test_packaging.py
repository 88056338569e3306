"""The package list in pyproject.toml names every package, so a real install has them all."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_every_package_is_listed_for_installation() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "statki_net").rglob("__init__.py")
    }
    assert found <= listed, f"not installed by a non-editable install: {sorted(found - listed)}"
    assert setuptools["package-dir"]["statki_client"] == "client"
    assert "statki_client" in listed
