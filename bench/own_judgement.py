"""What a peer's judgement of its own log costs, beside the game that wrote it.

    python bench/own_judgement.py [--games N] [--rules NAME]

Plays N games as bench/games.py does (logs flushed, not synced: the game
machinery's own CPU time), then judges every log three ways: as the peer
does at the end of a game (``judge_own_log``: the transcript it played,
reused), by a replay that looks over this side's own frames again and takes
the other side's as checked (what re-checking its own answers and reveal
would cost; its frames were taken as vouched while it played), and as a
referee does (``judge_log``, a full replay).  Each is printed per log and as
a share of a game's CPU time (two logs a game, one a side).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from games import play_games

from statki_net.protocol.logformat import read_log
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role
from statki_net.referee.verify import judge_log, judge_own_log, replay_log


def own_frames_again(played: Transcript, role: Role) -> Transcript:
    """``played`` replayed with ``role``'s frames looked over for lies, the other's not."""
    again = Transcript()
    for frame in played.frames:
        again.add(frame, signed_here=True, vouched=frame.header.sender is not role)
    return again


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rules", default="classic")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        game_s = play_games(args.rules, args.games, Path(tmp, "logs"), durable=False)
        datas = [path.read_bytes() for path in sorted(Path(tmp, "logs").iterdir())]
    played = [replay_log(read_log(data))[0] for data in datas]
    roles = [Role(read_log(data).header["role"]) for data in datas]
    ways = {
        "judge_own_log (the peer's, reused)   ": lambda: [
            judge_own_log(data, transcript) for data, transcript in zip(datas, played, strict=True)
        ],
        "its own frames re-checked (a replay) ": lambda: [
            own_frames_again(transcript, role)
            for transcript, role in zip(played, roles, strict=True)
        ],
        "judge_log (the referee's full replay)": lambda: [judge_log(data) for data in datas],
    }
    print(f"rules: {args.rules}, games: {args.games}, {game_s / args.games * 1000:.1f} ms a game")
    for name, way in ways.items():
        started = time.process_time()
        way()
        seconds = time.process_time() - started
        print(
            f"{name}: {seconds / len(datas) * 1000:6.2f} ms a log,"
            f" {seconds / game_s * 100:5.1f}% of a game's CPU"
        )


if __name__ == "__main__":
    main()
