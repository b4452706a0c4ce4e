"""`p2pnimmt verify` of a game left mid-way (a valid transcript that stops before the game's end), run as a process:
it said "FAILED at the transcript ends before the game does (phase turn, ...)" with status 1, as of a damaged one.
Now it says UNFINISHED: valid as far as it goes, where the game stops and whose move it waits on, with status 3
(in English and in German); the same transcript with a record altered still says FAILED with status 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "protocol"))

from harness import Net  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402


def verify(path: Path, *more: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", "verify", str(path), *more], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "LANG": "C.UTF-8"})


def left_mid_way(tmp_path: Path) -> tuple[Path, list[str]]:
    """A game of 3 stopped after 400 messages delivered: its transcript, and whom it waits on."""
    net = Net(3, settings=Settings(players=3, max_rounds=2, point_limit=None, deal="open"), bots="heuristic", seed=9)
    net.start()
    net.run(limit=400)
    path = tmp_path / "left.p2pt"
    path.write_bytes(bytes(net.transcripts[net.identities[0].peer]))
    session = net.sessions[net.identities[0].peer]
    assert session.phase == "turn"
    return path, [session.names[s] for s in session.waiting_for()]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_game_left_mid_way_is_unfinished_not_failed(tmp_path: Path, lang: str) -> None:
    path, waiting = left_mid_way(tmp_path)
    assert waiting
    done = verify(path, "--lang", lang)
    said = done.stdout + done.stderr
    assert done.returncode == 3, said
    assert "FAILED" not in said and "ends before the game does" not in said, said
    if lang == "en":
        assert "UNFINISHED: the transcript is valid as far as it goes (" in said, said
        assert f"the game was not finished: it stops in round 1, turn 10, waiting for {', '.join(waiting)}" in said
        assert f"p2pnimmt replay {path}" in said, said
    else:
        assert "NICHT BEENDET: das Spielprotokoll ist gültig, so weit es reicht (" in said, said
        assert f"das Spiel wurde nicht beendet: es bricht in Runde 1, Zug 10 ab und wartet auf {', '.join(waiting)}" in said


def test_an_altered_unfinished_transcript_still_fails(tmp_path: Path) -> None:
    path, _waiting = left_mid_way(tmp_path)
    broken = bytearray(path.read_bytes())
    broken[len(broken) // 2] ^= 1
    path.write_bytes(bytes(broken))
    done = verify(path)
    assert done.returncode == 1 and "FAILED at record" in done.stderr and "UNFINISHED" not in done.stdout, done


def test_the_help_names_every_exit_status() -> None:
    done = subprocess.run([sys.executable, "-m", "p2pnimmt", "verify", "--help"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "LANG": "C.UTF-8", "COLUMNS": "200"})
    assert "3 UNFINISHED (valid as far as it goes, but the game was not finished)" in " ".join(done.stdout.split()), \
        done.stdout
