"""Write the kept reference: the shots ``density`` needs for random fleets, per preset.

Run from the checkout:  python bench/reference_fleets.py [--fleets N] [--jobs N]

Plays ``--fleets`` games under each preset, fleet ``i`` of preset ``name``
drawn and fired at from the generator ``analysis.reference_game`` seeds with
both, on all cores, and writes ``statki_net/ai/reference_fleets.py``: the
random fleets an analysis ranks a player's fleet against
(``analysis.kept_reference``).  Run it again when ``density``'s play changes:
tests/ai/test_reference_fleets.py plays some entries again and fails until then.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from statki_net.ai.analysis import reference_game  # noqa: E402
from statki_net.game.rules import PRESETS  # noqa: E402

TARGET = ROOT / "statki_net" / "ai" / "reference_fleets.py"
WIDTH = 18
"""Shots a line of the written table."""


def table_source(shots: dict[str, list[int]], fleets: int) -> str:
    """The module that keeps ``shots``, as ``TARGET`` holds it."""
    lines = [
        '"""Shots ``density`` needed for uniformly random fleets under each preset: generated.',
        "",
        "Written by ``bench/reference_fleets.py`` (``statki_net.ai.analysis.reference_game``",
        f"plays each entry; {fleets} fleets a preset); do not edit.",
        '"""',
        "",
        "# fmt: off",
        "KEPT_SHOTS: dict[str, tuple[int, ...]] = {",
    ]
    for name, row in shots.items():
        lines.append(f'    "{name}": (')
        for start in range(0, len(row), WIDTH):
            lines.append("        " + ", ".join(str(n) for n in row[start : start + WIDTH]) + ",")
        lines.append("    ),")
    lines.append("}")
    lines.append("# fmt: on")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fleets", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    began = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        shots = {
            name: list(pool.map(reference_game, [name] * args.fleets, range(args.fleets)))
            for name in PRESETS
        }
    TARGET.write_text(table_source(shots, args.fleets))
    for name, row in shots.items():
        print(f"{name}: {len(row)} fleets, mean {sum(row) / len(row):.2f} shots")
    print(f"wrote {TARGET.relative_to(ROOT)} in {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
