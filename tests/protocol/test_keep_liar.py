"""A liar's KEEP no longer keeps a gone seat from ever being voted out (session 29, the red team's keep_stall).

Seat X is gone (its node stops before its commit of turn 3 reaches anyone). The cheat W says it went on from X's
message there (protocol.md 11.1, "went on"): KEEP(0, 8, X) instead of its DROP, or KEEP ahead, right after its own
commit and before anyone voted, or a message for a later position (a DROP at the reveal step). Nothing proves the
lie: the vote on X is void at every node, and before this policy the honest seats waited on X for good (the
reproduction `benchmarks/attacks/keep_stall.py` of session 28).

The node's policy now (net/waiting.py: never_passed_on; the harness models it once quiet, harness.Net.
vote_out_keepers): an honest seat relays every message it goes on from, so a seat that went on from X's message
while the node, waiting on X gone from its view, still lacks it a drop time later, is voted out TOGETHER WITH X. At
five seats the quorum rule (m = 2) drops the set {X, W}: W is inside the set, so its going on does not make the set
"never named", and the honest voters' votes stay undecided (they hold back) until the set completes. At four seats
(m = 1) no set can be dropped: the table waits, and says why (net.waiting.kept_back)."""

from __future__ import annotations

import pytest
from adversary import Adversary, AttackNet
from test_drop import vote_out

from p2pnimmt import i18n
from p2pnimmt.engine import Settings
from p2pnimmt.net.waiting import kept_back, never_passed_on
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.phase import Step, turn_steps
from p2pnimmt.protocol.verify import verify_transcript

CHEAT, TURN = 1, 2
COMMIT = turn_steps(TURN)[0]
LIES = ("instead", "ahead", "later")


def liar(lie: str):
    """The cheat's rule: which message says it went on from the gone seat's commit of turn TURN."""

    def rule(adv: Adversary, env, body):
        gone = len(adv.net.identities) - 1
        if lie == "ahead":
            if env.kind == "PLAY_COMMIT" and body["turn"] == TURN and not adv.fired:
                adv.fired = True  # right after its own commit, before anyone voted
                return adv.default(env, body) + adv.send("KEEP", {"round": 0, "step": COMMIT, "seat": gone})
            if env.kind == "DROP" and body["seat"] == gone:
                return []  # it never votes
            return None
        if env.kind == "DROP" and body["seat"] == gone and not adv.fired:
            adv.fired = True
            if lie == "instead":
                return adv.send("KEEP", body)  # the same round, step and seat
            return adv.send("DROP", {"round": 0, "step": COMMIT + 1, "seat": gone})  # a later position
        return None

    return rule


def gone_at_turn(net, seat: int):
    """A withhold: `seat`'s node stops at its commit of turn TURN (it and all it sends after never arrive)."""
    gone = net.identities[seat].peer
    stopped: dict[str, int] = {}

    def withhold(to: bytes, frm: bytes, wire: bytes) -> bool:
        if frm != gone:
            return False
        env = open_envelope(wire)
        if env.kind == "PLAY_COMMIT" and env.body["turn"] == TURN:
            stopped.setdefault("seq", env.seq)
        return "seq" in stopped and env.seq >= stopped["seq"]

    return withhold


def table(players: int, lie: str | None) -> AttackNet:
    """`players` seats, open deal, one round; the last seat gone at its commit of turn TURN; seat CHEAT lies (or
    not); every seat's timer finds the gone seat gone (vote_out), and the nodes' policy runs once quiet."""
    net = AttackNet(players, settings=Settings(players=players, max_rounds=1, deal="open"), seed=3)
    net.withhold = gone_at_turn(net, players - 1)
    if lie is not None:
        Adversary(net, CHEAT, liar(lie))
    net.start()
    net.run()
    vote_out(net, players - 1)
    return net


@pytest.mark.parametrize("lie", LIES)
def test_five_seats_vote_out_the_gone_seat_with_the_seat_that_never_passed_its_message_on(lie: str) -> None:
    net = table(5, lie)
    found = set()
    for seat, ident in enumerate(net.identities):
        if seat in (CHEAT, 4):
            continue
        s = net.sessions[ident.peer]
        assert not [f for f in net.faults(ident.peer) if f.fatal], net.faults(ident.peer)
        # before: ("turn", 0, TURN, (4,)) for ever, the vote on seat 4 void
        assert s.phase == "over", (lie, seat, s.phase, s.turn, s.waiting_for())
        assert s.dropped == {4: Step(0, COMMIT), CHEAT: Step(0, COMMIT)}
        verdict = verify_transcript(bytes(net.transcripts[ident.peer]))
        assert verdict.ok, verdict.report()
        found.add((s.result, tuple(s.game.history)))
    assert len(found) == 1
    watcher = net.sessions[net.watchers[0].peer]
    assert watcher.phase == "over" and watcher.dropped == {4: Step(0, COMMIT), CHEAT: Step(0, COMMIT)}
    assert verify_transcript(bytes(net.transcripts[net.watchers[0].peer])).ok


def test_an_honest_table_with_a_seat_gone_drops_it_alone() -> None:
    """Without the lie nobody went on from the gone seat's message: the policy names nobody else."""
    net = table(5, None)
    for seat, ident in enumerate(net.identities[:4]):
        s = net.sessions[ident.peer]
        assert s.phase == "over" and s.dropped == {4: Step(0, COMMIT)}, seat


@pytest.mark.parametrize("lie", LIES)
def test_four_seats_wait_and_say_why(lie: str) -> None:
    """At four seats no set can be dropped (m = 1: a seat gone and a liar are two faults, beyond what any quorum
    decides safely, as a table cut two and two): the honest seats wait on seat 3, and their status says why."""
    net = table(4, lie)
    p0 = net.sessions[net.identities[0].peer]
    assert p0.phase == "turn" and p0.waiting_for() == (3,) and not p0.dropped
    assert never_passed_on(p0, 3) == {CHEAT}
    linked = frozenset(net.identities[s].peer for s in (1, 2))
    assert kept_back(p0, linked) == (
        "waiting for p3: p1 says it has p3's move but never passed it on (start a new game without p1 if it stays "
        "so)", [CHEAT])
    assert kept_back(p0, linked | {net.identities[3].peer}) is None  # seat 3 linked: it may yet move
    why = kept_back(p0, linked)
    assert why is not None
    i18n.use("de")  # said as the node says it (app.nodes.stalled), in the language in use (i18n._PEER_TEXTS)
    try:
        assert i18n.said(why[0]) == ("warten auf p3: p1 sagt, es habe den Zug von p3, hat ihn aber nie weitergereicht "
                                     "(starte ein neues Spiel ohne p1, wenn es so bleibt)")
    finally:
        i18n.use("en")
