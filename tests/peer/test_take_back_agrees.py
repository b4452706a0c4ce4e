"""A seat taken back that is expelled (protocol.md 11.3 and 12, "A proven rule break costs the signer its seat"): its
ask (REJOIN) comes before the message that expels it, so it counts as any message of the seat before that one; the
ROUND_ENDs that list it take it back whether or not the node has found that message yet, and it is then dropped, with
no vote, where the game first waits on it. A Python and a TypeScript spectator, each fed the same game in two orders
(the expelling message before the last ROUND_END of the round, and after it), end alike.

And a seat back whose messages of the next round came before the last DROP of it (section 11.3: "whether a
returning seat's messages count never depends on whether they came before or after the votes that dropped it"):
the two spectators end alike in every order of arrival.

Before (session 46), the TypeScript session never took back a seat it held expelled: a node that got the expelling
message before the round's end left the seat out of the next round's seed, and found the honest host's first commit
on another state (`state-mismatch`, an honest seat expelled), while a node that got it after the round's end, and the
reference in either order, played the game to its end; and it lost a seat's messages for a later round that it had
placed before the seat's drop, so it waited for ever on a seat back.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from nodepeer import PEER, tool

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.envelope import Envelope, open_envelope, seal
from p2pnimmt.protocol.session import Session
from p2pnimmt.protocol.transcript import records

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from harness import Net  # noqa: E402

X = 1  # the seat voted out, back, and expelled


def voted_out_and_back(seed: int, cut_at: int, rounds: int, until: str | None) -> Net:
    """Four bots, the open deal: seat 1 cut off after `cut_at` deliveries and voted out in round 0; the cut heals, it
    asks for its seat (REJOIN) and plays on, until it has signed round 1's `until` (None: to the game's end)."""
    net = Net(4, settings=Settings(players=4, deal="open", max_rounds=rounds), seed=seed, spectators=1)
    x = net.identities[X].peer
    net.start()
    net.run(limit=cut_at)
    net.cut = {x}
    net.run()
    net.gone.add(X)
    for voter, ident in enumerate(net.identities):
        if voter != X and X in net.sessions[ident.peer].waiting_for():
            net.handle(ident.peer, net.sessions[ident.peer].drop(X))
    net.run(limit=40)
    net.heal()
    net.gone.discard(X)
    asked = False
    while net.queue:
        net.run(limit=1)
        if not asked and X in net.sessions[x].dropped:
            net.handle(x, net.sessions[x].rejoin())
            asked = True
        if until and any(e.sender == x and e.kind == until and e.body["round"] == 1
                         for e in net.sessions[x].inbox.accepted):
            break
    assert asked
    return net


def accepted(net: Net) -> list[Envelope]:
    """The spectator's messages, in the order it accepted them."""
    spectator = net.watchers[0].peer
    assert net.sessions[spectator].phase.value == "over"
    return [open_envelope(payload) for kind, payload in records(bytes(net.transcripts[spectator])) if kind == "msg"]


def back_then_expelled(seed: int, cut_at: int) -> list[Envelope]:
    """Seat 1 voted out and back; it signs round 1's SEED_COMMIT and SEED_REVEAL, then a STANDIN naming itself
    (`unexpected`) and nothing more. The spectator's messages, in the order it accepted them."""
    net = voted_out_and_back(seed, cut_at, 3, "SEED_REVEAL")
    x = net.identities[X].peer
    seq, prev = net.sessions[x].inbox.head(x)
    expelling = seal(net.identities[X], net.game_id, seq, prev, "STANDIN", {"round": 1, "turn": 0, "seat": X})
    net.tamper[x] = lambda peer, out: []  # gone after it
    for peer in net.peers:
        if peer != x:
            net.queue.append((peer, x, expelling.wire))
    net.run()
    return accepted(net)


def two_orders(messages: list[Envelope]) -> dict[str, list[Envelope]]:
    """Seat 1's messages from its REJOIN to the one that expels it, moved to just before the last ROUND_END of round
    0 (its chain order kept), and to just after it."""
    x = next(e.sender for e in messages if e.kind == "REJOIN")
    rejoin = next(e.seq for e in messages if e.kind == "REJOIN")
    moved = [e for e in messages if e.sender == x and e.seq >= rejoin]
    rest = [e for e in messages if not (e.sender == x and e.seq >= rejoin)]
    last = max(i for i, e in enumerate(rest) if e.kind == "ROUND_END" and e.body["round"] == 0)
    return {"before": rest[:last] + moved + rest[last:], "after": rest[:last + 1] + moved + rest[last + 1:]}


def merged(messages: list[Envelope], seed: int) -> list[Envelope]:
    """The same messages in another order a node may take them in: each sender's in its chain order, the senders
    interleaved at random (seeded), the START first."""
    rng = random.Random(seed)
    chains: dict[bytes, list[Envelope]] = {}
    for env in messages[1:]:
        chains.setdefault(env.sender, []).append(env)
    order = [messages[0]]
    while chains:
        sender = rng.choice(sorted(chains))
        order.append(chains[sender].pop(0))
        if not chains[sender]:
            del chains[sender]
    return order


def typescript_spectators(feeds: list[list[Envelope]], compiled: Path) -> list[dict[str, Any]]:
    done = subprocess.run([tool("node"), str(compiled / "test" / "agree.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=300,
                          input=json.dumps({"spectate": [[e.wire.hex() for e in feed] for feed in feeds]}))
    assert done.returncode == 0, done.stderr
    found: list[dict[str, Any]] = json.loads(done.stdout)["spectate"]
    return found


def python_spectator(order: list[Envelope]) -> dict[str, Any]:
    session = Session(None)
    faults = [[f.code, f.peer.hex() if f.peer else None, f.detail] for e in order for f in session.receive(e.wire)
              if type(f).__name__ == "Fault"]
    dropped = sorted([seat, list(at)] for seat, at in session.table.dropped.items())
    return {"phase": session.phase.value, "scores": list(session.table.game.scores), "dropped": dropped,
            "faults": faults}


@pytest.mark.parametrize("seed, cut_at", [(5, 150), (9, 300)])
def test_a_seat_back_then_expelled_is_taken_back_in_either_order(seed: int, cut_at: int, compiled: Path) -> None:
    messages = back_then_expelled(seed, cut_at)
    orders = two_orders(messages) | {f"merged {k}": merged(messages, k) for k in range(8)}
    typescript = dict(zip(orders, typescript_spectators(list(orders.values()), compiled)))
    python = {name: python_spectator(order) for name, order in orders.items()}
    assert python["before"] == python["after"]
    assert python["before"]["phase"] == "over"
    assert [f[0] for f in python["before"]["faults"]] == ["unexpected"]
    assert python["before"]["dropped"] == [[X, [1, 2, 0]]]  # back, then dropped at its first commit of round 1
    for name in orders:
        assert python[name] == python["before"], name
        assert typescript[name] == python[name], name


@pytest.mark.parametrize("seed, cut_at", [(5, 150), (9, 300)])
def test_a_seat_back_counts_its_messages_that_came_before_its_drop(seed: int, cut_at: int, compiled: Path) -> None:
    """An honest seat voted out and back (11.3): a node that took its messages of the next round before the last
    DROP of it (they wait in their slots, then the drop) uses them once the seat is back, as one that took them after.
    Before, a TypeScript node took them out of their slots at the drop and lost them: it waited on the seat back for
    ever (phase `deal`), where the reference finished the game."""
    messages = accepted(voted_out_and_back(seed, cut_at, 2, None))
    feeds = {"as taken": messages} | {f"merged {k}": merged(messages, k) for k in range(10)}
    typescript = dict(zip(feeds, typescript_spectators(list(feeds.values()), compiled)))
    python = {name: python_spectator(feed) for name, feed in feeds.items()}
    assert python["as taken"]["phase"] == "over" and python["as taken"]["dropped"] == []
    for name in feeds:
        assert python[name] == python["as taken"], name
        assert typescript[name] == python[name], name


def round_end_zero_recast(net: Net, quiet: int, liar: int | None) -> list[Envelope]:
    """The spectator's messages of `net` with seat `quiet`'s ROUND_END(0) signed again without its `back` (it did not
    have the ask), and seat `liar`'s with wrong scores (its `back` kept: it lists X); nothing either signed after."""
    seat = {ident.peer: s for s, ident in enumerate(net.identities)}
    out: list[Envelope] = []
    ended: set[int] = set()
    for env in accepted(net):
        s = seat[env.sender]
        if s in ended:
            continue
        if s in (quiet, liar) and env.kind == "ROUND_END" and env.body["round"] == 0:
            body = {k: v for k, v in env.body.items() if k != "back"} if s == quiet else env.body | {"scores": [0] * 4}
            env = seal(net.identities[s], net.game_id, env.seq, env.prev, env.kind, body)
            ended.add(s)
        out.append(env)
    return out


def test_a_signer_expelled_by_its_own_round_end_does_not_count(compiled: Path) -> None:
    """11.3's "more than half" (session 46's review): seat 1 voted out and asks back in round 0; of the three
    signers of ROUND_END(0) seat 0 lists the ask, seat 2 does not, and seat 3 lists it in a ROUND_END with wrong
    scores, the message that expels it (`result-mismatch`). Seat 3 is dropped at (0, 32, 1), so it is not among the
    seats whose ROUND_END is required there: one of two lists the ask, not more than half, and seat 1 stays out
    (counted, two of three would have taken it back: the honest control, seat 3's ROUND_END as signed). Both
    implementations agree, in every order of arrival (a pin: both did so before)."""
    net = voted_out_and_back(5, 150, 2, None)
    liar = round_end_zero_recast(net, 2, 3)
    control = round_end_zero_recast(net, 2, None)
    feeds = {"liar": liar, "control": control} | {f"liar merged {k}": merged(liar, k) for k in range(6)}
    typescript = dict(zip(feeds, typescript_spectators(list(feeds.values()), compiled)))
    python = {name: python_spectator(feed) for name, feed in feeds.items()}
    assert [f[0] for f in python["liar"]["faults"]] == ["result-mismatch"]
    assert python["liar"]["dropped"][0][0] == X and python["liar"]["dropped"][0][1][0] == 0  # still out of round 0
    assert python["liar"]["dropped"][1] == [3, [0, 32, 1]]
    assert not any(seat == X and at[0] == 0 for seat, at in python["control"]["dropped"])  # back in the control
    for name in feeds:
        if name != "control":
            assert python[name] == python["liar"], name
        assert typescript[name] == python[name], name
