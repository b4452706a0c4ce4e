"""The drop vote's count of the absent in both implementations (protocol.md 11.1): whether the seats with no link
to a node can be voted out without one of them (net/waiting.py: few_enough; web/peer/src/page_seat.ts:
PageSeat.fewEnoughGone, which page_waiting.ts asks before any vote against an absent seat). Tables of 2 to 7
bots stop at the first turn with some seats gone; a spectator's session holds the same messages on both sides
(the TypeScript side answers through web/peer/test/waiting_agree.ts), and both say the same for every set of
seats of the table, the ones dropped already and the table's own size included."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from nodepeer import PEER, tool

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from harness import Net, stopped_at_first_commit  # noqa: E402

from p2pnimmt.engine.game import Settings  # noqa: E402
from p2pnimmt.net.waiting import few_enough, never_passed_on, voted_out_unseen  # noqa: E402
from p2pnimmt.protocol.envelope import open_envelope  # noqa: E402

TABLES = [(2, {1}), (3, {2}), (4, {2, 3}), (5, {3, 4}), (5, {2, 3, 4}), (6, {1, 5}), (7, {4, 5, 6})]


def test_both_implementations_count_the_absent_alike(compiled: Path) -> None:
    cases, expected = [], []
    for players, gone in TABLES:
        net = stopped_at_first_commit(players, gone, seed=100 + players, spectators=1)
        watcher = net.sessions[net.watchers[0].peer]
        assert watcher.phase == "turn" and set(watcher.waiting_for()) == gone, (players, gone, watcher.phase)
        subsets = [list(s) for k in range(players + 1) for s in itertools.combinations(range(players), k)]
        cases.append({"game": net.game_id.hex(), "wires": [env.wire.hex() for env in watcher.inbox.accepted],
                      "absent": subsets})
        expected.append({"phase": "turn", "waiting": sorted(gone),
                         "few": [few_enough(watcher, subset) for subset in subsets], "voted": [],
                         "passed": [[]] * players})
    done = subprocess.run([tool("node"), str(compiled / "test" / "waiting_agree.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=120, input=json.dumps({"cases": cases}))
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    for (players, gone), ours, theirs in zip(TABLES, expected, answers, strict=True):
        theirs["waiting"] = sorted(theirs["waiting"])
        assert theirs == ours, (players, gone)
    # the rule itself, as protocol.md 11.1 puts it: one seat gone can always be voted out; several only within
    # most_named (two of four cannot, two of five and three of seven can, three of five cannot)
    assert [answer["few"][case["absent"].index(sorted(gone))] for (_, gone), case, answer
            in zip(TABLES, cases, answers, strict=True)] == [True, True, False, True, False, True, True]


def test_a_page_still_starting_waits_on_the_seats_whose_start_ack_it_lacks(compiled: Path) -> None:
    """A node that lacks a START_ACK waits on its seat (the reference's waiting_for), so it asks its peers for it as
    for any message it waits on (net/waiting.py, page_waiting.ts: the pull); it votes on nobody while starting
    (11.1). The page said it waited on nobody while starting, so a page that missed a START_ACK (its seat cut off
    just after sending it to some) never asked and stayed starting while the others played: chaos seed 128
    (tests/peer/test_chaos_agrees.py). Four seats; seats 1 and 3's START_ACKs never arrive."""
    net = Net(4, settings=Settings(players=4, deal="open", max_rounds=1), spectators=1, seed=7)
    gone = {net.identities[1].peer, net.identities[3].peer}
    net.withhold = lambda to, frm, wire: frm in gone and open_envelope(wire).kind == "START_ACK"
    net.start()
    net.run()
    watcher = net.sessions[net.watchers[0].peer]
    assert watcher.phase == "starting" and watcher.waiting_for() == (1, 3)
    done = subprocess.run([tool("node"), str(compiled / "test" / "waiting_agree.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=120, input=json.dumps({"cases": [{
                              "game": net.game_id.hex(), "wires": [env.wire.hex() for env in watcher.inbox.accepted],
                              "absent": []}]}))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"phase": "starting", "waiting": [1, 3], "few": [], "voted": [],
                                        "passed": [[]] * 4}]


def test_both_implementations_see_a_vote_cast_by_another_seat_alike(compiled: Path) -> None:
    """A node joins another seat's vote at once only against a seat it sees gone itself (protocol.md 11.1, "A seat
    joins a vote only by its own policy"): the reference's net/waiting.voted_out_unseen and the page's
    PageSeat.votedOut (page_waiting.ts) read the same votes. Four seats stopped at the first turn, seats 2 and 3
    gone; seat 0 votes seat 2 out: both say a vote names seat 2 where the game waits, none seat 3 (nor a seat that
    plays)."""
    net = stopped_at_first_commit(4, {2, 3}, seed=104, spectators=1)
    net.handle(net.identities[0].peer, net.sessions[net.identities[0].peer].drop(2))
    net.run()
    watcher = net.sessions[net.watchers[0].peer]
    ours = [x for x in range(4) if voted_out_unseen(watcher, x, linked=(), moved=())]
    assert ours == [2]
    done = subprocess.run([tool("node"), str(compiled / "test" / "waiting_agree.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=120, input=json.dumps({"cases": [{
                              "game": net.game_id.hex(), "wires": [env.wire.hex() for env in watcher.inbox.accepted],
                              "absent": []}]}))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"phase": "turn", "waiting": [2, 3], "few": [], "voted": ours,
                                        "passed": [[]] * 4}]


@pytest.mark.parametrize("lie", ["instead", "ahead", "later"])
def test_both_implementations_see_a_seat_that_never_passed_a_gone_seats_message_on_alike(lie: str,
                                                                                        compiled: Path) -> None:
    """The node's policy against a liar's KEEP (protocol.md 11.1; net/waiting.never_passed_on, Seat.neverPassedOn in
    page_waiting.ts): four seats, seat 3 gone at its commit of turn 3, and seat 1 said it went on from it (a KEEP
    instead of its DROP, a KEEP ahead, a DROP for a later position; tests/protocol/test_keep_liar.py). Both name seat 1
    for seat 3, and nobody for a seat whose message is in; at four seats the two cannot be voted out together
    (few_enough, Seat.fewEnoughGone: false), at five they can."""
    from test_keep_liar import CHEAT

    for players in (4, 5):
        net = table_before_votes(players, lie)
        watcher = net.sessions[net.watchers[0].peer]
        gone = players - 1
        ours = [sorted(never_passed_on(watcher, x)) for x in range(players)]
        assert ours == [[CHEAT] if x == gone else [] for x in range(players)], (players, ours)
        done = subprocess.run([tool("node"), str(compiled / "test" / "waiting_agree.js")], cwd=PEER,
                              capture_output=True, text=True, timeout=120, input=json.dumps({"cases": [{
                                  "game": net.game_id.hex(),
                                  "wires": [env.wire.hex() for env in watcher.inbox.accepted],
                                  "absent": [[CHEAT, gone]]}]}))
        assert done.returncode == 0, done.stderr
        [answer] = json.loads(done.stdout)
        assert answer["passed"] == ours and answer["waiting"] == [gone], (players, answer)
        assert answer["few"] == [few_enough(watcher, {CHEAT, gone})] == [players == 5]


def table_before_votes(players: int, lie: str):
    """test_keep_liar's table, without the nodes' policy (at five seats it would drop the two): the liar's message is
    in, and the votes on the gone seat."""
    from adversary import Adversary, AttackNet
    from test_drop import vote_out
    from test_keep_liar import CHEAT, gone_at_turn, liar

    net = AttackNet(players, settings=Settings(players=players, max_rounds=1, deal="open"), seed=3)
    net.withhold = gone_at_turn(net, players - 1)
    Adversary(net, CHEAT, liar(lie))
    net.start()
    net.run()
    vote_out(net, players - 1, run=False)
    net.gone = set()  # no node's policy: the votes delivered only
    net.run()
    return net
