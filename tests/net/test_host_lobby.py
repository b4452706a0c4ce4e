"""The interactive host's lobby controls, typed on its terminal: bots in and out, settings, start; then a game."""

from __future__ import annotations

from pathlib import Path

from procs import Terminal

from p2pnimmt.protocol.verify import verify_transcript


def test_host_adds_and_removes_bots_sets_the_game_and_starts_it(tmp_path: Path) -> None:
    host = Terminal(["host", "--seats", "5", "--interface", "127.0.0.1", "--name", "ann",
                     "--transcript", str(tmp_path / "h.p2pt")])
    try:
        host.wait_for("lobby> ")
        host.type("bot random")
        host.wait_for(r"added a random bot")
        host.type("bot")
        host.wait_for(r"added a heuristic bot")
        host.type("bot nosuch")
        host.wait_for(r"not done: unknown bot 'nosuch'")
        host.type("remove bot1")
        host.wait_for(r"removed bot1")
        host.type("variant tactical")
        host.wait_for(r"(?m)settings: variant tactical, sealed deal, the game ends at 66 points$")
        host.type("deal open")
        host.wait_for(r"settings: variant tactical, open deal, the game ends at 66 points")
        host.type("deal poker")
        host.wait_for(r"not done: unknown deal 'poker'")
        host.type("deal sealed")
        host.wait_for(r"settings: variant tactical, sealed deal, the game ends at 66 points")
        host.type("variant chess")
        host.wait_for(r"not done: unknown variant 'chess'")
        host.type("rounds 1")
        host.wait_for(r"ends at 66 points or 1 round\b")
        host.type("points none")
        host.wait_for(r"(?m)settings: variant tactical, sealed deal, the game ends at 1 round$")
        host.type("start")
        host.wait_for(r"starting with 2 players")
        host.wait_for(r"game started: ann, bot2")
        host.play_lines()
        assert host.popen.wait(30) == 0
    finally:
        host.stop()
    verdict = verify_transcript((tmp_path / "h.p2pt").read_bytes())
    assert verdict.ok, verdict.report()
    assert "2 players, variant tactical, sealed deal" in verdict.summary and "round 1:" in verdict.summary
