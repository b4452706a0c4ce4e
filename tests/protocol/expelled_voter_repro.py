"""OPEN (issue 21, review item 4b): a seat expelled by its own second DROP. Not a test (pytest does not collect this
file): it reproduces a bug still open, so the next change can start from it and turn it into the property test at the
end (`python tests/protocol/expelled_voter_repro.py`, from the repository's root).

Seat 3 is cut and voted out; seat 1 cheats as it votes: it signs its DROP of seat 3 twice (a `duplicate`, protocol.md
12: expelled from the second; its first DROP counts as any, 11.1). Found in session 13: (4, "open", cut_at 60,
delivery 0) ends with the honest seats disagreeing (seat 3 drops seats 1 and 0; seat 3's and seat 1's transcripts
fail verify with "ends before the game does"), and (5, "sealed", 200, 7) never finishes (it keeps rebuilding). The
same on the code before that session's changes.
"""

from __future__ import annotations

import faulthandler
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from harness import Net  # noqa: E402
from test_drop import vote_out  # noqa: E402
from test_drop_consensus import cut_off  # noqa: E402

from p2pnimmt.protocol.verify import TranscriptError, replay, verify_transcript  # noqa: E402


def expelled_voter(players: int, deal: str, cut_at: int, delivery: int) -> tuple[Net, int]:
    """The net after the game, and the cheat's seat."""
    from adversary import Adversary

    net = cut_off(players, deal, 3, cut_at, delivery)
    cheat = 1
    adv = Adversary(net, cheat)
    adv.seq, adv.prev = net.sessions[adv.peer].inbox.head(adv.peer)  # it takes over mid-game: its chain so far

    def twice(adv: Adversary, env, body):  # type: ignore[no-untyped-def]
        if env.kind != "DROP" or adv.fired:
            return None
        adv.fired = True
        return adv.default(env, body) + adv.send("DROP", dict(body))

    adv.rule = twice
    vote_out(net, 3)
    net.heal()
    net.run()
    return net, cheat


def outcome(net: Net, cheat: int) -> set:
    """What must be one element once the bug is fixed (the property: every honest node and every honest
    transcript's replay end alike, and every honest transcript verifies)."""
    found = set()
    for peer, session in net.sessions.items():
        if peer == net.identities[cheat].peer:
            continue
        verdict = verify_transcript(bytes(net.transcripts[peer]))
        print("   ", "verified" if verdict.ok else "FAILED: " + verdict.report()[:160])
        try:
            replayed = replay(bytes(net.transcripts[peer])).session
        except TranscriptError as e:
            found.add(("replay fails", str(e)))
            replayed = session
        for s in (session, replayed):
            found.add((str(s.phase), s.result, tuple(sorted(s.dropped.items())), tuple(sorted(s.table.expelled))))
    return found


if __name__ == "__main__":
    faulthandler.dump_traceback_later(120, exit=True)  # (5, "sealed", 200, 7) loops: a traceback after 120 s
    for example in [(4, "open", 60, 0), (4, "sealed", 60, 0), (5, "sealed", 200, 7)]:
        start = time.time()
        net, cheat = expelled_voter(*example)
        print(example, f"{time.time() - start:.1f} s", flush=True)
        print("  outcomes:", outcome(net, cheat), flush=True)
