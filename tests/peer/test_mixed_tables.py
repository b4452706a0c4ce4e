"""Mixed tables (issue 25): Python sessions and TypeScript seats at one table, every deal, 2 to 10 seats, a seat
that goes away and is voted out, a seat dropped that takes its seat back.

The TypeScript nodes run in one `node` child process (web/peer/test/mixed.ts) that speaks length-prefixed frames
on stdin and stdout; tests/peer/mixed.py links them in memory with the reference's Sessions, in a seeded delivery
order, with one rule for every seat's moves (mixed.py). Each game is played twice with the same keys, entropy,
delivery order and choices: once with every node in Python, once with about half the seats and one of the two
spectators in TypeScript. Then:

- every node of the mixed table ends as the game does (or, a seat gone, as far as it got) and the nodes that
  finished hold the same phase, scores, each round's bull heads, drops, void rounds, forfeits and winners;
- every node sent the same messages, byte for byte, to the same peers, and wrote the same transcript, as the node
  of the all-Python table in its place (the same keys, entropy and inputs leave a node nothing to choose), and
  after each input counted the same seats away (11.2);
- every transcript gets the same verdict and the same report from both verifiers (the Python verifier and the
  TypeScript one in the node process: the text `p2pnimmt verify FILE` and `node peer.js verify FILE` print),
  verifies (a seat cut off for good: whatever both say, alike), and its scores line is the scores every node
  holds; the two commands themselves print the same lines with the same exit status for a TypeScript node's and a
  Python node's transcript of each table (for every transcript with P2PNIMMT_SWEEP=1).

The default run plays a few tables of each deal; P2PNIMMT_SWEEP=1 plays every deal at every size from 2 to 10,
and a seat (TypeScript or Python) voted out at 3, 6 and 9 seats of every deal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from mixed import Mixed, NodeSeats
from nodepeer import run, tool
from test_verify_agrees import node_verify, python_verify

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sweep import SWEEP  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.neutral import neutral  # noqa: E402
from p2pnimmt.protocol.envelope import open_envelope, seal  # noqa: E402
from p2pnimmt.protocol.events import Outgoing  # noqa: E402
from p2pnimmt.protocol.session import LocalError, Session  # noqa: E402
from p2pnimmt.protocol.transcript import records  # noqa: E402
from p2pnimmt.protocol.verify import verify_transcript  # noqa: E402

DEALS = {"open": ("standard", "open"), "sealed": ("standard", "sealed"), "draft": ("draft", "open"),
         "tactical": ("tactical", "open")}
DEFAULT = [("open", 2), ("open", 10), ("sealed", 3), ("sealed", 7), ("draft", 4), ("draft", 9), ("tactical", 5)]
TABLES = [(deal, n) for deal in ("open", "sealed", "draft") for n in range(2, 11)] if SWEEP else DEFAULT


@pytest.fixture(scope="module")
def child(node_modules: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[NodeSeats]:
    """The node process of the module's TypeScript seats (one for all its tables; each node has its own id):
    web/peer/test/mixed.ts and the sources it imports bundled by esbuild (tsc type-checks them in
    test_typescript.py; a bundle takes a tenth of a second where tsc takes seconds)."""
    seats = node_child(tmp_path_factory)
    yield seats
    seats.close()


def node_child(tmp_path_factory: pytest.TempPathFactory) -> NodeSeats:
    """A new node process of TypeScript seats (the `child` fixture's; close it after use)."""
    where = tmp_path_factory.mktemp("node")
    script = where / "mixed.mjs"
    run([tool("node"), "--input-type=module", "-e",
         "import { build } from 'esbuild'; await build({ entryPoints: ['test/mixed.ts'], bundle: true, "
         f"format: 'esm', platform: 'node', target: 'es2022', logLevel: 'warning', outfile: {str(script)!r} }});"])
    return NodeSeats(script, where / "stderr.log")


class Table:
    """One game's two tables: `reference` (every node in Python) and `mixed` (`typescript` nodes in TypeScript)."""

    def __init__(self, child: NodeSeats, deal: str, players: int, typescript: list[int], seed: int,
                 rounds: int = 1, clock: int | None = None, native: bool = True) -> None:
        """`native`: the TypeScript nodes sign and check on node's OpenSSL (the first table of `child` decides for
        the process), else on the portable code a browser runs."""
        variant, how = DEALS[deal]
        settings = Settings(players=players, variant=variant, max_rounds=rounds, point_limit=None, deal=how,
                            clock=clock)
        self.reference = Mixed(players, settings=settings, seed=seed, spectators=2)
        self.mixed = Mixed(players, settings=settings, seed=seed, spectators=2, typescript=typescript, child=child,
                           native=native)
        self.nets = (self.reference, self.mixed)
        self.child = child

    def each(self, action: Any) -> None:
        for net in self.nets:
            action(net)


def seats_in_typescript(players: int, odd: bool = True) -> list[int]:
    """About half the seats (the odd ones, or the even ones with the host) and the second spectator."""
    return [i for i in range(players) if i % 2 == (1 if odd else 0)] + [players + 1]


def cut_off(net: Mixed, seat: int, cut_at: int) -> None:
    """Play `cut_at` deliveries, then cut `seat` off and go on until the game waits on it."""
    net.start()
    net.run(limit=cut_at)
    net.cut = {net.identities[seat].peer}
    net.run()


def voted_out_and_asked_back(net: Mixed, seat: int, cut_at: int) -> None:
    """`seat` cut off after `cut_at` deliveries and voted out by every other seat; the cut heals and, once its own
    node holds it dropped, it asks back (REJOIN, 11.3); the table plays on until nothing more happens."""
    cut_off(net, seat, cut_at)
    assert net.vote_out(seat) == len(net.identities) - 1
    healed_and_asked_back(net, seat)


def healed_and_asked_back(net: Mixed, seat: int, cut_again: Callable[[], bool] | None = None) -> None:
    """`seat` just voted out: 40 deliveries, the cut heals, and once its own node holds it dropped it asks back
    (REJOIN, 11.3); the table plays on until nothing more happens. `cut_again`, asked after each delivery: True
    when it cut the seat off and had it voted out again (it then asks back again)."""
    x = net.identities[seat].peer
    net.run(limit=40)
    net.heal()
    asked = False
    while net.queue:
        net.run(limit=1)
        if not asked and seat in net.dropped_at(x):
            net.handle(x, net.sessions[x].rejoin())  # type: ignore[union-attr]
            asked = True
        if cut_again is not None and cut_again():
            asked = False
    assert asked


def every_other_asks_the_stand_in(net: Mixed, stalled: int) -> bool:
    """Every seat but `stalled` that waits on it asks the stand-in for its move (an ask made already in this turn is
    refused, LocalError); whether any asked."""
    x = net.identities[stalled].peer
    asked = False
    for ident in net.identities:
        session: Any = net.sessions[ident.peer]
        if ident.peer != x and stalled in session.waiting_for():
            try:
                net.handle(ident.peer, session.ask_stand_in(stalled))
                asked = True
            except LocalError:
                pass  # asked already in this turn
    return asked


def broken_by(net: Mixed, seat: int, rule: Any) -> None:
    """The Python seat `seat` of `net` breaks a rule as `rule` says (tests/protocol/adversary.py): the table plays
    from its start until nothing more happens, the rule having fired."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary

    adv = Adversary(net, seat, rule)
    net.start()
    net.run()
    assert adv.fired


def waited_on_and_voted_out(net: Mixed, seat: int) -> None:
    """Every other seat waits on `seat` alone and votes it out (every one of them); the table plays on until
    nothing more happens."""
    others = [s for s in range(len(net.identities)) if s != seat]
    for other in others:
        assert net.sessions[net.identities[other].peer].waiting_for() == (seat,)
    assert net.vote_out(seat) == len(others)
    net.run()


def honest_of(table: Table, outcomes: list[dict[str, Any]], *cheats: int) -> list[dict[str, Any]]:
    """The outcomes (check's, node_by_node's) of the mixed table's nodes but those of the seats `cheats`."""
    theirs = {table.mixed.identities[s].peer for s in cheats}
    return [o for p, o in zip(table.mixed.peers, outcomes) if p not in theirs]


def check(table: Table, tmp_path: Path, gone: int | tuple[int, ...] | None = None) -> list[dict[str, Any]]:
    """The checks of the module's docstring; each node's outcome. `gone`: a seat (or seats) cut off for good, or a
    cheat's own node (the same bytes as the Python node in its place, and both verifiers say the same of its
    transcript)."""
    ref, mixed = table.nets
    assert mixed.typescript, "no TypeScript node at this table"
    outcomes = [mixed.outcome(p) for p in mixed.peers]
    for i, peer in enumerate(mixed.peers):
        kind = "TypeScript" if mixed.is_typescript(peer) else "Python"
        assert mixed.sent[peer] == ref.sent[peer], f"node {i} ({kind}) sent other bytes than the Python node " \
            f"in its place ({len(mixed.sent[peer])} and {len(ref.sent[peer])} messages)"
        assert bytes(mixed.transcripts[peer]) == bytes(ref.transcripts[peer]), f"node {i} ({kind}): other transcript"
        assert outcomes[i]["fault"] is None, f"node {i} ({kind}): {outcomes[i]['fault']}"
        assert mixed.away_seen[peer] == ref.away_seen[peer], f"node {i} ({kind}) counted other seats away (11.2)"
    gone_peers = {mixed.identities[s].peer for s in ((gone,) if isinstance(gone, int) else gone or ())}
    finished = [o for p, o in zip(mixed.peers, outcomes) if p not in gone_peers]
    assert all(o["phase"] == "over" for o in finished), [o["phase"] for o in outcomes]
    assert all(o == finished[0] for o in finished), [{k: v for k, v in o.items() if v != finished[0][k]} for o in finished]
    scores = finished[0]["scores"]
    assert scores == [sum(col) for col in zip(*finished[0]["history"])]
    # both verifiers on every node's transcript: their verdict and report in process (what each command prints),
    # and the commands themselves on a TypeScript node's and a Python node's transcript (every one in the sweep)
    line = "scores: " + ", ".join(f"p{s} {x}" for s, x in enumerate(scores))
    paths = []
    for i, peer in enumerate(mixed.peers):
        path = tmp_path / f"node-{i}{'-ts' if mixed.is_typescript(peer) else ''}.p2pt"
        path.write_bytes(bytes(mixed.transcripts[peer]))
        paths.append(path)
        verdict = verify_transcript(bytes(mixed.transcripts[peer]))
        ours = (verdict.ok, "\n".join(neutral(text) for text in verdict.report().splitlines()))
        answer = table.child.call("verify", -1, path=str(path))
        assert answer["unsupported"] is None, f"{path.name}: {answer['unsupported']}"
        assert (answer["ok"], answer["report"]) == ours, f"{path.name}:\n Python {ours}\n TypeScript {answer}"
        if peer not in gone_peers:
            assert verdict.ok, f"{path.name}: {ours[1]}"
            assert line in ours[1].splitlines(), f"{path.name}: {line!r} not in\n{ours[1]}"
    sample = paths if SWEEP else [
        next(p for p, q in zip(paths, mixed.peers) if mixed.is_typescript(q) and q not in gone_peers),
        next(p for p, q in zip(paths, mixed.peers) if not mixed.is_typescript(q) and q not in gone_peers)]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda p: (p, python_verify(p), node_verify(p)), sample))
    for path, ours, theirs in results:
        assert (theirs.returncode, theirs.stdout, theirs.stderr) == (ours.returncode, ours.stdout, ours.stderr), \
            f"{path.name}:\n Python {ours.returncode} {ours.stdout}{ours.stderr}\n TypeScript {theirs.returncode} " \
            f"{theirs.stdout}{theirs.stderr}"
        if path not in paths or mixed.peers[paths.index(path)] not in gone_peers:
            assert ours.returncode == 0 and line in ours.stdout.splitlines(), f"{path.name}: {ours.stderr}"
    return outcomes


@pytest.mark.parametrize("deal, players", TABLES, ids=[f"{d}-{n}" for d, n in TABLES])
def test_a_mixed_table_plays_as_a_python_one(deal: str, players: int, child: NodeSeats, tmp_path: Path) -> None:
    odd = players % 2 == 0  # the host is Python at an even table, TypeScript at an odd one
    table = Table(child, deal, players, seats_in_typescript(players, odd), seed=players * 11 + len(deal))
    table.each(lambda net: (net.start(), net.run()))
    outcomes = check(table, tmp_path)
    assert all(not o["dropped"] and not o["voided"] for o in outcomes)


@pytest.mark.parametrize("deal, seat, language, cut_at", [("open", 3, "TypeScript", 600), ("sealed", 2, "Python", 650),
                                                          ("draft", 1, "TypeScript", 350)])
def test_a_seat_that_goes_away_is_voted_out_by_both(deal: str, seat: int, language: str, cut_at: int,
                                                    child: NodeSeats, tmp_path: Path) -> None:
    """A seat cut off for good in the first round (open: at a turn; sealed: at a turn, after it shuffled; draft:
    during the picks): the others, Python and TypeScript, vote it out where the game waits on it, the stand-in
    plays its hand (the sealed round it shuffled is void, and it forfeits), and the game goes on to its end the same
    everywhere."""
    players = 5
    odd = {i for i in range(players) if i % 2 == 1}
    typescript = (odd | {seat} if language == "TypeScript" else odd - {seat}) | {players + 1}
    table = Table(child, deal, players, sorted(typescript), seed=40 + seat, rounds=2)
    assert table.mixed.is_typescript(table.mixed.identities[seat].peer) == (language == "TypeScript")
    for net in table.nets:
        cut_off(net, seat, cut_at)
        assert net.vote_out(seat) == players - 1
        net.run()
    outcomes = check(table, tmp_path, gone=seat)
    finished = [o for i, o in enumerate(outcomes) if i != seat]
    assert [d[0] for d in finished[0]["dropped"]] == [seat]
    sealed = deal == "sealed"
    assert finished[0]["voided"] == ([0] if sealed else []) and finished[0]["forfeits"] == ([seat] if sealed else [])
    assert finished[0]["winners"] and seat not in finished[0]["winners"] or not sealed


@pytest.mark.parametrize("deal, seat, language, cut_at", [("open", 1, "TypeScript", 220), ("sealed", 2, "Python", 200),
                                                          ("sealed", 1, "TypeScript", 30)])
def test_a_dropped_seat_takes_its_seat_back(deal: str, seat: int, language: str, cut_at: int, child: NodeSeats,
                                            tmp_path: Path) -> None:
    """A seat cut off and voted out (at a turn of the first round; or, the last, before it shuffled); the cut heals,
    its node learns it was dropped and asks back (REJOIN); the ROUND_ENDs of the round list it (Python's and
    TypeScript's), and it plays again from the next round, on its own node, with its score (a sealed round it left
    after shuffling is void, and it forfeits: it plays the rounds after with its hand dealt open, 17.9)."""
    players = 4
    odd = {i for i in range(players) if i % 2 == 1}
    typescript = (odd | {seat} if language == "TypeScript" else odd - {seat}) | {players + 1}
    table = Table(child, deal, players, sorted(typescript), seed=70 + seat, rounds=3)
    x = table.mixed.identities[seat].peer
    assert table.mixed.is_typescript(x) == (language == "TypeScript")
    for net in table.nets:
        voted_out_and_asked_back(net, seat, cut_at)
    outcomes = check(table, tmp_path)
    assert all(o["dropped"] == [] for o in outcomes)  # back
    void = deal == "sealed" and cut_at > 30
    assert all(o["voided"] == ([0] if void else []) and o["forfeits"] == ([seat] if void else []) for o in outcomes)
    # its own node played its seat again after its return: its reveals of the last round are its own
    host = bytes(table.mixed.transcripts[table.mixed.peers[0]])
    own = [open_envelope(payload) for kind, payload in records(host) if kind == "msg"]
    own = [e for e in own if e.sender == x]
    assert any(e.kind == "REJOIN" for e in own)
    assert sum(e.kind == "PLAY_REVEAL" and e.body["round"] == 2 for e in own) == 10


@pytest.mark.parametrize("deal", ["open", "sealed"])
def test_a_seat_dropped_back_and_dropped_again_is_rebuilt_without_either_stretch(deal: str, child: NodeSeats,
                                                                                tmp_path: Path) -> None:
    """Seat 1 (TypeScript) is cut off and voted out, heals, asks back and plays again; then it is cut off again and
    voted out again, at a step its own node had gone past. Its node rebuilds leaving out its messages of both
    stretches (from each drop until the round it came back in after it), as the reference does (Table.rewinds). Was:
    one position per seat, each rebuild undid the other's, and the node rebuilt for ever ("61 rebuilds in one
    input"; before 44b9736 a RangeError); found by a review of that commit."""
    seat, players = 1, 4
    table = Table(child, deal, players, [1, 3, 5], seed=70 + seat, rounds=3)
    x = table.mixed.identities[seat].peer
    assert table.mixed.is_typescript(x)
    for net in table.nets:
        cut_off(net, seat, 220)
        assert net.vote_out(seat) == players - 1
        net.run(limit=40)
        net.heal()
        asked, steps = False, 0
        while net.queue and steps < 400:
            net.run(limit=1)
            steps += 1
            if not asked and seat in net.dropped_at(x):
                net.handle(x, net.sessions[x].rejoin())  # type: ignore[union-attr]
                asked = True
        assert asked
        net.cut = {x}
        net.run()
        assert net.vote_out(seat) == players - 1
        net.run(limit=40)
        net.heal()
        net.run()
    outcomes = check(table, tmp_path)
    # dropped again in a later round than the first drop's (round 1): it was back in between
    assert all(o["dropped"] and o["dropped"][0][0] == seat and o["dropped"][0][1][0] >= 1 for o in outcomes), outcomes
    assert max(rebuilds_of(table.mixed)) <= 4


def rebuilds_of(net: Mixed) -> list[int]:
    """Each TypeScript node's rebuilds in this game (its session's report)."""
    return [net.sessions[p].report()["rebuilds"] for p in net.peers if net.is_typescript(p)]  # type: ignore[union-attr]


def alarms_of(net: Mixed, peer: bytes) -> list[int]:
    """The seats whose SEALED_KEYS with alarm=true `peer`'s transcript holds (round 0)."""
    seats = {ident.peer: i for i, ident in enumerate(net.identities)}
    found = [open_envelope(payload) for kind, payload in records(bytes(net.transcripts[peer])) if kind == "msg"]
    return [seats[e.sender] for e in found if e.kind == "SEALED_KEYS" and e.body["round"] == 0 and e.body["alarm"]]


def unplayed(net: Mixed, seat: int) -> list[int]:
    """The cards seat `seat`'s own node still holds (a TypeScript node says; a Python one shows its view)."""
    session: Any = net.sessions[net.identities[seat].peer]
    if net.is_typescript(net.identities[seat].peer):
        return list(session.child.call("hand", session.index)["hand"])
    return sorted(session.view().hand)


@pytest.mark.parametrize("cheat", ["hand-does-not-open", "its-card-played"])
def test_a_typescript_seat_raises_the_alarm(cheat: str, child: NodeSeats, tmp_path: Path) -> None:
    """A Python seat cheats in a sealed game and only a TypeScript seat can see it (protocol.md 17.8): the last
    shuffler puts a point nobody can open into the TypeScript seat 0's hand (its hand does not open), or seat 1
    plays, at turn 5, the highest unplayed card of the TypeScript seat 2's hand. The TypeScript seat reveals its
    keys at once with alarm=true, everyone reveals, the audit names the cheat, the round is void and the game
    goes on without it: as the Python seat in its place does, byte for byte."""
    from sealed_adversary import Cheat, change_field, swap_into_hand
    from test_sealed_game import substitute_in_victims_hand

    cheater, victim = (3, 0) if cheat == "hand-does-not-open" else (1, 2)
    table = Table(child, "sealed", 4, [victim, 5], seed=90 + victim, rounds=2)
    for net in table.nets:
        if cheat == "hand-does-not-open":
            made: Any = Cheat(net, cheater, change_field("SEALED_SHUFFLE", "deck", substitute_in_victims_hand))
        else:
            made = swap_into_hand(net, cheater, 5, lambda _session, net=net: max(unplayed(net, victim)))
        net.start()
        net.run()
        assert made.fired if isinstance(made, Cheat) else made["fired"]
    outcomes = check(table, tmp_path, gone=cheater)  # the cheat's own node is on its own (whatever it holds, alike)
    assert table.mixed.is_typescript(table.mixed.identities[victim].peer)
    for i, (peer, outcome) in enumerate(zip(table.mixed.peers, outcomes)):
        if i != cheater:
            assert victim in alarms_of(table.mixed, peer)
            assert outcome["voided"] == [0] and [seat for seat, _pos in outcome["dropped"]] == [cheater]


def cut_point(deal: str, players: int, seat: int, seed: int) -> int | None:
    """The first cut (every 40 deliveries from 80) after which every other seat waits on `seat` and, once they
    voted it out, the game ends: probed on an all-Python table (so the mixed table must do the same)."""
    variant, how = DEALS[deal]
    settings = Settings(players=players, variant=variant, max_rounds=2, point_limit=None, deal=how)
    for cut in range(80, 4000, 40):
        net = Mixed(players, settings=settings, seed=seed, spectators=2)
        cut_off(net, seat, cut)
        if net.sessions[net.peers[0]].phase == "over":
            return None
        if net.vote_out(seat) == players - 1:
            net.run()
            if all(net.sessions[p].phase == "over" for i, p in enumerate(net.peers) if i != seat):
                return cut
    return None


SWEEP_DROPS = [(deal, n, language) for deal in ("open", "sealed", "draft") for n in (3, 6, 9)
               for language in ("TypeScript", "Python")]


def sweep_a_seat_goes_away(deal: str, players: int, language: str, child: NodeSeats, tmp_path: Path) -> None:
    """P2PNIMMT_SWEEP=1: a seat (TypeScript or Python) cut off for good at the first point the others can vote it
    out, at 3, 6 and 9 seats of every deal: the checks of the module's docstring."""
    seat = 1 if language == "TypeScript" else 2
    seed = 200 + players
    cut = cut_point(deal, players, seat, seed)
    assert cut is not None, "no point to vote the seat out"
    odd = {i for i in range(players) if i % 2 == 1}
    typescript = (odd | {seat} if language == "TypeScript" else odd - {seat}) | {players + 1}
    table = Table(child, deal, players, sorted(typescript), seed=seed, rounds=2)
    for net in table.nets:
        cut_off(net, seat, cut)
        assert net.vote_out(seat) == players - 1
        net.run()
    outcomes = check(table, tmp_path, gone=seat)
    assert [d[0] for i, o in enumerate(outcomes) if i != seat for d in o["dropped"]][:1] == [seat]


if SWEEP:  # the long sweeps only (an empty parametrization would be a skip in the default run)
    test_sweep_a_seat_goes_away = pytest.mark.parametrize(
        "deal, players, language", SWEEP_DROPS, ids=[f"{d}-{n}-{lang}" for d, n, lang in SWEEP_DROPS])(
        sweep_a_seat_goes_away)


# ---------------------------------------------------------------- a node restarted (13)


RESTARTS = [("seat", "open", 90), ("seat", "open", 420), ("seat", "sealed", 300), ("seat", "draft", 160),
            ("spectator", "open", 420), ("spectator", "sealed", 300), ("spectator", "draft", 160)]


@pytest.mark.parametrize("node, deal, cut", RESTARTS, ids=[f"{n}-{d}-{c}" for n, d, c in RESTARTS])
def test_a_typescript_node_restarted_mid_game_finishes_it(node: str, deal: str, cut: int, child: NodeSeats,
                                                          tmp_path: Path) -> None:
    """protocol.md 13: the TypeScript seat 1's process (or the TypeScript spectator's, which relays and records
    only) dies mid-game (what was on its way to it is lost) and comes
    back from its transcript and secrets with its key and entropy (Seat.restart), as the Python node in its place
    comes back at the all-Python table; the others tell it what it lacks. It finishes the game: the same bytes as
    the Python node in its place, every transcript verifies by both verifiers. (This found that the TypeScript
    `replay` fault said other words than the reference's, and that a TypeScript node did not count as a replay a
    message its sender delivered again while it was held ahead of its chain: a TypeScript node given the restarted
    seat's messages again wrote another transcript than the Python node in its place.)"""
    table = Table(child, deal, 4, [1, 3, 5], seed=60 + cut % 7, rounds=2)
    for net in table.nets:
        victim = net.identities[1].peer if node == "seat" else net.watchers[1].peer
        net.start()
        net.run(limit=cut)
        assert net.outcome(victim)["phase"] not in ("over", "aborted")
        net.restart(victim)
        net.run()
    assert table.mixed.is_typescript(table.mixed.identities[1].peer) and table.mixed.is_typescript(table.mixed.peers[5])
    outcomes = check(table, tmp_path)
    assert all(not o["dropped"] for o in outcomes)


# ---------------------------------------------------------------- KEEP and several seats gone together (11.1)


def signed_in(net: Mixed, peer: bytes, kind: str) -> list[tuple[int, dict[str, Any]]]:
    """(signer's seat, body) of every `kind` message in `peer`'s transcript, in record order."""
    seats = {ident.peer: i for i, ident in enumerate(net.identities)}
    found = [open_envelope(payload) for what, payload in records(bytes(net.transcripts[peer])) if what == "msg"]
    return [(seats[e.sender], dict(e.body)) for e in found if e.kind == kind and e.sender in seats]


def unlinked(net: Mixed, peer: bytes) -> set[int]:
    """The seats whose messages do not reach `peer` (cut off, or on the other side of a split)."""
    return {seat for seat, ident in enumerate(net.identities) if ident.peer != peer and (
        ident.peer in net.cut or peer in net.cut or net.withhold is not None and net.withhold(peer, ident.peer, b""))}


def timers(net: Mixed) -> None:
    """Every seat's drop timer runs out, until nothing is left to deliver (tests/protocol/test_two_gone.py's rule):
    it votes out each seat it waits for that it has no link to, and while it waits, each other seat it has no link
    to (gone too: it would otherwise have to vote, protocol.md 11.1, "Several seats gone together"). A seat so voted
    out is gone from every node's view: a node that comes to wait on it later joins a vote on it on sight (Net.gone,
    the node's policy)."""
    while True:
        voted = False
        for ident in net.identities:
            if ident.peer in net.cut:
                continue
            session: Any = net.sessions[ident.peer]
            away = unlinked(net, ident.peer)
            net.gone |= away
            waiting = set(session.waiting_for())
            for seat in sorted(waiting & away | (away if waiting else set())):
                try:
                    net.handle(ident.peer, session.drop(seat))
                    voted = True
                except LocalError:
                    pass  # voted already, or nothing to vote on there
        net.run()
        if not voted:
            return


def differs(ours: bytes | bytearray, theirs: bytes | bytearray) -> str:
    """The first record where two transcripts differ, both versions (for a failure's message)."""
    a, b = list(records(bytes(ours))), list(records(bytes(theirs)))
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"record {k + 1}:\n this node: {x}\n Python's:  {y}"
    return f"{len(a)} and {len(b)} records"


def node_by_node(table: Table, tmp_path: Path) -> list[dict[str, Any]]:
    """Each node of the mixed table as the node of the all-Python table in its place: the same bytes sent, the same
    transcript, the same outcome; both verifiers give each transcript the same verdict and report. The outcomes."""
    ref, mixed = table.nets
    outcomes = []
    for i, peer in enumerate(mixed.peers):
        kind = "TypeScript" if mixed.is_typescript(peer) else "Python"
        outcome, theirs = mixed.outcome(peer), ref.outcome(peer)
        assert outcome == theirs, f"node {i} ({kind}): {outcome} where the Python node has {theirs}"
        assert mixed.away_seen[peer] == ref.away_seen[peer], f"node {i} ({kind}) counted other seats away (11.2)"
        assert mixed.sent[peer] == ref.sent[peer], f"node {i} ({kind}) sent other bytes"
        assert bytes(mixed.transcripts[peer]) == bytes(ref.transcripts[peer]), \
            f"node {i} ({kind}): other transcript: {differs(mixed.transcripts[peer], ref.transcripts[peer])}"
        path = tmp_path / f"node-{i}.p2pt"
        path.write_bytes(bytes(mixed.transcripts[peer]))
        verdict = verify_transcript(path.read_bytes())
        ours = (verdict.ok, "\n".join(neutral(text) for text in verdict.report().splitlines()))
        answer = table.child.call("verify", -1, path=str(path))
        assert (answer["ok"], answer["report"]) == ours, f"{path.name}:\n Python {ours}\n TypeScript {answer}"
        outcomes.append(outcome)
    return outcomes


def test_a_finished_node_does_not_rebuild_for_late_drops(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11, "After the end": seat 1's GAME_END reaches its own node and the spectators but not seats 0 and
    2, which vote seat 1 out at the game's end and finish without it. Their DROPs come to seat 1's node (TypeScript)
    and the spectators (one Python, one TypeScript) after these finished: a finished node takes no further step, so
    none of them rebuilds to drop seat 1; each holds the result it reached, as the Python node in its place does.
    (Before, a finished TypeScript node found the vote complete at a position it had gone past and rebuilt.)"""
    table = Table(child, "open", 3, [1, 2, 4], seed=5, rounds=1)
    for net in table.nets:
        x = net.identities[1].peer
        voters = {net.identities[0].peer, net.identities[2].peer}

        def late(to: bytes, _frm: bytes, wire: bytes, x: bytes = x, voters: set[bytes] = voters) -> bool:
            env = open_envelope(wire)
            return to in voters and env.sender == x and env.kind == "GAME_END"

        net.withhold = late
        net.start()
        net.run()
        assert [net.outcome(p)["phase"] for p in net.peers] == ["game-end", "over", "game-end", "over", "over"]
        assert net.vote_out(1) == 2
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes] == ["over"] * 5
    assert [[seat for seat, _at in o["dropped"]] for o in outcomes] == [[1], [], [1], [], []]
    drops = [{seat for seat, _body in signed_in(table.mixed, peer, "DROP")} for peer in table.mixed.peers]
    assert drops == [{0, 2}, set(), {0, 2}, set(), set()]  # a finished node's transcript was sealed at its end


def test_a_typescript_seat_signs_keep_for_the_row_chooser_that_voted(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.1, "KEEP": seat 0 is cut off during turn 2 of four seats; the row chooser lacks its reveal and
    votes it out at the reveal step, while the TypeScript seat 2 holds every reveal and waits on the chooser's row,
    which the chooser cannot send while it holds back. Seat 2 signs KEEP(0, 6, seat 0): the vote is void, and once the
    cut heals the chooser uses seat 0's reveal and the game goes on with every seat (nobody is dropped). Before the
    TypeScript seat had KEEP it signed nothing there (other bytes than the Python seat in its place), and the table
    stopped. Seat 1, behind at the commits and back once the cut heals, has seat 0's reveal before its commit and
    signs KEEP(0, 6, seat 0) too as it goes past the reveals; until session 27 its session joined seat 3's vote there
    on sight instead, against a seat whose reveal it held (a seat joins a vote only by its own policy now,
    protocol.md 11.1)."""
    table = Table(child, "open", 4, [0, 2, 5], seed=1, rounds=1)
    for net in table.nets:
        cut_off(net, 0, 346)
        assert net.vote_out(0) == 2
        net.run()
        net.heal()
        net.run()
    assert table.mixed.is_typescript(table.mixed.identities[2].peer)
    outcomes = check(table, tmp_path)
    assert all(o["dropped"] == [] for o in outcomes)
    for peer in table.mixed.peers:
        keeps = signed_in(table.mixed, peer, "KEEP")
        assert sorted(seat for seat, _ in keeps) == [1, 2] and all(
            body == {"round": 0, "step": 6, "seat": 0} for _, body in keeps), keeps
        assert any(seat != 2 and body == {"round": 0, "step": 6, "seat": 0}
                   for seat, body in signed_in(table.mixed, peer, "DROP"))


def test_a_table_split_in_halves_keeps_every_seat_when_every_seat_voted(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.1, "KEEP when every seat voted": four seats split two and two ({0, 3} and {1, 2}, a TypeScript
    seat on each side); every seat votes out the two it cannot reach, neither side can drop the other (below five
    seats only the one-seat rule drops), and once the split heals every seat holds back on its own votes. Each signs
    KEEP for the seats it heard vote there, which voids every vote: the game goes on to its end with nobody dropped."""
    table = Table(child, "open", 4, [1, 3, 5], seed=1, rounds=1)
    for net in table.nets:
        side = {net.identities[0].peer, net.identities[3].peer}
        net.start()
        net.run(limit=120)
        net.withhold = lambda to, frm, _wire, side=side: (to in side) != (frm in side)
        net.run()
        timers(net)
        net.heal()
        net.run()
        timers(net)
    outcomes = check(table, tmp_path)
    assert all(o["dropped"] == [] for o in outcomes)
    keeps = signed_in(table.mixed, table.mixed.peers[0], "KEEP")
    assert {seat for seat, _body in keeps} == {0, 1, 2, 3}, keeps  # the TypeScript seats 1 and 3 among them


@pytest.mark.parametrize("deal, seed, cut, at, heal", [
    ("open", 2, 400, [0, 5, 0], False), ("sealed", 1, 400, [0, 5, 0], False), ("draft", 2, 150, [0, 0, 6], False),
    ("open", 2, 400, [0, 5, 0], True), ("sealed", 1, 400, [0, 5, 0], True)])
def test_two_seats_gone_at_once_are_dropped_together(deal: str, seed: int, cut: int, at: list[int], heal: bool,
                                                     child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.1, "Several seats gone together": seats 1 and 3 of five (one Python, one TypeScript) go at once
    in turn 2; the three others (the TypeScript seats 0 and 4 and the Python seat 2) each vote out both. Neither can
    be dropped alone (each drop needs the other's vote), but every seat outside the set {1, 3} named both among its
    first m = 2 DROPs there, so both are dropped at one position, at once (in the draft: at a pick, a place of step
    0); the stand-in plays them (a sealed round they shuffled in is void, and they forfeit) and the game ends the
    same everywhere. `heal`: the two come back
    once the others finished; their own nodes (the TypeScript seat 3 among them) take the votes and drop themselves
    at that position too (rebuilding where they had gone past it), and finish the same game."""
    table = Table(child, deal, 5, [0, 3, 4, 6], seed=seed, rounds=2)
    for net in table.nets:
        net.start()
        net.run(limit=cut)
        net.cut = {net.identities[1].peer, net.identities[3].peer}
        net.run()
        timers(net)
        if heal:
            net.heal()
            net.run()
    outcomes = check(table, tmp_path, gone=None if heal else (1, 3))
    finished = outcomes if heal else [o for i, o in enumerate(outcomes) if i not in (1, 3)]
    assert finished[0]["dropped"] == [[1, at], [3, at]]
    sealed = deal == "sealed"
    assert finished[0]["voided"] == ([0] if sealed else []) and finished[0]["forfeits"] == ([1, 3] if sealed else [])
    for peer in (p for i, p in enumerate(table.mixed.peers) if i not in (1, 3)):
        drops = signed_in(table.mixed, peer, "DROP")
        for voter in (0, 2, 4):  # each named both, and neither seat was ever voted out by every other seat
            assert {body["seat"] for seat, body in drops if seat == voter and
                    [body["round"], body["step"], body.get("place", 0)] == at} == {1, 3}


REBUILDS_AT_MOST = 60  # a node that rebuilds its table more often rebuilds it for ever (mixed.ts throws past as many)


def counting_rebuilds(monkeypatch: pytest.MonkeyPatch) -> dict[int, int]:
    """Each Python session's rebuilds of its table (Session._rebuild), by the session's id, from now on: one past
    REBUILDS_AT_MOST fails the test there (a TypeScript node's are counted by mixed.ts, which throws past as many in
    one input: its rebuilds, unlike the reference's, may come each inside the last)."""
    counts: dict[int, int] = {}
    rebuild = Session._rebuild

    def counted(self: Session) -> None:
        counts[id(self)] = counts.get(id(self), 0) + 1
        assert counts[id(self)] <= REBUILDS_AT_MOST, "a node rebuilds for ever"
        rebuild(self)

    monkeypatch.setattr(Session, "_rebuild", counted)
    return counts


def rebuilds(net: Mixed, counts: dict[int, int]) -> list[int]:
    """How many times each node of `net` rebuilt its table."""
    sessions: list[Any] = [net.sessions[p] for p in net.peers]
    return [s.report()["rebuilds"] if net.is_typescript(p) else counts.get(id(s), 0) for p, s in zip(net.peers, sessions)]


def gone_and_back(table: Table, cut: int, seats: tuple[int, int]) -> None:
    """tests/protocol/test_two_gone.py's run at a mixed table: `cut` deliveries, then `seats` cut off at once
    (each alone); every other seat's timer votes out both, which drops them together, and the game goes on to its
    end without them; then the cut heals and the two (and whoever lacked the votes) take it all in."""
    for net in table.nets:
        net.start()
        net.run(limit=cut)
        net.cut = {net.identities[s].peer for s in seats}
        net.run()
        timers(net)
        rest = [p for i, p in enumerate(net.peers) if i not in seats]
        assert all(net.outcome(p)["phase"] == "over" and net.dropped_at(p) == sorted(seats) for p in rest)
        net.heal()
        net.run()
        timers(net)


@pytest.mark.parametrize("cut, typescript, at, forfeits, rebuilt", [
    (250, [1, 3, 4, 7], [0, 1, 2], [2, 4], 1), (260, [1, 3, 4, 5, 7], [0, 1, 2], [2, 4], 1),
    (205, [0, 2, 4, 7], [0, 0, 4], [2], 2)], ids=["unlock", "unlock-held-back", "shuffle"])
# ("shuffle" was cut at 200 until session 27: since a seat joins a vote only by its node's policy (protocol.md 11.1,
# timers' Net.gone), seat 4 came back there having gone past 2's drop only, and rebuilt once; at 205 it is the shape
# below again, past both)
def test_a_typescript_seat_back_after_a_drop_that_voided_the_round_drops_itself_without_rebuilding_for_ever(
        cut: int, typescript: list[int], at: list[int], forfeits: list[int], rebuilt: int, child: NodeSeats,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21 item 2, the shape of test_two_gone.py's test_a_seat_back_after_a_drop_that_voided_the_round_drops_
    itself_without_rebuilding_for_ever with seat 4 in TypeScript (six seats, sealed; seats 2 and 4 cut off during
    the deal of the first round; some other seats and a spectator in TypeScript too): the four others drop both at
    one position, which voids the round (seat 2 shuffled). Back, seat 4's node has the votes against 2 complete
    before those against itself: it drops 2 there (or rebuilds for 2, had it gone past), which voids the round, and
    then finds its own drop complete behind it and rebuilds without its messages from there on. The rebuilt table
    must not go past the void without its own drop there (the reference's steps.rewind_pending; TypeScript's
    settleVoid waits for it), or else make that drop where it was (the reference's count_votes, and TypeScript's
    checkVotes), or each rebuild finds that drop behind it again, for ever: it rebuilds once (twice, if it had gone
    past 2's drop too), as the Python node in its place does, both are dropped at that position, those that shuffled forfeit, and every node ends with the
    same game and transcript. (Without the reference's guards its seat 4 in the all-Python table rebuilds for ever.)

    "unlock": at seat 2's unlock, (0, 1, 2), as in test_two_gone.py (the TypeScript seat rebuilt for ever without
    both of its guards). "unlock-held-back": the same, but seat 4 has 2's unlock before the last vote against 2,
    having voted itself: it holds the unlock back (its own vote is open at 2's place, 11.1) and drops 2 there;
    before, the TypeScript seat looked for its vote at place 0 of the unlocks (and of the shuffles), used the
    unlock, went past and rebuilt for 2: the same game, but no `absent` record of seat 2 in its transcript where
    the Python seat's has one. "shuffle": at seat 4's shuffle, (0, 0, 4) (4 did not shuffle: only 2 forfeits);
    seat 4 had gone past it and rebuilds for 2, then for itself; before, the TypeScript seat 4 rebuilt for ever there
    (checkVotes rebuilt for 2 again and again)."""
    counts = counting_rebuilds(monkeypatch)
    table = Table(child, "sealed", 6, typescript, seed=0, rounds=2)
    assert table.mixed.is_typescript(table.mixed.identities[4].peer)
    gone_and_back(table, cut, (2, 4))
    outcomes = check(table, tmp_path)
    assert all(o["dropped"] == [[2, at], [4, at]] for o in outcomes)  # at one position
    assert all(o["voided"] == [0] and o["forfeits"] == forfeits for o in outcomes)
    counted = rebuilds(table.mixed, counts)
    assert counted == rebuilds(table.reference, counts), counted  # the same inputs, the same rebuilds
    assert counted[4] == rebuilt, counted  # it went past its own drop: rebuilt for it (for 2 first, if past it too)


def test_a_typescript_spectator_does_not_rebuild_for_ever_for_two_seats_dropped_together_behind_it(
        child: NodeSeats, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same run cut later (six seats, sealed, seats 2 and 4 cut off during the unlocks; the spectator 0 in
    TypeScript): the four others drop both together at seat 4's unlock, (0, 1, 4). The spectator had seat 4's
    unlock and went past it; the votes come to it after the heal, both complete there, and it rebuilds without
    seat 2's messages from there on (the first of the two), which still leaves 4's unlock to go past on: the drop
    of 2 is behind it again. Rebuilding for 2 again would be the same table, for ever: it drops 2 where it was,
    then rebuilds for 4 (the reference's count_votes on its Table.rewinds). Before, the TypeScript spectator rebuilt
    for 2 without end (mixed.ts stopped it at 61 rebuilds in one input) where the Python node in its place rebuilt
    twice."""
    counts = counting_rebuilds(monkeypatch)
    table = Table(child, "sealed", 6, [1, 3, 4, 6], seed=0, rounds=2)
    assert table.mixed.is_typescript(table.mixed.watchers[0].peer)
    gone_and_back(table, 340, (2, 4))
    outcomes = check(table, tmp_path)
    assert all(o["dropped"] == [[2, [0, 1, 4]], [4, [0, 1, 4]]] for o in outcomes)  # at one position: 4's unlock
    assert all(o["voided"] == [0] and o["forfeits"] == [2, 4] for o in outcomes)
    counted = rebuilds(table.mixed, counts)
    assert counted == rebuilds(table.reference, counts), counted
    assert counted[6] == 2, counted  # for 2, then for both


# ---------------------------------------------------------------- the clock, STANDIN and away (11.2)


def auto_flags(net: Mixed, peer: bytes, seat: int) -> list[bool]:
    """The `auto` of each PLAY_REVEAL of `seat` in `peer`'s transcript, in record order."""
    return [body.get("auto") is True for signer, body in signed_in(net, peer, "PLAY_REVEAL") if signer == seat]


@pytest.mark.parametrize("deal", ["open", "sealed", "draft"])
def test_a_clock_that_runs_out_plays_the_stand_in_alike(deal: str, child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.2: the START carries a 30 s clock; the clocks of seat 1 (TypeScript) and seat 2 (Python) run out
    on every move they owe, so each one's own node makes it by the stand-in's rule (the lowest card of the hand, open
    or opened sealed; the row with the fewest bull heads; in the draft, the lowest open card), marked auto on its
    PLAY_REVEAL and ROW_CHOICE. Every node sends the same bytes as the all-Python table, both verifiers agree, and
    every node counts both seats away. (The draft: before the TypeScript seat made the stand-in's pick, its
    `standIn` refused with "not now: the game is in phase deal".)"""
    table = Table(child, deal, 4, [1, 3, 5], seed=21, rounds=1, clock=30)
    for net in table.nets:
        net.clocked = {net.identities[1].peer, net.identities[2].peer}
        net.start()
        net.run()
    check(table, tmp_path)
    mixed = table.mixed
    for seat in (1, 2):  # each pick of a clocked seat was the lowest open card when it was owed
        peer = mixed.identities[seat].peer
        owed = [min(due[1]) for due in mixed.moves[peer] if due[0] == "pick"]
        assert len(owed) == (10 if deal == "draft" else 0)
        assert [body["card"] for signer, body in signed_in(mixed, peer, "DRAFT_PICK") if signer == seat] == owed
    for peer in mixed.peers:
        assert auto_flags(mixed, peer, 1) == [True] * 10 and auto_flags(mixed, peer, 2) == [True] * 10
        assert auto_flags(mixed, peer, 0) == [False] * 10
        assert mixed.away(peer) == [1, 2]  # on every node, Python or TypeScript


@pytest.mark.parametrize("stalled", [1, 2])
def test_nobody_asks_the_stand_in_for_a_draft_pick(stalled: int, child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.2: STANDIN names a turn, so nobody can ask the stand-in for a draft pick. Seat `stalled` (1
    TypeScript, 2 Python) holds up the draft; every other seat (TypeScript and Python) refuses its person's ask with
    the same words, and signs nothing. Then the seat picks and the game ends as the all-Python table's."""
    table = Table(child, "draft", 4, [1, 3, 5], seed=34, rounds=1)
    for net in table.nets:
        x = net.identities[stalled].peer
        net.stalled = {x}
        net.start()
        net.run()
        refusals = []
        for ident in net.identities:
            session: Any = net.sessions[ident.peer]
            if ident.peer == x:
                continue
            assert tuple(session.waiting_for()) == (stalled,)
            with pytest.raises(LocalError) as refused:
                session.ask_stand_in(stalled)
            refusals.append(str(refused.value))
        assert refusals == ["not now: the game is in phase deal"] * 3
        net.stalled = set()
        net.move(x)
        net.run()
    check(table, tmp_path)
    for peer in table.mixed.peers:
        assert signed_in(table.mixed, peer, "STANDIN") == []


@pytest.mark.parametrize("stalled", [1, 2])
def test_the_others_ask_the_stand_in_for_a_stalled_seat(stalled: int, child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.2, no clock: seat `stalled` (1 TypeScript, 2 Python) is linked but its person never moves.
    Each other seat that waits on its move signs STANDIN(r, t, seat) (TypeScript and Python seats among them); once
    every other seat asked, the stalled seat's own node makes the move by the stand-in's rule, marked auto, and the
    game goes on: the same bytes everywhere, nobody dropped, the seat away on every node."""
    table = Table(child, "open", 4, [1, 3, 5], seed=33, rounds=1)
    for net in table.nets:
        x = net.identities[stalled].peer
        net.stalled = {x}
        net.start()
        net.run()
        for _ in range(100):
            asked = every_other_asks_the_stand_in(net, stalled)
            net.run()
            if not asked:
                break
    outcomes = check(table, tmp_path)
    assert all(o["dropped"] == [] for o in outcomes)
    mixed = table.mixed
    for peer in mixed.peers:
        assert auto_flags(mixed, peer, stalled) == [True] * 10
        asks = signed_in(mixed, peer, "STANDIN")
        assert {signer for signer, _body in asks} == {0, 1, 2, 3} - {stalled}
        assert len(asks) >= 3 * 10 and all(body["seat"] == stalled for _signer, body in asks)
        assert mixed.away(peer) == [stalled]  # on every node, Python or TypeScript


@pytest.mark.parametrize("deal", ["open", "sealed"])
def test_typescript_seats_vote_out_a_python_seat_whose_reveal_lies(deal: str, child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11, "A reveal naming another commit set": the Python seat 2 names a commit set nobody holds in its
    reveal of turn 2. Every seat, TypeScript or Python, counts that reveal as missing and waits on seat 2 (before, the
    TypeScript seats waited on nobody and the table stopped for good); they vote it out as an absent seat and finish
    alike (in a sealed deal the round is void and seat 2 forfeits)."""
    import hashlib

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary

    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> None:
        if env.kind == "PLAY_REVEAL" and body["round"] == 0 and body["turn"] == 2:
            body["commits"] = hashlib.sha256(b"a set nobody saw").digest()
            adv.fired = True

    table = Table(child, deal, 4, [1, 3, 5], seed=3, rounds=2)
    for net in table.nets:
        broken_by(net, 2, rule)
        waited_on_and_voted_out(net, 2)
    outcomes = check(table, tmp_path, gone=2)
    honest = honest_of(table, outcomes, 2)
    assert all(o["phase"] == "over" and [s for s, _at in o["dropped"]] == [2] for o in honest), honest


def test_typescript_seats_vote_out_a_split_seat_that_reveals_on_its_other_version(child: NodeSeats,
                                                                                 tmp_path: Path) -> None:
    """protocol.md 12, "Decided": the Python seat 2 signs two commits for turn 2 and sends both to everyone, its own
    first; every other seat names the first, so seat 2 keeps its seat, but its own reveal names the set with its
    other version. Every seat counts that reveal as missing and votes seat 2 out (before, the TypeScript seats
    waited on nobody)."""
    import hashlib

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary

    from p2pnimmt.protocol.commitments import commit_set_digest

    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if env.kind == "PLAY_COMMIT" and body["round"] == 0 and body["turn"] == 2:
            a = adv.chain(env.kind, body, env)
            b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, commit=hashlib.sha256(b"another").digest()))
            adv.state["other"] = b.hash
            return adv.to(a.wire) + adv.to(b.wire)
        if env.kind == "PLAY_REVEAL" and body["round"] == 0 and body["turn"] == 2:
            commits = adv.session.slot("PLAY_COMMIT", 0, 2)
            body["commits"] = commit_set_digest([adv.state["other"] if s == adv.seat else commits[s].hash
                                                 for s in sorted(commits)])
            adv.fired = True
        return None

    table = Table(child, "open", 4, [1, 3, 5], seed=4, rounds=1)
    for net in table.nets:
        net.shuffle_delivery = False
        broken_by(net, 2, rule)
        waited_on_and_voted_out(net, 2)
    # check(): every node's transcript and bytes sent as the Python node's in its place, byte for byte (before issue
    # 25's settling of the words, a TypeScript seat's record of the split's proof said "two different messages with
    # seq N" where the reference says "seat 2 (p2) signed two different messages #N (PLAY_COMMIT and PLAY_COMMIT)")
    outcomes = check(table, tmp_path, gone=2)
    honest = honest_of(table, outcomes, 2)
    assert all(o["phase"] == "over" and [s for s, _at in o["dropped"]] == [2] for o in honest), honest


def test_a_split_seat_that_reveals_on_each_version_is_voted_out_alike_and_nobody_aborts(child: NodeSeats,
                                                                                       tmp_path: Path) -> None:
    """protocol.md 8 (check 4) and 12: the Python seat 0 splits its commit of turn 3, version A to seat 1 and the
    spectators, B to seats 2 and 3, and reveals on each version (two copies of one seat's files do so). A node that
    holds the reveal on its own version when the other comes relayed judges it as the fork it is, as a node that
    does not hold it yet does: nobody aborts (before, such nodes aborted, the others played on:
    tests/net/test_copied_seat.py in CI). Seat 0 is expelled at the turn's commit step at every node, TypeScript
    seats 1 and 2 and the second spectator among them, with the same bytes as the Python node in each place."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from test_split_branches import TURN, branch_rule

    table = Table(child, "open", 4, [1, 2, 5], seed=2, rounds=1)
    for net in table.nets:
        net.shuffle_delivery = False
        broken_by(net, 0, branch_rule(net, 4, 2))
    outcomes = check(table, tmp_path, gone=0)
    honest = honest_of(table, outcomes, 0)
    assert all(o["phase"] == "over" and [s for s, _at in o["dropped"]] == [0] for o in honest), honest
    assert all(at == [0, 2 + 3 * TURN, 0] or tuple(at) == (0, 2 + 3 * TURN, 0)
               for o in honest for _s, at in o["dropped"]), honest


def test_a_split_seat_that_signs_on_above_one_version_is_voted_out_alike_and_nobody_aborts(child: NodeSeats,
                                                                                           tmp_path: Path) -> None:
    """protocol.md 12, *Above a split commit*: the Python seat 3 splits its commit of turn 3, version A to the
    TypeScript seat 1 and the TypeScript spectator, B to seats 0 (the host) and 2 and the other spectator, reveals on
    each version, then signs its commit of turn 4 on its reveal on A alone, to every node. A node holding B holds
    that fork until the turn's reveals decide: the seats named both versions, so seat 3 is expelled from its split
    commit and the fork is dropped everywhere (before, the nodes on B aborted, those on A played on). Every node ends
    the game alike, TypeScript seats 1 and 2 and the spectator with the same bytes as the Python node in each place."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from test_split_fork import TURN, fork_rule

    table = Table(child, "open", 4, [1, 2, 5], seed=3, rounds=1)
    for net in table.nets:
        net.shuffle_delivery = False
        first = [net.identities[1].peer, net.watchers[1].peer]
        broken_by(net, 3, fork_rule(net, 4, 3, 3, first))
    outcomes = check(table, tmp_path, gone=3)
    honest = honest_of(table, outcomes, 3)
    assert all(o["phase"] == "over" and [s for s, _at in o["dropped"]] == [3] for o in honest), honest
    assert all(tuple(at) == (0, 2 + 3 * TURN, 0) for o in honest for _s, at in o["dropped"]), honest


def test_two_reveals_of_one_commit_held_then_judged_abort_every_node_alike(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 12, *Above a split commit*: the Python seat 3 signs two PLAY_REVEALs of its one commit of turn 3
    (the second names a commit set nobody holds), each to half the nodes. The pair lies above its commit of a turn
    not decided yet: every node holds it until the other seats' reveals are in, then judges it (fatal). Every node,
    TypeScript or Python, ends aborted on seat 3's equivocation with the bytes, transcript and verdicts of the Python
    node in its place (a node that judged the pair before or after another had signed its reveal would differ)."""
    import hashlib

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary

    table = Table(child, "open", 4, [1, 2, 5], seed=4, rounds=1)
    for net in table.nets:
        def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
            if env.kind != "PLAY_REVEAL" or body["round"] != 0 or body["turn"] != 2:
                return None
            one = adv.chain(env.kind, body, env)
            other = adv.seal_at(one.seq, one.prev, env.kind, dict(body, commits=hashlib.sha256(b"no set").digest()))
            adv.fired = True
            half = adv.others[::2]
            return adv.to(one.wire, half) + adv.to(other.wire, [p for p in adv.others if p not in half])

        broken_by(net, 3, rule)
    outcomes = node_by_node(table, tmp_path)
    honest = honest_of(table, outcomes, 3)
    assert [o["phase"] for o in honest] == ["aborted"] * 5, [o["phase"] for o in outcomes]
    assert all(o["fault"]["code"] == "equivocation" for o in honest), honest


def split_on_two_states(table: Table, shown: str, hold: bool) -> None:
    """Seat 0 (Python) signs two commits for turn 2 of round 0, its own (A) and one on another `state` (B), B first
    to seats 1 and 2 (`shown` "seats") or to the two spectators, A first to the others; with `hold`, the version a
    node was not shown reaches it only once nothing else moves; both tables play until nothing more happens."""
    import hashlib

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary

    for net in table.nets:
        to_b = [net.identities[1].peer, net.identities[2].peer] if shown == "seats" else [w.peer for w in net.watchers]

        def rule(adv: Adversary, env: Any, body: dict[str, Any], to_b: list[bytes] = to_b) -> Any:
            if env.kind != "PLAY_COMMIT" or body["round"] != 0 or body["turn"] != 2:
                return None
            a = adv.chain(env.kind, body, env)
            b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, state=hashlib.sha256(b"another game").digest()))
            adv.state["first"] = {p: (b.wire if p in to_b else a.wire) for p in adv.others}
            adv.state["pair"] = {a.wire, b.wire}
            adv.fired = True
            return list(adv.state["first"].items())

        adv = Adversary(net, 0, rule)
        if hold:
            net.withhold = lambda to, frm, wire, adv=adv: (wire in adv.state.get("pair", ())
                                                           and wire != adv.state["first"].get(to, wire))
        net.start()
        net.run()
        net.heal()
        net.run()
        assert adv.fired


SPLIT_STATE = [("open", "seats", False), ("open", "spectators", True), ("sealed", "seats", False),
               ("sealed", "seats", True), ("sealed", "spectators", False)]


@pytest.mark.parametrize("deal, shown, hold", SPLIT_STATE)
def test_a_seat_that_splits_its_commit_on_two_states_aborts_every_node_alike(deal: str, shown: str, hold: bool,
                                                                              child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 12, "Two commits with another `state`": the Python seat 0 signs two commits for turn 2, its own
    (A) and one on another `state` (B), B first to the TypeScript seat 1 and the Python seat 2 (or to both
    spectators, one of each), A first to the others; with `hold`, the version a node was not shown reaches it only
    once nothing else moves. What a node does at the turn's state check depends on the version it took first, so
    the pair is no split commit: every node that holds both aborts, and every node, TypeScript or Python, ends
    aborted on seat 0's equivocation, with the bytes, transcript and verdicts of the Python node in its place
    (before, the TypeScript peer kept both as a split commit where the reference aborted: other bytes; and both
    left nodes waiting for ever, chaos seed 52)."""
    table = Table(child, deal, 4, [1, 3, 5], seed=6, rounds=1)
    split_on_two_states(table, shown, hold)
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes[1:]] == ["aborted"] * 5, [o["phase"] for o in outcomes]
    assert all(o["fault"]["code"] == "equivocation" for o in outcomes[1:]), outcomes


def test_an_aborted_node_refuses_every_ask_alike(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11: an aborted session signs nothing more, whatever its person asks there: the ask is refused,
    `the game was aborted`, by a TypeScript node as by a Python one (before, the TypeScript peer refused only a
    REJOIN and took every other ask in silence: no message, no refusal for its page to show; the Python session
    refused each for another reason, `not now: the game is in phase aborted` or, for a vote, `the game is not
    waiting for seat 2`). Seats 1 (TypeScript), 2 (Python) and 3 (TypeScript) end aborted on seat 0's two commits on
    two states; each is asked for every move, a vote, the stand-in and its seat back, and sends nothing."""
    table = Table(child, "open", 4, [1, 3, 5], seed=6, rounds=1)
    split_on_two_states(table, "seats", False)
    for net in table.nets:
        for seat in (1, 2, 3):
            peer = net.identities[seat].peer
            session: Any = net.sessions[peer]
            asks: dict[str, Callable[[], list[Any]]] = {
                "play": lambda s=session: s.play(1), "row": lambda s=session: s.choose_row(0),
                "pick": lambda s=session: s.pick(1), "auto": session.play_stand_in,
                "drop": lambda s=session, x=(seat % 3) + 1: s.drop(x), "rejoin": session.rejoin,
                "standin": lambda s=session, x=(seat % 3) + 1: s.ask_stand_in(x)}
            sent = len(net.sent[peer])
            for what, ask in asks.items():
                with pytest.raises(LocalError) as refused:
                    net.handle(peer, ask())
                assert str(refused.value) == "the game was aborted", (seat, what, str(refused.value))
            assert len(net.sent[peer]) == sent
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes[1:]] == ["aborted"] * 5, [o["phase"] for o in outcomes]


PROOFS = {"bad-body": [{"seat": 0, "x": 1}], "unexpected": [{"seat": 3}], "duplicate": [{"seat": 0}, {"seat": 0}]}
DROPPED_PROOFS = [("open", 120, "bad-body"), ("draft", 150, "bad-body"), ("sealed", 200, "bad-body"),
                  ("open", 120, "unexpected"), ("draft", 150, "duplicate"), ("sealed", 200, "duplicate")]


@pytest.mark.parametrize("deal, cut_at, proof", DROPPED_PROOFS)
def test_a_seat_being_dropped_is_expelled_by_its_own_proof_in_either_order(deal: str, cut_at: int, proof: str,
                                                                            child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 9, item 1 (issue 21's leftover): seat 3, cut off and voted out, signed a STANDIN with a field no
    STANDIN has (`bad-body`), or naming itself (`unexpected`), or two STANDINs for one slot (`duplicate`), that reach
    the TypeScript seat 1 alone, before the votes or once seat 1 has dropped seat 3. Before, seat 3 was expelled in
    the first order only (the messages of a dropped seat were not checked at all; since issue 21's first leftover
    items 2 and 3, since its second items 4 to 7 but 6 run whether or not it is dropped here): both orders expel
    it, and every node, TypeScript or Python, writes the transcript the Python node in its place writes."""
    from p2pnimmt.protocol.envelope import seal

    ends = {}
    for order in ("first", "after"):
        table = Table(child, deal, 4, [1, 5], seed=cut_at, rounds=1)
        bad: list[Any] = []
        for net in table.nets:  # the reference first: its seat 1 tells where seat 3's chain ends there
            gone, at = net.identities[3], net.identities[1].peer
            cut_off(net, 3, cut_at)
            if not bad:
                session: Any = table.reference.sessions[at]
                seq, prev = session.inbox.head(gone.peer)
                for fields in PROOFS[proof]:
                    bad.append(seal(gone, net.game_id, seq, prev, "STANDIN", {"round": session.table.round,
                                                                              "turn": session.table.turn, **fields}))
                    seq, prev = seq + 1, bad[-1].hash
            if order == "after":
                assert net.vote_out(3) == 3
                while 3 not in net.dropped_at(at):
                    net.run(limit=1)
            for env in bad:
                net.handle(at, net.sessions[at].receive(env.wire, gone.peer))
            net.run()
            if order == "first":
                net.vote_out(3)  # none: seat 3 is expelled, so dropped with no vote where the game waits on it
            net.run()
        (tmp_path / order).mkdir()
        outcomes = node_by_node(table, tmp_path / order)
        ends[order] = [{k: v for k, v in o.items() if k != "fault"} for i, o in enumerate(outcomes) if i != 3]
        for i, peer in enumerate(table.mixed.peers):
            if i != 3:
                codes = [body["code"] for what, body in records(bytes(table.mixed.transcripts[peer])) if what == "fault"]
                assert proof in codes, (order, i, codes)
                assert outcomes[i]["phase"] == "over" and outcomes[i]["fault"] is None, (order, i, outcomes[i])
    assert ends["first"] == ends["after"]



def gone_after_seed_commit(gone: bytes, late: bytes) -> Callable[[bytes, bytes, bytes], bool]:
    """A net's `withhold`: `gone` is gone after its SEED_COMMIT (nothing of it from seq 2 on reaches anyone), and
    that SEED_COMMIT never reaches `late` (it waits at the seed commits on `gone` while the others go on)."""

    def withhold(to: bytes, _frm: bytes, wire: bytes) -> bool:
        env = open_envelope(wire)
        return env.sender == gone and (env.seq >= 2 or to == late and env.kind == "SEED_COMMIT")

    return withhold

def test_a_seat_that_reaches_its_own_drop_is_dropped_there_as_the_reference_does(child: NodeSeats,
                                                                                  tmp_path: Path) -> None:
    """protocol.md 11, "Entropy" (a free choice, the reference's): five seats, open deal; seat 3 is gone after its
    SEED_COMMIT, which never reaches the TypeScript seat 1, so seat 1 waits at the seed commits (step 0) on seat 3 and
    votes it out there, while the others wait at the reveals (step 1) on seats 1 and 3 and drop both there together
    (11.1, "Several seats gone together"). Then seat 3's commit reaches seat 1: it comes to (0, 1), where it waits on
    seat 3 too and the drops of both are complete: it makes them, the same bytes as the Python node in its place.
    Found by the seeded chaos (tests/peer/chaos.py, seed 303): until session 27 a session joined on sight a vote on a
    seat it waited on, and like the reference's count_votes it signed that DROP (it is active there until the drops
    are made) before making the drops, where the TypeScript seat made the drops first and signed nothing ("sent
    other bytes"). Now a seat joins a vote only by its own policy, after the step (protocol.md 11.1): seat 1 owes
    nothing there, and is dropped signing only its vote at the seed commits."""
    table = Table(child, "open", 5, [1, 3, 6], seed=1, rounds=1)
    for net in table.nets:
        late, gone = net.identities[1].peer, net.identities[3].peer

        withhold = gone_after_seed_commit(gone, late)
        net.withhold = withhold
        net.start()
        net.run()
        assert net.sessions[late].waiting_for() == (3,)
        net.gone.add(3)  # seat 3 is gone from every node's view: a node waiting on it joins a vote on it on sight
        for voter in (0, 2, 4):  # (seat 3's node votes too: nothing it signs from here on comes out)
            session: Any = net.sessions[net.identities[voter].peer]
            assert session.waiting_for() == (1, 3)
            for seat in (1, 3):
                net.handle(net.identities[voter].peer, session.drop(seat))
        seat_1: Any = net.sessions[late]
        net.handle(late, seat_1.drop(3))
        net.run()
        commit = next(item for item in net.held if item[0] == late and open_envelope(item[2]).kind == "SEED_COMMIT")
        net.held.remove(commit)
        net.queue.append(commit)
        net.withhold = lambda _to, frm, wire, withhold=withhold: withhold(b"", frm, wire)  # seat 3 stays gone
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert all(o["dropped"] == [[1, [0, 1, 0]], [3, [0, 1, 0]]] for i, o in enumerate(outcomes) if i != 3), outcomes
    own = [body for seat, body in signed_in(table.mixed, table.mixed.peers[1], "DROP") if seat == 1]
    assert own == [{"round": 0, "step": 0, "seat": 3}], own  # (the others are over)


def test_a_seat_listed_back_at_the_last_round_end_stays_dropped(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.3: a seat is taken back before the next round is dealt; after the game's last round there is
    none. The TypeScript seat 1 of a one-round game is cut off and voted out, heals and asks back; every ROUND_END of
    the round lists it, and the game ends: it stays dropped on every node, its own included, as on the Python node in
    its place (it would play again from a round that never comes). Found by the seeded chaos (tests/peer/chaos.py,
    seeds 702 and 728, a seated seat's early REJOIN that counted once it was dropped): a TypeScript node took the seat
    back at the last round's end, so it held it active where the Python node held it dropped (no byte differed)."""
    seat, players = 1, 4
    table = Table(child, "open", players, [1, 3, 5], seed=71, rounds=1)
    for net in table.nets:
        voted_out_and_asked_back(net, seat, 220)
    outcomes = node_by_node(table, tmp_path)
    assert all(o["phase"] == "over" and [s for s, _at in o["dropped"]] == [seat] for o in outcomes), outcomes
    ends = signed_in(table.mixed, table.mixed.peers[0], "ROUND_END")
    assert ends and all(body.get("back") for _signer, body in ends), ends  # listed back by every signer


GAME_IS_OVER = "the game is over: no round is left to take your seat back in"


def test_a_seat_dropped_at_the_end_cannot_ask_back_and_a_late_rejoin_changes_nothing(child: NodeSeats,
                                                                                   tmp_path: Path) -> None:
    """protocol.md 11.3: after the game's last round no round is left to play again in. The TypeScript seat 1 of a
    one-round game is cut off and voted out, heals and never asks back; once its node is at game-end, and again once
    it is over, its ask is refused with one message by its TypeScript node as by the Python node in its place (before,
    both signed a REJOIN that changed nothing). A REJOIN of seat 1 that arrives anyway (an older node of the seat, a
    late copy), once at game-end and once more when every node is over, is taken alike by every node: no fault, every
    node over with the same scores, seat 1 still dropped, the same bytes and transcripts as the all-Python table's."""
    seat, players = 1, 4
    table = Table(child, "open", players, [1, 2, 5], seed=71, rounds=1)
    late: list[Outgoing] = []  # the REJOINs made at the reference table, sent at the mixed one at the same point

    def ask_back_refused(net: Mixed, x: bytes) -> None:
        with pytest.raises(LocalError) as refused:
            net.handle(x, net.sessions[x].rejoin())  # type: ignore[union-attr]
        assert str(refused.value) == GAME_IS_OVER

    def rejoin_arrives(net: Mixed, x: bytes, k: int) -> None:
        """Seat 1's k-th late REJOIN (the next of its chain as the reference's Python seat 1 holds it) goes out."""
        if net is table.reference:
            me: Any = net.sessions[x]
            before = open_envelope(late[-1].wire) if late else None  # not sent to seat 1's own node
            seq, prev = (before.seq + 1, before.hash) if before is not None else me.inbox.head(x)
            late.append(Outgoing(seal(net.identities[seat], net.game_id, seq, prev, "REJOIN", {"round": 0}).wire))
        net.send(x, late[k])

    for net in table.nets:
        x = net.identities[seat].peer
        cut_off(net, seat, 220)
        assert net.vote_out(seat) == players - 1
        net.run(limit=40)
        net.heal()
        at_game_end = False
        while net.queue:
            net.run(limit=1)
            if not at_game_end and net.sessions[x].phase == "game-end":
                at_game_end = True
                ask_back_refused(net, x)
                rejoin_arrives(net, x, 0)
        assert at_game_end
        assert net.sessions[x].phase == "over"
        ask_back_refused(net, x)
        rejoin_arrives(net, x, 1)
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert all(o["phase"] == "over" and o["fault"] is None and [s for s, _at in o["dropped"]] == [seat]
               for o in outcomes), outcomes
    assert not any(kind == "REJOIN" for kind in kinds_sent(table.mixed, table.mixed.identities[seat].peer))
    # the first taken and recorded by the TypeScript seat 2, still at game-end then; the second after every seal
    held = [[w.wire in bytes(table.mixed.transcripts[p]) for w in late] for p in table.mixed.peers]
    assert held[2] == [True, False] and not any(held[0] + held[3] + held[5]), held


def kinds_sent(net: Mixed, peer: bytes) -> list[str]:
    """The kinds of the messages `peer`'s node signed and sent."""
    return [open_envelope(wire).kind for wire, *_ in net.sent[peer] if open_envelope(wire).sender == peer]


def test_a_node_still_starting_when_a_seat_is_voted_out_starts_with_it(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.1: a node is at no position before the game starts, so it makes no drop there. Seat 2's
    START_ACK reaches every seat but not the TypeScript spectator; seat 2 is then gone, and the others vote it out at
    the seed commits (0, 0). The spectator, still starting, holds every later message; once seat 2's START_ACK comes
    it starts, drops seat 2 at (0, 0) as everyone did and follows the game to its end, as the Python spectator in its
    place does. Found by the seeded chaos (tests/peer/chaos.py, seed 751: a seat's node still starting when two seats
    were dropped together): a TypeScript node took every complete vote for one behind it while starting, dropped the
    seat there, so never took its START_ACK and never started; the TypeScript verifier failed such a transcript where
    the reference's passed."""
    table = Table(child, "open", 4, [1, 3, 5], seed=3, rounds=1)
    for net in table.nets:
        gone, late = net.identities[2].peer, net.watchers[1].peer

        def withhold(to: bytes, _frm: bytes, wire: bytes, gone: bytes = gone, late: bytes = late) -> bool:
            env = open_envelope(wire)
            return env.sender == gone and (env.seq >= 1 or to == late)

        net.withhold = withhold
        net.start()
        net.run()
        assert net.outcome(late)["phase"] == "starting"
        assert net.vote_out(2) == 3
        net.run()
        net.withhold = lambda to, frm, wire, withhold=withhold: withhold(b"", frm, wire)  # seat 2 stays gone
        net.queue.extend(item for item in net.held if item[0] == late and open_envelope(item[2]).seq == 0)
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for i, o in enumerate(outcomes) if i != 2] == ["over"] * 5, outcomes
    assert all(o["dropped"] == [[2, [0, 0, 0]]] for i, o in enumerate(outcomes) if i != 2), outcomes


def test_a_seat_dropped_at_a_draft_pick_votes_no_more(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.1: a seat dropped at a draft's pick p, a position (r, 0, p), is not active from there on. Seat 2
    (TypeScript at the mixed table, Python at the other) stalls at its pick and the two others vote it out there; then
    the picker after it stalls too, and seat 2's node (linked still) is asked to vote it out: it refuses, as it is no
    longer in the game, in both implementations. Before, the reference asked whether it was active at (r, 0) without
    the place, found it active and signed a DROP (found by the seeded chaos, tests/peer/chaos.py, seed 691: the
    TypeScript seat refused, so the two tables went apart)."""
    table = Table(child, "draft", 3, [2, 4], seed=5, rounds=1)
    for net in table.nets:
        x = net.identities[2].peer
        net.stalled = {x}
        net.start()
        net.run()
        others = [net.identities[s].peer for s in (0, 1)]
        assert all(net.sessions[p].waiting_for() == (2,) for p in others)
        net.stalled = {x, *others}  # (nobody picks, for now)
        assert net.vote_out(2) == 2
        net.run()
        picker = next(s for s in (0, 1) if s in net.sessions[others[0]].waiting_for())
        assert 2 in net.dropped_at(x) and picker in net.sessions[x].waiting_for()
        with pytest.raises(LocalError):
            net.handle(x, net.sessions[x].drop(picker))
        net.stalled = {x}
        for peer in others:
            net.move(peer)
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes] == ["over"] * 5, outcomes


@pytest.mark.parametrize("cut_at", [150, 350])  # seat 3 gone at its unlock (0, 1, 3), or at turn 1's reveal (0, 6)
def test_a_seat_signs_the_round_end_of_a_void_round_before_the_votes_there(cut_at: int, child: NodeSeats,
                                                                           tmp_path: Path) -> None:
    """protocol.md 11, "Entropy": a seat signs its ROUND_END as the round ends, and only then the DROPs it owes at
    (r, 32, 1); a round a drop voids ends where that drop is made (17.9). Four seats, sealed; the shuffler seat 3 is
    gone and voted out by the three others, but seat 0's vote does not reach seat 2 (TypeScript at the mixed table),
    and seat 0 then hears nothing more. Seat 1 drops seat 3, the round is void, it signs its ROUND_END and votes out
    seat 0 at (0, 32, 1); seat 2 holds those behind seat 1's vote on seat 3 until seat 0's vote comes: it drops seat
    3, the round is void, and it signs its ROUND_END, then joins the vote on seat 0 (its node's policy: seat 0 is
    gone from its view, Net.gone; the session itself joins no vote, protocol.md 11.1). Found by the seeded chaos
    (tests/peer/chaos.py, seed 1166): the reference voided the round in one pass and signed its ROUND_END in the
    next, after the DROPs it owed there, where the TypeScript node signed the ROUND_END first."""
    table = Table(child, "sealed", 4, [0, 2, 5], seed=3, rounds=1)
    for net in table.nets:
        first, late = net.identities[0].peer, net.identities[2].peer

        def withhold(to: bytes, _frm: bytes, wire: bytes, first: bytes = first, late: bytes = late) -> bool:
            env = open_envelope(wire)
            return to == first or to == late and env.sender == first and env.kind == "DROP" and env.body["seat"] == 3

        cut_off(net, 3, cut_at)
        net.withhold = withhold
        assert net.vote_out(3) == 3
        net.run()
        one: Any = net.sessions[net.identities[1].peer]
        assert one.phase == "round-end" and one.waiting_for() == (0, 2)
        net.gone.add(0)  # seat 0 is gone from every node's view: a node waiting on it joins a vote on it on sight
        net.handle(net.identities[1].peer, one.drop(0))
        net.run()
        vote = next(item for item in net.held if item[0] == late and open_envelope(item[2]).sender == first)
        net.held.remove(vote)
        net.queue.append(vote)
        net.withhold = lambda to, _frm, _wire, first=first: to == first  # (seat 0 hears nothing more)
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert [o["phase"] for o in outcomes] == ["deal" if cut_at == 150 else "turn", "over", "over", "deal"
                                              if cut_at == 150 else "turn", "over", "over"], outcomes
    for net in table.nets:
        late = net.identities[2].peer
        own = [open_envelope(wire) for wire, *_ in net.sent[late]]
        ends = [(e.kind, e.body.get("step")) for e in own if e.sender == late and e.kind in ("ROUND_END", "DROP")]
        assert ends[1:] == [("ROUND_END", None), ("DROP", 32)], ends


def test_a_seat_behind_signs_the_keep_its_own_vote_makes_owed_before_the_drops(child: NodeSeats,
                                                                               tmp_path: Path) -> None:
    """protocol.md 11, "Entropy", and 11.1, "KEEP when every seat voted": seven seats, open deal. Seat 5 is gone after
    its SEED_COMMIT, which never reaches seat 1 (TypeScript at the mixed table): seat 1 waits at the seed commits on
    seat 5. The others come to the reveals; seat 3 votes out seats 1 and 5 there, its votes reach seat 1 alone, and it
    hears nothing more; seats 0, 2, 4 and 6 vote out seats 1, 3 and 5 there together (11.1, "Several seats gone
    together"). Then seat 5's commit reaches seat 1: it comes to the reveals, where the drop of all three is complete,
    and it is made: the same bytes as the Python node in its place. Found by the seeded chaos (tests/peer/chaos.py,
    seed 113): until session 27 a session joined on sight a vote on a seat it waited on, so before the drop was made
    seat 1 signed what it owed there, swept until nothing more was: its vote on seat 5, and then, as it held back
    there on that vote while seat 3 voted there, KEEP on seat 3; the reference swept the votes once, by seat, passing
    seat 3 before its own vote made that KEEP owed, where the TypeScript seat signed the KEEP. Now a seat joins a
    vote only by its own policy, after the step (protocol.md 11.1): seat 1 owes nothing there (the sweep itself is
    still checked by test_a_seat_whose_drop_completes_a_vote_keeps_a_seat_named_before_it)."""
    table = Table(child, "open", 7, [1, 3, 5, 8], seed=1, rounds=1)
    for net in table.nets:
        late, kept, gone = (net.identities[s].peer for s in (1, 3, 5))

        withhold = gone_after_seed_commit(gone, late)
        net.withhold = withhold
        net.start()
        net.run()
        assert net.sessions[late].waiting_for() == (5,) and net.sessions[kept].waiting_for() == (1, 5)
        net.withhold = lambda to, frm, wire, kept=kept, late=late, w=withhold: (
            to == kept or frm == kept and to != late or w(to, frm, wire))
        net.gone.add(5)  # seat 5 is gone from every node's view: a node waiting on it joins a vote on it on sight
        for seat in (1, 5):
            net.handle(kept, net.sessions[kept].drop(seat))
        for voter in (0, 2, 4, 6):
            session: Any = net.sessions[net.identities[voter].peer]
            for seat in (1, 3, 5):
                net.handle(net.identities[voter].peer, session.drop(seat))
        seat_1: Any = net.sessions[late]
        net.handle(late, seat_1.drop(5))
        net.run()
        commit = next(item for item in net.held if item[0] == late and open_envelope(item[2]).kind == "SEED_COMMIT")
        net.held.remove(commit)
        net.queue.append(commit)
        net.withhold = lambda to, frm, wire, kept=kept, late=late, w=withhold: (
            to == kept or frm == kept and to != late or w(b"", frm, wire))
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert all(o["dropped"] == [[s, [0, 1, 0]] for s in (1, 3, 5)] for i, o in enumerate(outcomes) if i not in (1, 3, 5)), \
        outcomes
    own = [(e.kind, dict(e.body)) for e in (open_envelope(w) for w, *_ in table.mixed.sent[table.mixed.peers[1]])
           if e.sender == table.mixed.peers[1] and e.kind in ("DROP", "KEEP")]
    assert own == [("DROP", {"round": 0, "step": 0, "seat": 5})], own


def test_a_seat_whose_drop_completes_a_vote_keeps_a_seat_named_before_it(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.1, "KEEP when every seat voted", and 11, "Entropy": five seats, open deal; seat 4 is gone after
    its SEED_COMMIT, which never reaches the TypeScript seat 1, so seat 1 waits at the seed commits. The others wait
    at the reveals (step 1) on seats 1 and 4; seats 0, 2 and 3 vote out seat 4 there, and seats 0 and 2 name seat 3
    too. Then seat 4's commit reaches seat 1: it comes to (0, 1), waits on seat 4 and joins the vote (its node's
    policy: seat 4 is gone from its view, Net.gone), which completes the drop. Until the drop is made its own vote holds it back, and seat 3 (alive: it voted there) is named by DROPs
    it did not sign, so it owes KEEP(0, 1, 3) too, signed before the drop is made, as the Python node in its place
    signs it. Found by the seeded chaos (tests/peer/chaos.py, seed 920): the reference judged what it owed in one
    pass in seat order and made the drop at once, so it signed no KEEP for a seat before the one its DROP named (and
    would for one after it); the TypeScript seat signed it ("sent other bytes")."""
    table = Table(child, "open", 5, [1, 3, 6], seed=1, rounds=1)
    for net in table.nets:
        late, gone = net.identities[1].peer, net.identities[4].peer

        withhold = gone_after_seed_commit(gone, late)
        net.withhold = withhold
        net.start()
        net.run()
        assert net.sessions[late].waiting_for() == (4,)
        net.gone.add(4)  # seat 4 is gone from every node's view: seat 1 joins the vote on it on sight (11.1)
        for voter, seats in ((0, (4, 3)), (2, (4, 3)), (3, (4,))):
            session: Any = net.sessions[net.identities[voter].peer]
            assert session.waiting_for() == (1, 4)
            for seat in seats:
                net.handle(net.identities[voter].peer, session.drop(seat))
        net.run()
        commit = next(item for item in net.held if item[0] == late and open_envelope(item[2]).kind == "SEED_COMMIT")
        net.held.remove(commit)
        net.queue.append(commit)
        net.withhold = lambda _to, frm, wire, withhold=withhold: withhold(b"", frm, wire)  # seat 4 stays gone
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert all(o["phase"] == "over" and o["dropped"] == [[4, [0, 1, 0]]] for o in outcomes[:4]), outcomes
    keeps = signed_in(table.mixed, table.mixed.peers[0], "KEEP")
    assert keeps == [(1, {"round": 0, "step": 1, "seat": 3})], keeps


@pytest.mark.parametrize("deal", ["open", "sealed"])
@pytest.mark.parametrize(("players", "gone"), [(4, (3,)), (6, (4, 5))])
def test_a_seat_expelled_then_another_cut_off_the_rest_vote_it_out_and_finish(
        deal: str, players: int, gone: tuple[int, ...], child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.1, "An expelled seat": the Python seat 2 commits in turn 4, then signs a STANDIN naming itself
    and is expelled from it; the game does not wait on it at that commit step. Then seat 3 (with six seats: seats 4
    and 5, TypeScript and Python) is cut off before its commit of the turn leaves it. Every other seat, TypeScript
    or Python, votes it out: the expelled seat is not needed (before, at both tables alike, it made every vote
    there void and the table stopped for good), the gone seats are dropped at the commit step (two together by the
    quorum rule), seat 2 where the game then waits on it, and the rest finish alike, spectators included."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from test_expelled_not_needed import CHEAT, TURN, expel_then_cut

    from p2pnimmt.protocol.phase import turn_steps

    table = Table(child, deal, players, seats_in_typescript(players), seed=players, rounds=1)
    for net in table.nets:
        adv = expel_then_cut(net, gone)
        net.start()
        net.run()
        assert adv.fired
        for seat in gone:
            net.vote_out(seat)
        net.run()
    outcomes = check(table, tmp_path, gone=(CHEAT, *gone))
    commit = [0, turn_steps(TURN)[0], 0]
    for i, o in enumerate(outcomes):
        if i != CHEAT and i not in gone:
            assert o["phase"] == "over"
            assert {seat for seat, at in o["dropped"] if at == commit} == set(gone), o["dropped"]
            assert CHEAT in [seat for seat, _at in o["dropped"]], o["dropped"]


@pytest.mark.parametrize("stalled", [3, 0])
def test_an_expelled_seat_is_not_needed_to_ask_the_stand_in(stalled: int, child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.2, "An expelled seat is never needed for the ask" (chaos seed 998): seat `stalled` (3
    TypeScript, 0 Python) never moves by itself; the others ask the stand-in for it every turn. In turn 4 the Python
    seat 2 commits, signs a DROP at turn 4's row choice (it went on: the others' vote on the stalled seat is void) and
    a STANDIN for turn 3 (`unexpected`), and is expelled. The others ask and vote; the stalled seat's node, TypeScript or Python,
    makes the move once every seat not expelled asked (before: it waited for seat 2's ask for ever, at both tables),
    seat 2 is dropped at the reveal step and the rest finish alike."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary
    from test_standin_expelled import CHEAT, TURN, cheat_then_silent

    from p2pnimmt.protocol.phase import turn_steps

    table = Table(child, "open", 4, seats_in_typescript(4), seed=33, rounds=1)
    for net in table.nets:
        x = net.identities[stalled].peer
        net.stalled = {x}
        adv = Adversary(net, CHEAT, cheat_then_silent)
        adv.state["stalled"] = stalled
        adv.state["named"] = 1 if stalled == 3 else 3  # not turn 4's row chooser (test_standin_expelled.NAMED)
        net.start()
        net.run()
        voted = False
        for _ in range(100):
            if adv.fired and not voted:
                net.vote_out(stalled)  # void: seat 2 went on from the stalled seat's commit
                voted = True
            asked = every_other_asks_the_stand_in(net, stalled)
            net.run()
            if not asked:
                break
        assert adv.fired
    outcomes = check(table, tmp_path, gone=CHEAT)
    for i, o in enumerate(outcomes):
        if i != CHEAT:
            assert o["phase"] == "over", (i, o["phase"])
            assert o["dropped"] == [[CHEAT, [0, turn_steps(TURN)[1], 0]]], o["dropped"]
    mixed = table.mixed
    assert auto_flags(mixed, mixed.peers[0], stalled) == [True] * 10


@pytest.mark.parametrize("asker", [2, 3], ids=["Python-asker", "TypeScript-asker"])
def test_one_signer_withholding_an_ask_keeps_no_seat_out(asker: int, child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 11.3 (since session 29): a seat is back once more than half of the signers list its ask. The Python
    seat 1 (a cheat: its own session signs every ROUND_END without `back`, tests/protocol/test_take_back_majority.py)
    never lists the ask of the seat cut off, voted out and asking back; the other two signers, a Python and a
    TypeScript seat, do: 2 of 3, and it plays again from the next round on every node, in the same bytes on both
    tables, and both verifiers agree. Before, every signer had to list it, and the cheat kept it out to the end."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from sealed_adversary import Cheat
    from test_take_back_majority import without_back

    players = 4
    table = Table(child, "open", players, [3, 5], seed=60 + asker, rounds=3)
    x = table.mixed.identities[asker].peer
    assert not table.mixed.is_typescript(table.mixed.identities[1].peer)
    for net in table.nets:
        cheat = Cheat(net, 1, without_back)
        voted_out_and_asked_back(net, asker, 150)
        assert cheat.fired  # its ROUND_END left the ask out
    outcomes = check(table, tmp_path)
    assert all(o["dropped"] == [] for o in outcomes)  # back on every node
    ends = signed_in(table.mixed, table.mixed.peers[0], "ROUND_END")
    listing = {signer for signer, body in ends if any(seat == asker for seat, _seq in body.get("back", ()))}
    assert 1 not in listing and len(listing) == 2, ends
    own = [open_envelope(payload) for kind, payload in records(bytes(table.mixed.transcripts[table.mixed.peers[0]]))
           if kind == "msg"]
    assert sum(e.sender == x and e.kind == "PLAY_REVEAL" and e.body["round"] == 2 for e in own) == 10


def griefer_back(net: Mixed, seat: int, cut_at: int, again: int | None) -> None:
    """`seat` cut off after `cut_at` deliveries (sealed round 1, after its shuffle) and voted out: the round is void
    and it forfeits (17.9); the cut heals, it asks back and plays again. With `again`: once back it is cut off again at
    turn 5 of round `again` + 1 and voted out there, and asks back again."""
    x = net.identities[seat].peer
    host: Any = net.sessions[net.identities[0].peer]
    cut_off(net, seat, cut_at)
    assert net.vote_out(seat)  # the others join on sight (Net.gone)

    def cut_again() -> bool:
        nonlocal again
        if again is None or host.round != again or host.turn != 4 or seat in net.dropped_at(x):
            return False
        again = None
        net.cut = {x}
        net.run()
        assert net.vote_out(seat)  # the others join on sight (Net.gone)
        net.run(limit=40)
        net.heal()
        return True

    healed_and_asked_back(net, seat, cut_again)


@pytest.mark.parametrize("seat", [1, 2], ids=["TypeScript-griefer", "Python-griefer"])
@pytest.mark.parametrize("again", [None, 2], ids=["once", "twice"])
def test_a_seat_that_forfeited_is_dealt_open_and_voids_no_more_rounds(seat: int, again: int | None, child: NodeSeats,
                                                                      tmp_path: Path) -> None:
    """protocol.md 17.9 (since session 29): a sealed seat whose drop voided round 1 forfeits, comes back, and never
    shuffles again: from its return it plays its own cards from its hand dealt open (Python and TypeScript seats
    check them against it, and so do both verifiers), sends no SEALED_SHUFFLE, SEALED_UNLOCK or SEALED_KEYS, and
    (`again`) voted out again mid-round it voids nothing: that round is scored. Same bytes on both tables."""
    players = 4
    table = Table(child, "sealed", players, [1, 3, 5], seed=80 + seat, rounds=4)
    x = table.mixed.identities[seat].peer
    assert table.mixed.is_typescript(x) == (seat == 1)
    for net in table.nets:
        griefer_back(net, seat, 100, again)
    outcomes = check(table, tmp_path)
    assert all(o["voided"] == [0] and o["forfeits"] == [seat] for o in outcomes), outcomes
    assert all(o["dropped"] == [] and seat not in o["winners"] for o in outcomes)
    own = [open_envelope(payload) for kind, payload in records(bytes(table.mixed.transcripts[table.mixed.peers[0]]))
           if kind == "msg"]
    own = [e for e in own if e.sender == x and e.body.get("round", -1) >= 1]
    assert own and not [e for e in own if e.kind.startswith("SEALED_")]
    reveals = [e for e in own if e.kind == "PLAY_REVEAL"]
    assert reveals and all(10 * seat <= e.body["position"] < 10 * seat + 10 for e in reveals)
    if again is not None:
        assert sum(e.body["round"] == again for e in reveals) == 4  # its turns 1 to 4; the stand-in played the rest


def test_a_card_of_the_forfeiters_open_hand_played_by_another_is_not_in_hand_at_every_node(child: NodeSeats,
                                                                                              tmp_path: Path) -> None:
    """protocol.md 17.6 (since session 29): a card of a forfeiter's open hand is public, so a seat that plays it
    (the Python cheat seat 0, in round 4: tests/protocol/test_forfeit_open_hand.py's rule) breaks `not-in-hand` at
    every node, the TypeScript forfeiter's own node among them: its hand is open, so it raises no alarm and sends no
    SEALED_KEYS for a round it never shuffled in (before, the reference took the card there for one of its own
    hidden hand). The cheat is expelled; its drop voids round 4, as it had shuffled (17.9). Same bytes on both
    tables, both verifiers agree."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary
    from test_forfeit_open_hand import GRIEFER, plays_from_the_open_hand

    liar, r = 0, 3
    table = Table(child, "sealed", 4, [1, 3, 5], seed=81, rounds=4)
    x = table.mixed.identities[GRIEFER].peer
    assert table.mixed.is_typescript(x) and not table.mixed.is_typescript(table.mixed.identities[liar].peer)
    for net in table.nets:
        Adversary(net, liar, plays_from_the_open_hand(r, 2))
        griefer_back(net, GRIEFER, 100, None)
    outcomes = check(table, tmp_path, gone=liar)
    honest = honest_of(table, outcomes, liar)
    assert all(o["voided"] == [0, r] and o["forfeits"] == [liar, GRIEFER] for o in honest), honest
    assert all([seat for seat, _at in o["dropped"]] == [liar] for o in honest), honest
    own = [open_envelope(payload) for kind, payload in records(bytes(table.mixed.transcripts[x])) if kind == "msg"]
    assert not [e for e in own if e.sender == x and e.kind == "SEALED_KEYS"]
    faults = verify_transcript(bytes(table.mixed.transcripts[x])).faults_recorded  # the forfeiter's own node's
    cheat = table.mixed.identities[liar].peer
    assert [f["code"] for f in faults if f["peer"] == cheat] == ["not-in-hand", "absent"], faults


@pytest.mark.parametrize("lie", ["instead", "ahead", "later"])
def test_both_vote_out_a_gone_seat_with_the_seat_that_never_passed_its_message_on(lie: str, child: NodeSeats,
                                                                                 tmp_path: Path) -> None:
    """Five seats; seat 4 is gone at its commit of turn 3, and the Python cheat seat 1 says it went on from that
    commit (a KEEP instead of its DROP, a KEEP ahead, or a DROP for a later position: tests/protocol/
    test_keep_liar.py). The node's policy (net/waiting.py: never_passed_on; page_waiting.ts: Seat.neverPassedOn)
    votes out seat 1 together with seat 4, TypeScript seats and Python seats alike, and the quorum rule drops the
    two at every node (before, the vote on seat 4 stayed void and the table waited for good)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary
    from test_keep_liar import CHEAT, COMMIT, gone_at_turn, liar

    table = Table(child, "open", 5, [0, 2, 6], seed=3)
    for net in table.nets:
        net.withhold = gone_at_turn(net, 4)
        Adversary(net, CHEAT, liar(lie))
        net.start()
        net.run()
        assert net.sessions[net.identities[0].peer].waiting_for() == (4,)
        net.vote_out(4)
        net.run()
    outcomes = check(table, tmp_path, gone=(CHEAT, 4))
    honest = honest_of(table, outcomes, CHEAT, 4)
    assert all(o["dropped"] == [[CHEAT, [0, COMMIT, 0]], [4, [0, COMMIT, 0]]] for o in honest), honest


def liar_rule(kind: str) -> Any:
    """The Adversary's rule for a START_ACK the checks refuse (protocol.md 12, "A refused START_ACK"): `hash`, one of
    another START; `body`, one with a field it does not have; `chain`, one that names a previous message; `some`, the
    right one to the host and seat 2, one of another START to the others (an equivocation)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary

    from p2pnimmt.protocol.envelope import NO_PREVIOUS

    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if env.kind != "START_ACK":
            return None
        adv.fired = True
        if kind == "hash":
            body["start"] = bytes(32)
        elif kind == "body":
            body["note"] = 1
        elif kind == "chain":  # its first message names a previous one
            return adv.to(adv.advance(adv.seal_at(0, bytes([1]) * 32, "START_ACK", body)).wire)
        else:
            ids = [i.peer for i in adv.net.identities]
            right = adv.seal_at(0, NO_PREVIOUS, "START_ACK", body)
            wrong = adv.seal_at(0, NO_PREVIOUS, "START_ACK", {"start": bytes(32)})
            adv.advance(right, env)
            return [(p, right.wire if p in (ids[0], ids[2]) else wrong.wire) for p in adv.others]
        return None
    return rule


@pytest.mark.parametrize("deal, lie", [("open", "hash"), ("sealed", "body"), ("draft", "hash"), ("open", "chain"),
                                       ("open", "some")])
def test_a_typescript_seat_whose_start_ack_lies_is_refused_alike(deal: str, lie: str, child: NodeSeats,
                                                                  tmp_path: Path) -> None:
    """protocol.md 12, "A refused START_ACK": the TypeScript seat 1 signs a START_ACK the checks refuse (its messages
    pass through the tests' Adversary). Every other node, the TypeScript seat 3 and spectator among them, records the
    fault (not fatal), refuses seat 1 and waits for the host's new start, with the bytes, transcript, outcome and
    verdicts of the Python node in its place (before, every node aborted on it). An equivocation (`some`): the nodes
    that started on the right version abort on it, the others refuse; every one holds the same ground."""
    table = Table(child, deal, 5, [1, 3, 6], seed=11, rounds=1)
    for net in table.nets:
        net.shuffle_delivery = lie != "some"
        broken_by(net, 1, liar_rule(lie))
    assert table.mixed.is_typescript(table.mixed.identities[1].peer)
    outcomes = node_by_node(table, tmp_path)
    honest = [o for i, o in enumerate(outcomes) if i != 1]
    assert all(o["refused"] == [1] for o in honest), honest
    if lie != "some":
        assert all(o["phase"] == "starting" and o["fault"] is None for o in honest), honest
    else:
        assert {o["phase"] for o in honest} == {"starting", "aborted"}, honest  # both ways, here


def start_ack_twins(table: Table, missed: int | None) -> None:
    """Seat 4 (Python) signs one START_ACK right for the host and seat 1 and another, wrong one for the others (chaos
    seed 267's forger), unshuffled: the host and seat 1 start on the right version, the others refuse seat 4 and the
    host aborts on the proof. `missed`: every copy of the wrong version on its way to that node is held (it is down
    when the proof passes). Both tables played until quiet."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary

    for net in table.nets:
        wrong: list[bytes] = []

        def rule(adv: Adversary, env: Any, body: dict[str, Any], wrong: list[bytes] = wrong) -> Any:
            if env.kind != "START_ACK":
                return None
            adv.fired = True
            ids = [i.peer for i in adv.net.identities]
            right = adv.seal_at(0, env.prev, "START_ACK", body)
            other = adv.seal_at(0, env.prev, "START_ACK", {"start": bytes(32)})
            wrong.append(other.wire)
            adv.advance(right, env)
            return [(p, right.wire) for p in ids[:2]] + [(p, other.wire) for p in adv.others if p not in ids[:2]]

        net.shuffle_delivery = False
        adv = Adversary(net, 4, rule)
        if missed is not None:
            peer = net.identities[missed].peer
            net.withhold = lambda to, _frm, wire, peer=peer, wrong=wrong: to == peer and wire in wrong
        net.start()
        net.run()
        assert adv.fired


def test_a_typescript_node_that_missed_a_proof_gets_it_on_its_next_link(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 12, "A proof reaches every node": the TypeScript seat 1 started on seat 4's right START_ACK and was
    down while the wrong one and the host's proof went by (what was on its way to it is lost); restarted from its
    transcript (Seat.restart), it gets the proof in the heads answers of its new links, the TypeScript host's among
    them (Seat.missingFor: the messages it lacks, then the proof's, as Session.missing_for answers), aborts as the
    host did, and every node holds the same ground, with the bytes, transcript and verdicts of the Python node in its
    place. Before, seat 1 waited in the deal, holding no proof (chaos seed 267)."""
    table = Table(child, "open", 5, [0, 1, 3, 6], seed=4, rounds=1)
    start_ack_twins(table, missed=1)
    ref, mixed = table.nets
    host, seat1 = (ref.identities[i].peer for i in (0, 1))
    assert mixed.is_typescript(host) and mixed.is_typescript(seat1)
    heads = ref.sessions[seat1].heads()
    answer = ref.sessions[host].missing_for(heads)
    assert mixed.sessions[host].missing_for(heads) == answer and len(answer) == 2  # the proof's two versions
    for net in table.nets:
        assert net.sessions[seat1].phase == "deal"
        net.withhold = None
        net.held = [item for item in net.held if item[0] != seat1]
        net.heal()
        net.restart(seat1)  # its queue lost, its transcript replayed, then the heads exchange of its new links
        net.run()
    outcomes = node_by_node(table, tmp_path)
    honest = [o for i, o in enumerate(outcomes) if i != 4]
    assert all(o["refused"] == [4] for o in honest), honest
    assert outcomes[1]["phase"] == "aborted" and outcomes[1]["fault"]["code"] == "equivocation", outcomes[1]


def test_a_typescript_node_restarted_after_it_aborted_stays_aborted(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 13: a node restarts from its transcript replaying its fatal records' evidence too; the TypeScript
    host, aborted on seat 4's START_ACK twins, restarted (no link yet) is aborted again on the same fault, as the
    Python host is (before, both came back in the deal)."""
    from harness import restart

    table = Table(child, "open", 5, [0, 1, 3, 6], seed=4, rounds=1)
    start_ack_twins(table, missed=None)
    for net in table.nets:
        host = net.identities[0].peer
        assert net.sessions[host].phase == "aborted"
        net.queue.clear()
        session: Any = net.sessions[host]
        if net.is_typescript(host):
            net.handle(host, session.restart())
        else:
            net.handle(host, restart(net, host))
    outcomes = node_by_node(table, tmp_path)
    assert outcomes[0]["phase"] == "aborted" and outcomes[0]["fault"]["code"] == "equivocation", outcomes[0]
def start_with_carry(net: Mixed, carry: dict[str, Any]) -> None:
    """The host (seat 0) signs a START that carries `carry` (protocol.md 9: a game that continues another)."""
    host = net.identities[0]
    roster = [(i.public_key, f"p{n}", True) for n, i in enumerate(net.identities)]
    net.handle(host.peer, net.sessions[host.peer].host(net.salt, net.settings, roster, carry=carry))


@pytest.mark.parametrize("deal, host", [("open", "TypeScript"), ("sealed", "Python")])
def test_a_mixed_table_that_carries_plays_the_rounds_left_as_a_python_one(deal: str, host: str, child: NodeSeats,
                                                                           tmp_path: Path) -> None:
    """protocol.md 9, START's `carry`, and 12, "An equivocation after the START": a game that continues another after
    round 1 of 3 plays the 2 rounds left from the carried scores, at a table of TypeScript and Python nodes (the host
    of either): every node sends and writes what the Python node in its place does, and both verifiers accept every
    transcript with the same report, which says what was carried and ends with the carried scores plus the rounds
    played. (Before session 31 neither implementation took a START with a `carry`.)"""
    carry = {"game": bytes(range(16)), "rounds": 1, "scores": [7, 0, 12, 3]}
    table = Table(child, deal, 4, seats_in_typescript(4, odd=host == "Python"), seed=31, rounds=3)
    table.each(lambda net: (start_with_carry(net, carry), net.run()))
    outcomes = node_by_node(table, tmp_path)
    assert all(o["phase"] == "over" and o["fault"] is None for o in outcomes), outcomes
    history = outcomes[0]["history"]
    assert len(history) == 2
    assert outcomes[0]["scores"] == [c + sum(r[s] for r in history) for s, c in enumerate(carry["scores"])]
    report = verify_transcript(bytes(table.mixed.transcripts[table.mixed.peers[1]])).report()
    assert f"carried from game {bytes(range(16)).hex()} after round 1: p0 7, p1 0, p2 12, p3 3" in report, report
    assert "\nround 2: " in report and "\nround 3: " in report and "\nround 1: " not in report, report


def fork_at_turn_4_of_round_2(adv: Any, env: Any, body: dict[str, Any]) -> Any:
    """An adversary's rule (tests/protocol/adversary.py): its seat signs two PLAY_REVEALs with one seq at turn 4 of
    round 2 (the second marked `auto`), one to half the others and the other to the rest (no split commit)."""
    if env.kind != "PLAY_REVEAL" or (body["round"], body["turn"]) != (1, 3) or adv.fired:
        return None
    a = adv.chain(env.kind, body, env)
    b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, auto=True))
    adv.fired = True
    half = adv.others[::2]
    return adv.to(a.wire, half) + adv.to(b.wire, [p for p in adv.others if p not in half])


@pytest.mark.parametrize("deal", ["open", "sealed"])
def test_typescript_seats_check_the_hosts_carry_after_an_equivocation_as_python_ones(deal: str, child: NodeSeats,
                                                                                   tmp_path: Path) -> None:
    """protocol.md 12, "An equivocation after the START": the Python seat 2 signs two PLAY_REVEALs with one seq in
    round 2 (no split commit), one to half the others and the other to the rest. Every node, TypeScript or Python,
    ends aborted on seat 2's equivocation with the bytes and verdicts of the Python node in its place, takes the
    host's new start without seat 2 as due (its refused seats: [2]), and checks the host's carry (round 1's totals)
    as the reference does: the same carry taken, the same lies refused in the same words."""
    from p2pnimmt.net.waiting import refused_acks
    from p2pnimmt.protocol.carry import carry_for, carry_problem

    table = Table(child, deal, 4, [1, 3, 5], seed=9, rounds=3)
    for net in table.nets:
        broken_by(net, 2, fork_at_turn_4_of_round_2)
    outcomes = node_by_node(table, tmp_path)
    honest = [o for i, o in enumerate(outcomes) if i != 2]
    assert all(o["phase"] == "aborted" and o["fault"]["code"] == "equivocation" for o in honest), honest
    ref, mixed = table.nets
    keys = [i.public_key for n, i in enumerate(ref.identities) if n != 2]
    carry = carry_for(ref.sessions[ref.identities[0].peer].table, keys)
    assert carry is not None and carry["rounds"] == 1
    lies = [None, dict(carry, scores=[carry["scores"][0] + 1, *carry["scores"][1:]]), dict(carry, game=bytes(16)),
            dict(carry, rounds=2)]
    for n in (1, 3):  # the TypeScript seats, against the Python seat in their place
        ts, py = mixed.sessions[mixed.identities[n].peer], ref.sessions[ref.identities[n].peer]
        assert refused_acks(py) == [2]
        assert ts.carry_problem(keys, carry) is None
        for lie in lies:
            body = {"roster": [{"key": k} for k in keys], **({"carry": lie} if lie is not None else {})}
            assert ts.carry_problem(keys, lie) == carry_problem(py.table, body), lie


@pytest.mark.parametrize("deal", ["open", "sealed"])
def test_typescript_seats_leave_out_the_expelled_seat_of_a_forked_start_as_python_ones(deal: str, child: NodeSeats,
                                                                                       tmp_path: Path) -> None:
    """protocol.md 12, "Who G' leaves out": the Python seat 3 signs a ROUND_END of round 1 with a wrong total
    (`result-mismatch`: expelled, the game goes on without it), then the Python seat 2 signs two PLAY_REVEALs with one
    seq in round 2. Every node, TypeScript or Python, ends aborted on seat 2's equivocation with the bytes and verdicts
    of the Python node in its place and holds seat 3 out for the same proof; the host's new start leaves out seats 2
    and 3, which the TypeScript seats take as the Python ones do, and a START that seats seat 3 they refuse in the same
    words. (Before session 32 the host seated seat 3, and neither implementation refused a START that did.)"""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary
    from test_carry_out import wrong_round_end

    from p2pnimmt.app.anew import leaves_out
    from p2pnimmt.net.waiting import refused_acks
    from p2pnimmt.protocol.carry import carry_for, carry_problem, out_for_proof

    table = Table(child, deal, 5, [1, 4, 6], seed=3, rounds=4)
    for net in table.nets:
        cheat, forger = Adversary(net, 3, wrong_round_end), Adversary(net, 2, fork_at_turn_4_of_round_2)
        net.start()
        net.run()
        assert cheat.fired and forger.fired
    outcomes = node_by_node(table, tmp_path)
    honest = [o for i, o in enumerate(outcomes) if i not in (2, 3)]
    assert all(o["phase"] == "aborted" and o["fault"]["code"] == "equivocation" for o in honest), honest
    ref, mixed = table.nets
    host = ref.sessions[ref.identities[0].peer]
    gone = leaves_out(host, refused_acks(host))
    assert gone == [2, 3]
    keys = [i.public_key for n, i in enumerate(ref.identities) if n not in gone]
    seated = [i.public_key for n, i in enumerate(ref.identities) if n != 2]
    carry, carry_seated = carry_for(host.table, keys), carry_for(host.table, seated)
    assert carry is not None and carry["rounds"] == 1
    for n in (1, 4):  # the TypeScript seats, against the Python seat in their place
        ts, py = mixed.sessions[mixed.identities[n].peer], ref.sessions[ref.identities[n].peer]
        assert ts.out_for_proof() == out_for_proof(py.table) == {3: "lost its seat for a proven rule break "
                                                                    "(result-mismatch)"}
        assert ts.carry_problem(keys, carry) is None is carry_problem(py.table, {"roster": [{"key": k} for k in keys],
                                                                                 "carry": carry})
        why = ts.carry_problem(seated, carry_seated)
        assert why == carry_problem(py.table, {"roster": [{"key": k} for k in seated], "carry": carry_seated})
        assert why is not None and why.endswith("it lost its seat for a proven rule break (result-mismatch)"), why


def test_a_start_ack_shown_to_the_host_alone_comes_to_every_node_alike(child: NodeSeats, tmp_path: Path) -> None:
    """protocol.md 14 (a START_ACK shown only to some peers; session 31's startgrace left it without a mixed-table
    case): seat 1 signs its right START_ACK and shows it to the host alone (its messages pass through the tests'
    Adversary); its relayer is seat 2, so no seat gets it from a relay. The others, waiting for it, get it in the
    host's answer to their `heads` (harness.catch_up: the heads exchange), and every node, the TypeScript host, seat 2
    and spectator among them, starts and plays the game to its end, with the bytes, transcript, outcome and verdicts
    of the Python node in its place; nobody is refused or dropped. (The same on real nodes:
    tests/net/test_start_ack_lie.py.)"""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
    from adversary import Adversary
    from harness import catch_up

    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if env.kind != "START_ACK":
            return None
        adv.fired = True
        right = adv.seal_at(0, env.prev, "START_ACK", body)
        adv.advance(right, env)
        return [(adv.net.identities[0].peer, right.wire)]

    table = Table(child, "open", 4, [0, 2, 5], seed=11, rounds=1)
    for net in table.nets:
        broken_by(net, 1, rule)
        waiting = [p for p in net.peers if net.sessions[p].phase == "starting"]
        assert waiting, "every node had seat 1's START_ACK without asking"
        for peer in waiting:
            catch_up(net, peer)
        net.run()
    outcomes = node_by_node(table, tmp_path)
    assert all(o["phase"] == "over" and o["fault"] is None and not o["refused"] and not o["dropped"]
               for o in outcomes), outcomes
