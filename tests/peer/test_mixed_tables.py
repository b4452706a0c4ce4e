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
  of the all-Python table in its place (the same keys, entropy and inputs leave a node nothing to choose);
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
from collections.abc import Iterator
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
from p2pnimmt.protocol.envelope import open_envelope  # noqa: E402
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
    where = tmp_path_factory.mktemp("node")
    script = where / "mixed.mjs"
    run([tool("node"), "--input-type=module", "-e",
         "import { build } from 'esbuild'; await build({ entryPoints: ['test/mixed.ts'], bundle: true, "
         f"format: 'esm', platform: 'node', target: 'es2022', logLevel: 'warning', outfile: {str(script)!r} }});"])
    seats = NodeSeats(script, where / "stderr.log")
    yield seats
    seats.close()


class Table:
    """One game's two tables: `reference` (every node in Python) and `mixed` (`typescript` nodes in TypeScript)."""

    def __init__(self, child: NodeSeats, deal: str, players: int, typescript: list[int], seed: int,
                 rounds: int = 1) -> None:
        variant, how = DEALS[deal]
        settings = Settings(players=players, variant=variant, max_rounds=rounds, point_limit=None, deal=how)
        self.reference = Mixed(players, settings=settings, seed=seed, spectators=2)
        self.mixed = Mixed(players, settings=settings, seed=seed, spectators=2, typescript=typescript, child=child)
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


def check(table: Table, tmp_path: Path, gone: int | None = None) -> list[dict[str, Any]]:
    """The checks of the module's docstring; each node's outcome. `gone`: a seat cut off for good, or a cheat's own
    node (the same bytes as the Python node in its place, and both verifiers say the same of its transcript)."""
    ref, mixed = table.nets
    assert mixed.typescript, "no TypeScript node at this table"
    outcomes = [mixed.outcome(p) for p in mixed.peers]
    for i, peer in enumerate(mixed.peers):
        kind = "TypeScript" if mixed.is_typescript(peer) else "Python"
        assert mixed.sent[peer] == ref.sent[peer], f"node {i} ({kind}) sent other bytes than the Python node " \
            f"in its place ({len(mixed.sent[peer])} and {len(ref.sent[peer])} messages)"
        assert bytes(mixed.transcripts[peer]) == bytes(ref.transcripts[peer]), f"node {i} ({kind}): other transcript"
        assert outcomes[i]["fault"] is None, f"node {i} ({kind}): {outcomes[i]['fault']}"
    gone_peer = None if gone is None else mixed.identities[gone].peer
    finished = [o for p, o in zip(mixed.peers, outcomes) if p != gone_peer]
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
        if peer != gone_peer:
            assert verdict.ok, f"{path.name}: {ours[1]}"
            assert line in ours[1].splitlines(), f"{path.name}: {line!r} not in\n{ours[1]}"
    sample = paths if SWEEP else [next(p for p, q in zip(paths, mixed.peers) if mixed.is_typescript(q) and q != gone_peer),
                                  next(p for p, q in zip(paths, mixed.peers) if not mixed.is_typescript(q) and q != gone_peer)]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda p: (p, python_verify(p), node_verify(p)), sample))
    for path, ours, theirs in results:
        assert (theirs.returncode, theirs.stdout, theirs.stderr) == (ours.returncode, ours.stdout, ours.stderr), \
            f"{path.name}:\n Python {ours.returncode} {ours.stdout}{ours.stderr}\n TypeScript {theirs.returncode} " \
            f"{theirs.stdout}{theirs.stderr}"
        if path not in paths or mixed.peers[paths.index(path)] != gone_peer:
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
    its node learns it was dropped and asks back (REJOIN); every ROUND_END of the round lists it (Python's and
    TypeScript's), and it plays again from the next round, on its own node, with its score (a sealed round it left
    after shuffling is void, and it forfeits)."""
    players = 4
    odd = {i for i in range(players) if i % 2 == 1}
    typescript = (odd | {seat} if language == "TypeScript" else odd - {seat}) | {players + 1}
    table = Table(child, deal, players, sorted(typescript), seed=70 + seat, rounds=3)
    x = table.mixed.identities[seat].peer
    assert table.mixed.is_typescript(x) == (language == "TypeScript")
    for net in table.nets:
        cut_off(net, seat, cut_at)
        assert net.vote_out(seat) == players - 1
        net.run(limit=40)
        net.heal()
        asked = False
        while net.queue:
            net.run(limit=1)
            if not asked and seat in net.dropped_at(x):
                net.handle(x, net.sessions[x].rejoin())  # type: ignore[union-attr]
                asked = True
        assert asked
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
