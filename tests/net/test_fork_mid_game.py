"""One seat's equivocation mid-game does not cost the others their evening (protocol.md 12, "An equivocation after
the START"; 9, START's `carry`; 14, "A new start").

Real `p2pnimmt` processes on 127.0.0.1: ann hosts a 3-round game, bob and cy join, a TV watches, and mal joins with a
modified client (tests/net/cheat_node.py `fork`): at turn 4 of round 2 mal signs two PLAY_REVEALs with one seq (the
real one to its relayer, one marked `auto` to the others). No split commit: every node that holds both aborts with
`equivocation` naming mal. Then ann starts a new game at once without mal that carries round 1's scores; bob, cy and
the TV follow it (bob and cy check the carry against their own record before they sign their START_ACK) and play the
2 rounds left. Every new transcript verifies, says what it carried, and ends with the carried scores plus its own
rounds. Before session 31 every honest node ended aborted: the evening was lost.
"""

from __future__ import annotations

import re
from pathlib import Path

from procs import game_of
from test_gone_before_start import ENV, LO, CheatProc, ann_and_joiners, files, names_of

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript

ROUNDS = ["--rounds", "3", "--no-points", "--deal", "open", "--bot-delay", "0.05"]
WHY = "mal signed two different messages at one place (an equivocation); the round in play is lost"


def round_end_scores(path: Path, round_index: int) -> dict[str, int]:
    """Each seat's total at round `round_index`'s end, as the seats of the game a transcript records signed it."""
    msgs = [open_envelope(p) for kind, p in records(path.read_bytes()) if kind == "msg"]
    names = names_of(path)
    ends = [m for m in msgs if m.kind == "ROUND_END" and m.body["round"] == round_index]
    assert ends, f"no ROUND_END of round {round_index + 1} in {path.name}"
    return dict(zip(names, ends[0].body["scores"], strict=True))


def honest_table(procs, tmp_path: Path, seats: int, timers: list[str]):
    """ann hosts a game of `seats` seats (ROUNDS), bob and cy join, a TV watches, the seats left for the cheats:
    (ann, {"bob": ..., "cy": ...}, the TV, the --peer option, the code)."""
    ann, joined, peer, code = ann_and_joiners(procs, tmp_path, seats, [*ROUNDS, *timers], timers, ["bob", "cy"])
    tv = procs(["watch", code, "--headless", *peer, *LO, *timers, "--transcript", str(tmp_path / "tv.p2pt")],
               tmp_path / "tv.out", env=ENV)
    tv.wait_for(r"joined \w{4}")
    return ann, joined, tv, peer, code


def ended_well(ann, joined: dict, tv, seconds: float = 150) -> dict[str, str]:
    """The honest nodes and the TV of honest_table end their evening (exit 0, each within `seconds`), with no
    traceback nor give-up, each with one game's final scores: what each said, by name."""
    for proc in (ann, *joined.values(), tv):
        assert proc.finish(seconds) == 0, proc.text()
    said = {name: proc.text() for name, proc in (("ann", ann), *joined.items(), ("tv", tv))}
    for text in said.values():
        assert "Traceback" not in text and "giving up:" not in text, text
        assert len(re.findall(r"final scores", text)) == 1, text
    return said


def test_an_equivocation_mid_game_leaves_the_others_a_game_that_carries_the_scores(tmp_path: Path, procs) -> None:
    timers = ["--drop-after", "600", "--give-up", "90"]  # the new start waits for no drop time: the proof is signed
    ann, joined, tv, peer, code = honest_table(procs, tmp_path, 4, timers)
    mal = CheatProc("fork", ["join", code, "--headless", *peer, *LO, *timers, *files(tmp_path, "mal")],
                    tmp_path / "mal.out", turn=3)
    try:
        mal.wait_for(r"cheat: two reveals", 120)
        said = ended_well(ann, joined, tv)
        carried = " (the new game carries the scores after round 1 and plays the rounds left)"
        assert f"game {game_of(code)} is abandoned: {WHY}{carried}; a new game starts at once with the others (3 players)" \
            in said["ann"], said["ann"]
        for name in ("bob", "cy"):
            assert f"game {game_of(code)} is abandoned: {WHY}{carried}; ann starts a new game at once" in said[name], said[name]
        assert "ann starts a new game at once with the others" in said["tv"], said["tv"]
        # the first game: every honest transcript ends in mal's equivocation
        for name in ("ann", "bob", "cy"):
            verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
            assert not verdict.ok and "equivocation" in verdict.fault and "mal" in verdict.fault, verdict.report()
        first = round_end_scores(tmp_path / "ann.p2pt", 0)
        carry = ", ".join(f"{n} {first[n]}" for n in ("ann", "bob", "cy"))
        # the new game: mal left out, round 1's totals carried, the 2 rounds left played, the totals on top
        summaries = set()
        for name in ("ann", "bob", "cy", "tv"):
            path = tmp_path / f"{name}-2.p2pt"
            verdict = verify_transcript(path.read_bytes())
            assert verdict.ok, verdict.report()
            assert names_of(path) == ["ann", "bob", "cy"]
            assert re.search(rf"carried from game [0-9a-f]{{32}} after round 1: {carry} ", verdict.summary), \
                verdict.summary
            assert "round 2: " in verdict.summary and "round 3: " in verdict.summary, verdict.summary
            assert "round 4" not in verdict.summary and "\nround 1: " not in verdict.summary, verdict.summary
            last = round_end_scores(path, 1)
            rounds = [round_end_scores(path, r) for r in (0, 1)]
            assert all(rounds[1][n] >= rounds[0][n] >= first[n] for n in last), (first, rounds)
            assert f"scores: {', '.join(f'{n} {last[n]}' for n in ('ann', 'bob', 'cy'))}" in verdict.summary
            summaries.add(verdict.summary.split("\nverified:")[0])
        assert len(summaries) == 1, summaries  # every node, the TV's too, saw the same game
        assert mal.finish(90) != 0, mal.text()
    finally:
        mal.stop()
