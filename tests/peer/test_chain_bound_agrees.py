"""protocol.md 8, "A chain's bound" (since session 46), in both implementations: a sender's chain holds at most
16,384 messages and 4 MiB of them in a game; its next message past either is not accepted (as one that never came),
and its sender, where it delivered it itself, is reported over a cap for its carrier to cut off (a relay is not). The
same signed bytes go to a Python spectator's session and a TypeScript node (web/peer/test/mixed.ts), and both must
accept the same chain and name the same peer with the same words.

Before, both accepted every message that followed its chain: a seat's REJOINs (never a fault, 11.3) or an expelled
seat's messages (no check at all, up to 64 KiB each) grew every transcript without end (red team, session 46;
tests/net/test_rejoin_flood.py with real processes). Both tests here fail on that code (all accepted, nobody named)."""

from __future__ import annotations

from pathlib import Path

from test_held_bounds_agree import GAME, HOST, SEATS, START, Pair, pair as pair  # noqa: F401 (fixture)
from test_mixed_tables import child as child  # noqa: F401 (the node process of test_mixed_tables, a fixture)
from test_verify_agrees import resealed, same_lines

from p2pnimmt.protocol.envelope import NO_PREVIOUS, seal
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.inbox import MAX_CHAIN, MAX_CHAIN_BYTES


def bound(seq: int, seat: str) -> str:
    """The words of the cap, as both say them (the carrier cuts the peer off: `it sent ...`)."""
    return f"its message #{seq} (REJOIN) past the {MAX_CHAIN} messages or {MAX_CHAIN_BYTES} bytes {seat} may sign in a game"


def chain(signer: Identity, count: int, pad: int = 0) -> list[bytes]:
    """`count` REJOINs of `signer`, chained from its first message: each for a round of its own (a valid body), or
    with `pad` bytes besides (the first a `bad-body` that expels the seat; the rest get no check)."""
    wires, prev = [], NO_PREVIOUS
    for seq in range(count):
        body = {"round": seq, **({"pad": bytes(pad)} if pad else {})}
        env = seal(signer, GAME, seq, prev, "REJOIN", body)
        wires.append(env.wire)
        prev = env.hash
    return wires


def heads(pair: Pair) -> dict[str, int]:
    """Each sender's accepted messages, as both implementations count them (they must agree)."""
    ours = {sender.hex(): pair.session.inbox.head(sender)[0] for sender in [s.peer for s in SEATS]
            if pair.session.inbox.head(sender)[0]}
    theirs = dict(pair.child.call("heads", pair.index)["heads"])
    assert theirs == ours, f"TypeScript {theirs}, Python {ours}"
    return ours


def test_a_seats_16385th_message_is_not_accepted_and_its_sender_is_named(pair: Pair) -> None:
    pair.deliver(START, HOST.peer)
    mal = SEATS[1]
    wires = chain(mal, MAX_CHAIN + 2)
    for wire in wires[:MAX_CHAIN]:
        pair.deliver(wire, mal.peer)
    assert heads(pair)[mal.peer.hex()] == MAX_CHAIN
    assert pair.agree()["overflowed"] == []
    pair.deliver(wires[MAX_CHAIN], SEATS[2].peer)  # relayed: not accepted, and the relay is not blamed
    assert pair.agree()["overflowed"] == []
    pair.deliver(wires[MAX_CHAIN], mal.peer)  # from its sender: not accepted, its sender named
    assert pair.agree()["overflowed"] == [[mal.peer.hex(), bound(MAX_CHAIN, "seat 1 (p1)")]]
    pair.deliver(wires[MAX_CHAIN + 1], mal.peer)  # the next: ahead of a chain that never goes on (held, within caps)
    assert heads(pair)[mal.peer.hex()] == MAX_CHAIN


def test_an_expelled_seats_large_messages_stop_at_4_mib(pair: Pair) -> None:
    pair.deliver(START, HOST.peer)
    mal = SEATS[2]
    wires = chain(mal, 80, pad=60_000)  # the first a bad-body (expelled), then no check: each 60 KB
    taken, used = 0, 0
    for wire in wires:
        if used + len(wire) > MAX_CHAIN_BYTES:
            break
        used += len(wire)
        taken += 1
    for wire in wires[:taken]:
        pair.deliver(wire, mal.peer)
    assert heads(pair)[mal.peer.hex()] == taken
    pair.agree()  # (what went over a cap before: nothing of the chain's bound)
    pair.deliver(wires[taken], mal.peer)
    assert pair.agree()["overflowed"] == [[mal.peer.hex(), bound(taken, "seat 2 (p2)")]]
    assert heads(pair)[mal.peer.hex()] == taken


def past_the_bound(tmp_path: Path, name: str, wires: list[bytes]) -> Path:
    """A transcript seat 3 records and seals (every link and the seal verify): the START, then `wires` as msg records;
    the last of them past its sender's bound."""
    path = tmp_path / f"{name}.p2pt"
    path.write_bytes(resealed(SEATS[3], [("msg", START), *(("msg", wire) for wire in wires)]))
    return path


def test_both_verifiers_refuse_a_transcript_holding_a_message_past_the_bound_alike(tmp_path: Path) -> None:
    """protocol.md 8: `verify` drops the message past a chain's bound as every node does, so a transcript that records
    one (its recorder accepted what no honest node accepts) is refused at that record, by both verifiers with the same
    words and status; the same transcript one message shorter is no more than unfinished (status 3) in both. The red
    team (session 46) compared the two sessions, never the two verifiers."""
    by_count = chain(SEATS[1], MAX_CHAIN + 1)
    wires = chain(SEATS[2], 80, pad=60_000)
    used, taken = 0, 0
    while used + len(wires[taken]) <= MAX_CHAIN_BYTES:
        used, taken = used + len(wires[taken]), taken + 1
    by_bytes = wires[:taken + 1]
    for name, past in (("count", by_count), ("bytes", by_bytes)):
        status, out, err = same_lines(past_the_bound(tmp_path, f"{name}-within", past[:-1]))
        assert status == 3 and "UNFINISHED" in out + err, (name, out, err)
        status, out, err = same_lines(past_the_bound(tmp_path, name, past))
        assert status == 1, (name, out, err)
        assert (f"FAILED at record {len(past) + 1}: message is not the next in its sender's chain (a message is "
                "missing or out of order)") in err, (name, err)
