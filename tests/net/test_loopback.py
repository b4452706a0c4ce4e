"""Whole games between separate p2pnimmt processes over loopback TCP, found by real zeroconf on 127.0.0.1."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from procs import final_scores, game_of

from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]


@pytest.mark.parametrize("seats,bots,joiners,deal", [(2, 0, 1, "sealed"), (4, 1, 2, "sealed"), (4, 1, 2, "open"),
                                                   (10, 6, 3, "sealed")])
def test_host_join_watch_play_a_whole_game(tmp_path: Path, procs, seats: int, bots: int, joiners: int,
                                           deal: str) -> None:
    """Sealed is the default deal: without --deal the game is sealed, and every transcript says so."""
    deal_option = ["--deal", "open"] if deal == "open" else []
    host = procs(["host", "--headless", "--seats", str(seats), "--bots", str(bots), *LO, *deal_option,
                  "--transcript", str(tmp_path / "host.p2pt"), "--name", "ann"], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    watcher = procs(["watch", code, "--headless", *LO, "--transcript", str(tmp_path / "watch.p2pt")],
                    tmp_path / "watch.out")
    watcher.wait_for("joined")
    players = [procs(["join", code, "--headless", *LO, "--transcript", str(tmp_path / f"join{i}.p2pt"),
                      "--name", f"j{i}"], tmp_path / f"join{i}.out") for i in range(joiners)]
    for proc in [host, watcher, *players]:
        assert proc.finish(90) == 0, proc.text()
    scores = {final_scores(p.text()) for p in [host, watcher, *players]}
    assert len(scores) == 1, scores  # every node, the spectator included, reached the same result
    for name in ["host.p2pt", "watch.p2pt", *[f"join{i}.p2pt" for i in range(joiners)]]:
        verdict = verify_transcript((tmp_path / name).read_bytes())
        assert verdict.ok, (name, verdict.report())
        assert "scores: " + next(iter(scores)) in verdict.summary
        assert f"{seats} players, variant standard, {deal} deal" in verdict.summary
    # The CLI verifier agrees.
    result = subprocess.run([sys.executable, "-m", "p2pnimmt", "verify", str(tmp_path / "watch.p2pt")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "ann" in result.stdout and "winner" in result.stdout


def test_games_lists_a_hosted_game_and_join_by_address(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "2", *LO, "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    listing = subprocess.run([sys.executable, "-m", "p2pnimmt", "games", *LO, "--seconds", "1.5"],
                             capture_output=True, text=True, timeout=30)
    assert listing.returncode == 0
    assert re.search(rf"^{game_of(code)}\s+host-\w{{4}}\s+standard\s+sealed\s+1/2\s+lobby\s+127\.0\.0\.1:{port}$", listing.stdout,
                     re.M), listing.stdout
    joiner = procs(["join", code, "--headless", "--peer", f"127.0.0.1:{port}", *LO,
                    "--transcript", str(tmp_path / "j.p2pt")], tmp_path / "join.out")
    assert joiner.finish(60) == 0, joiner.text()
    assert host.finish(60) == 0, host.text()
    assert final_scores(joiner.text()) == final_scores(host.text())


def test_join_unknown_code_fails_clearly(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "p2pnimmt", "join", "ZZZZ-7Q2K", "--headless", *LO],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "no game with code ZZZZ found on the LAN on interface 127.0.0.1" in result.stderr
