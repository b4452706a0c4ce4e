"""A peer restarted mid-game rebuilds its state from its own transcript and secrets and finishes the game."""

from __future__ import annotations

import pytest
from harness import Net, catch_up, restart

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.verify import verify_transcript


@pytest.mark.parametrize("deal", ["open", "sealed"])
@pytest.mark.parametrize("stop_after", [3, 40, 150, 260])
def test_restarted_peer_resumes_and_everyone_agrees(stop_after: int, deal: str) -> None:
    net = Net(4, settings=Settings(players=4, max_rounds=2, point_limit=None, deal=deal), seed=7,
              shuffle_delivery=False)
    victim = net.identities[2].peer
    net.start()
    net.run(limit=stop_after)  # the game is in progress
    assert net.sessions[victim].phase not in ("over", "aborted")
    messages_before = len(net.sessions[victim].journal.messages)
    # The process dies: whatever was queued for it is lost; then it comes back from its files.
    net.queue = type(net.queue)(item for item in net.queue if item[0] != victim)
    net.handle(victim, restart(net, victim))
    assert len(net.sessions[victim].journal.messages) == 0  # replayed, not recorded again
    # Its peers tell it what it missed (heads exchange on reconnect), as the network layer does.
    catch_up(net, victim)
    net.run()
    results = {(s.phase, s.result) for s in net.sessions.values()}
    assert len(results) == 1, results
    phase, result = results.pop()
    assert phase == "over" and result.rounds == 2
    assert not [f for p in net.peers for f in net.faults(p) if f.fatal]
    # The continued transcript is one valid, sealed transcript of the whole game.
    verdict = verify_transcript(bytes(net.transcripts[victim]))
    assert verdict.ok, verdict.report()
    assert verdict.messages >= messages_before
