"""Seeded chaos at a mixed table (issue 25's principle, checked on inputs nobody listed): one seed draws a table
(deal, variant, 3 to 10 seats, which seats run in TypeScript) and what goes wrong at it, and the same game is
played at the all-Python table and at the mixed one (tests/peer/test_mixed_tables.py's `Table`).

What a seed may draw (`Plan`):
- delivery: the order shuffled (the harness's queue), messages held back for a while, delivered twice, an earlier
  message delivered again to someone else later (a replay), all of it whatever the sender;
- a forger: one seat's key signs, at the network, a second message at the `seq` of one it really sent, with one
  field changed, one field added or one taken out, delivered to some peers (equivocation, a wrong body; the seat's
  own node never signed it);
- a cheat (a Python seat, so that its own session drives it, tests/protocol/adversary.py and sealed_adversary.py):
  its `nth` message of one kind is sent twice, with a field too many, with a field changed, or is followed by a row
  choice for a turn gone by or for this one, a STANDIN naming itself or any seat, a DROP for this turn or a later
  one, a KEEP, a REJOIN while it is seated, or (a sealed deal) its keys early, a false alarm, or its reveal is never
  sent;
- presence: a seat cut off, or two (and later back, asking for their seats, or not; back, what was on its way is
  delivered then, or it was lost and the heads exchange of the new links brings what each lacks), a node restarted
  from its transcript, a seat whose clock runs out on every move, a seat that stalls and is asked the stand-in's moves.

Whenever nothing is left to deliver, the table's clocks act (`quiet`): what was held back is delivered, a stalled
seat is asked the stand-in's move, a node that waits asks the others for what it lacks (its `heads`, as the
reference's node does every half second while a step waits), and every seat votes out each seat it waits on (the
drop timer), and with a seat cut off any seat that went on from its message and never passed it on (net/waiting.py:
never_passed_on); a seat cut off may come back. A seat cut off is gone from every node's view (harness.Net.gone): after
each delivery, the node that took it joins a vote on such a seat it waits on once another seat cast one (the node's
policy, net/waiting.py; the session itself joins no vote, protocol.md 11.1); no other vote is joined on sight. Every decision is drawn from the seed's own stream and from what is on the wire (the same at both
tables as long as every node agrees), so a disagreement shows as other bytes: `test_mixed_tables.node_by_node`
compares every node's outgoing bytes, transcript, outcome and seats away, and both verifiers' verdicts.
"""

from __future__ import annotations

import copy
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mixed import Mixed, NodeSeats, TypeScriptRefused, catch_up
from test_mixed_tables import DEALS, Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from adversary import Adversary  # noqa: E402
from sealed_adversary import Cheat, keys_body  # noqa: E402

from p2pnimmt.protocol.codec import DecodeError  # noqa: E402
from p2pnimmt.protocol.envelope import open_envelope, seal  # noqa: E402
from p2pnimmt.protocol.session import LocalError  # noqa: E402

CHEATS = ["twice", "extra-field", "wrong-value", "late-row", "stray-row", "standin-self", "drop-self",
          "keys-early", "false-alarm", "no-reveal"]
SEALED_ONLY = {"keys-early", "false-alarm"}
LATER_CHEATS = ["keep-other", "rejoin-early", "drop-future", "standin-other"]
RARE = {"ROW_CHOICE", "ROUND_END", "SEALED_SHUFFLE", "SEALED_UNLOCK", "SEALED_KEYS", "START_ACK"}
KINDS = ["PLAY_COMMIT", "PLAY_REVEAL", "ROW_CHOICE", "ROUND_END", "DRAFT_PICK", "SEALED_SHUFFLE", "SEALED_UNLOCK",
         "SEALED_KEYS", "START_ACK"]


@dataclass
class Plan:
    """What one seed plays: the table and what goes wrong at it."""

    seed: int
    deal: str
    players: int
    typescript: list[int]
    rounds: int
    clock: int | None
    cheat: tuple[int, str, str, int] | None = None  # (seat, what, kind of message it hangs on, which one of them)
    forger: int | None = None  # the seat whose key signs twins at the network
    cut: tuple[int, int, bool] | None = None  # (seat, after so many deliveries, back after the vote)
    cut2: tuple[int, int] | None = None  # a second seat cut off (after so many deliveries), back with the first
    lossy: bool = False  # the cut loses what was on its way (the links were lost); back, the heads exchange of the
    # new links brings what a node lacks (catch_up); else what was held is delivered then
    restart: tuple[int, int] | None = None  # (node, after so many deliveries)
    clocked: int | None = None
    stalled: int | None = None
    hold: float = 0.0  # per delivery: one message on its way held back until the table is quiet
    twice: float = 0.0  # per delivery: one message on its way delivered twice
    replay: float = 0.0  # per delivery: a message delivered before, delivered again to another peer
    forge: float = 0.0  # per delivery: the forger's twin of a message on its way
    forge_from: int = 0  # the forger's first twin comes after so many deliveries, its last three twins later
    pull: bool = True  # a node that waits asks the others for what it lacks (False: a gap stays until it is voted on)
    notes: list[str] = field(default_factory=list)

    def describe(self) -> str:
        parts = [f"seed {self.seed}: {self.deal} {self.players} seats, TypeScript {self.typescript}, "
                 f"{self.rounds} round(s), clock {self.clock}"]
        if self.forger is not None:
            parts.append(f"forger {self.forger} from {self.forge_from} ({self.forge})")
        for name in ("cheat", "cut", "cut2", "restart", "clocked", "stalled"):
            if getattr(self, name) is not None:
                parts.append(f"{name} {getattr(self, name)}")
        if self.lossy:
            parts.append("lossy")
        parts.append(f"hold {self.hold:.3f} twice {self.twice:.3f} replay {self.replay:.3f}")
        if not self.pull:
            parts.append("no pull")
        return "; ".join(parts)


def still_playing(p: Plan, outcomes: list[dict[str, Any]], started: bool = False) -> list[int]:
    """The nodes that stopped with their game neither over nor aborted, but for those nothing excuses: the cheat's,
    the forger's, the seats cut off for good, those waiting for their host's new start (a table stopped so is the
    same at both tables, not a disagreement, but one misbehaving or absent player must not cost the others their
    game). `started`: none at a table where no node
    started (a seat cut off before its START_ACK left it: no game starts without it, protocol.md 11, and none was
    lost)."""
    if started and all(o["phase"] in ("lobby", "starting") for o in outcomes):
        return []
    gone = [p.cut[0]] + ([p.cut2[0]] if p.cut2 else []) if p.cut and not p.cut[2] else []  # never back
    excused = {x for x in [(p.cheat or (None,))[0], p.forger, *gone] if x is not None}
    # a node still starting that refused a seat's START_ACK waits for its host's new start without that seat
    # (protocol.md 14, "A new start": made by the nodes' net, not played here), as one aborted on that seat's twins does
    return [i for i, o in enumerate(outcomes) if o["phase"] not in ("over", "aborted") and i not in excused
            and not (o["phase"] == "starting" and o["refused"])]


def plan(seed: int, pull: bool = True) -> Plan:
    """The seed's table and events (drawn from `chaos/SEED` alone). `pull` False: no node asks for what it lacks,
    so the votes are cast while some nodes lack what others hold (how the seeds before the pull were played:
    the disagreements found then show only so)."""
    rng = random.Random(f"chaos/{seed}")
    deal = rng.choice(["open", "open", "sealed", "sealed", "draft", "tactical"])
    players = rng.choice([3, 3, 4, 4, 5, 6, 7, 8, 9, 10])
    odd = rng.random() < 0.5
    typescript = [i for i in range(players) if i % 2 == (1 if odd else 0)] + [players + 1]
    python = [i for i in range(players) if i not in typescript]
    p = Plan(seed, deal, players, typescript, rounds=rng.choice([1, 2]), clock=rng.choice([None, None, 30]),
             pull=pull)
    if rng.random() < 0.6:
        whats = [w for w in CHEATS if deal == "sealed" or w not in SEALED_ONLY]
        what = rng.choice(whats)
        kinds = {"late-row": ["PLAY_REVEAL"], "stray-row": ["PLAY_COMMIT", "PLAY_REVEAL"],
                 "keys-early": ["PLAY_COMMIT", "PLAY_REVEAL", "SEALED_UNLOCK"], "false-alarm": ["PLAY_REVEAL"],
                 "no-reveal": ["PLAY_REVEAL"], "standin-self": ["PLAY_COMMIT"], "drop-self": ["PLAY_COMMIT"]}
        kind = rng.choice(kinds.get(what, [k for k in KINDS if deal_has(deal, k)]))
        p.cheat = (rng.choice(python), what, kind, rng.randrange(3 if kind in RARE else 12))
    if rng.random() < 0.25:
        p.forger = rng.randrange(players)
        p.forge = rng.choice([0.002, 0.01, 0.03])
        p.forge_from = rng.randrange(0, 60 * players)
    others = [s for s in range(players) if p.cheat is None or s != p.cheat[0]]
    if rng.random() < 0.4:
        p.cut = (rng.choice(others), rng.randrange(20, 120 * players), rng.random() < 0.5)
    if rng.random() < 0.2:
        p.restart = (rng.choice([i for i in range(players + 2) if p.cheat is None or i != p.cheat[0]]),
                     rng.randrange(20, 100 * players))
    if p.clock is not None and rng.random() < 0.7:
        p.clocked = rng.choice(others)
    if rng.random() < 0.2:
        p.stalled = rng.choice(others)
    p.hold = rng.choice([0.0, 0.0, 0.01, 0.05])
    p.twice = rng.choice([0.0, 0.0, 0.01, 0.05])
    p.replay = rng.choice([0.0, 0.0, 0.005, 0.02])
    # (drawn last, so that the draws above, and the seeds swept before these were added, stay as they were)
    if rng.random() < 0.2 and python:
        p.cheat = (rng.choice(python), rng.choice(LATER_CHEATS), "PLAY_COMMIT", rng.randrange(12))
        if p.restart is not None and p.restart[0] == p.cheat[0]:
            p.restart = None  # (a cheat's session is wrapped: it is not restarted)
    others = [s for s in range(players) if p.cheat is None or s != p.cheat[0]]
    if p.cut is not None and rng.random() < 0.3:
        p.cut2 = (rng.choice([s for s in others if s != p.cut[0]]), p.cut[1] + rng.randrange(0, 40 * players))
    # (drawn last, as above; since session 31: a proof sent while a node's links were down reaches it only by the
    # heads answers of its new links, protocol.md 12, "A proof reaches every node")
    p.lossy = p.cut is not None and p.cut[2] and rng.random() < 0.5
    return p


def deal_has(deal: str, kind: str) -> bool:
    """Whether a game of `deal` (chaos's names) has messages of `kind`."""
    if kind.startswith("SEALED_"):
        return deal == "sealed"
    return kind != "DRAFT_PICK" or deal == "draft"


def changed(value: Any, rng: random.Random) -> Any:
    """Another value of the same shape (a field changed)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice([1, -1, 7]) if value > 0 else value + 1
    if isinstance(value, bytes):
        return value[:-1] + bytes([value[-1] ^ 1]) if value else b"\x00"
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return value[:-1] if value else [0]
    if isinstance(value, dict):
        return {**value, "x": 1}
    return 0


def mutate(body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The body with one field changed, one added or one taken out."""
    body = copy.deepcopy(body)
    how = rng.choice(["change", "change", "add", "remove"])
    keys = sorted(body)
    if how == "add" or not keys:
        body["x"] = 1
    elif how == "remove":
        del body[rng.choice(keys)]
    else:
        key = rng.choice(keys)
        body[key] = changed(body[key], rng)
    return body


def cheat_rule(p: Plan, net: Mixed) -> tuple[Any, Any] | None:
    """The cheat of the plan on `net` (its Adversary or Cheat), or None."""
    if p.cheat is None:
        return None
    seat, what, kind, nth = p.cheat
    rng = random.Random(f"cheat/{p.seed}")
    seen = [0]

    def mine(k: str) -> bool:
        if k != kind:
            return False
        seen[0] += 1
        return seen[0] == nth + 1

    if what in ("keys-early", "false-alarm", "no-reveal"):
        def change(c: Cheat, k: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]] | None:
            if c.fired or not mine(k):
                return None
            c.fired = True
            if what == "no-reveal":
                return []
            return [(k, body), ("SEALED_KEYS", keys_body(c.session, body["round"], alarm=what == "false-alarm"))]
        return Cheat(net, seat, change), None

    def rule(adv: Adversary, env: Any, body: dict[str, Any]) -> Any:
        if adv.fired or not mine(env.kind):
            return None
        adv.fired = True
        if what == "twice":
            return adv.send(env.kind, body, env) + adv.send(env.kind, dict(body))
        if what == "extra-field":
            return adv.send(env.kind, {**body, "x": 1}, env)
        if what == "wrong-value":
            return adv.send(env.kind, mutate(body, rng), env)
        r, t = body.get("round", 0), body.get("turn", 0)
        extra: tuple[str, dict[str, Any]]
        if what == "late-row":
            extra = ("ROW_CHOICE", {"round": r, "turn": max(t - 1, 0), "row": rng.randrange(4)})
        elif what == "stray-row":
            extra = ("ROW_CHOICE", {"round": r, "turn": t, "row": rng.randrange(4)})
        elif what == "standin-self":
            extra = ("STANDIN", {"round": r, "turn": t, "seat": seat})
        elif what == "drop-self":  # a vote naming a seat at the commit step of this turn
            extra = ("DROP", {"round": r, "step": 2 + 3 * t, "seat": rng.randrange(p.players)})
        elif what == "drop-future":  # a vote at the commit step of a later turn
            extra = ("DROP", {"round": r, "step": 2 + 3 * min(t + 1 + rng.randrange(3), 9), "seat": rng.randrange(p.players)})
        elif what == "keep-other":
            extra = ("KEEP", {"round": r, "step": 2 + 3 * t, "seat": rng.randrange(p.players)})
        elif what == "rejoin-early":
            extra = ("REJOIN", {"round": r})
        else:  # standin-other: the stand-in asked for any seat's move of this turn
            extra = ("STANDIN", {"round": r, "turn": t, "seat": rng.randrange(p.players)})
        return adv.send(env.kind, body, env) + adv.send(*extra)
    return None, Adversary(net, seat, rule)


class Chaos:
    """One plan played on one net of a Table."""

    def __init__(self, p: Plan, net: Mixed) -> None:
        self.p, self.net = p, net
        self.rng = random.Random(f"events/{p.seed}")
        self.delivered: list[tuple[bytes, bytes, bytes]] = []
        self.delayed: list[tuple[bytes, bytes, bytes]] = []
        self.count = 0
        self.made = cheat_rule(p, net)
        self.back = False
        self.forged = 0
        self.pulled: set[tuple[bytes, bytes]] = set()
        seats = net.identities
        if p.clocked is not None:
            net.clocked = {seats[p.clocked].peer}
        if p.stalled is not None:
            net.stalled = {seats[p.stalled].peer}

    def play(self, limit: int = 200_000) -> None:
        net = self.net
        net.start()
        for _ in range(limit):
            if not net.queue:
                if not self.quiet():
                    return
                continue
            self.before_delivery()
            to, frm, wire = self.pop()
            if to in net.cut or frm in net.cut:
                net.held.append((to, frm, wire))
                continue
            self.delivered.append((to, frm, wire))
            self.count += 1
            net.handle(to, net.sessions[to].receive(wire, via=frm))
            if net.gone and to not in net.cut:
                net.join_votes(to)  # the node's policy: a vote on a seat gone from its view is joined on sight
            self.after_delivery()
        raise AssertionError(f"{self.p.describe()}: no end after {limit} steps")

    def pop(self) -> tuple[bytes, bytes, bytes]:
        q = self.net.queue
        i = self.net.rng.randrange(len(q))
        q.rotate(-i)
        item = q.popleft()
        q.rotate(i)
        return item

    def before_delivery(self) -> None:
        p, net, rng = self.p, self.net, self.rng
        q = net.queue
        if p.hold and len(q) > 1 and rng.random() < p.hold:
            i = rng.randrange(len(q))
            q.rotate(-i)
            self.delayed.append(q.popleft())
            q.rotate(i)
        if p.twice and q and rng.random() < p.twice:
            q.append(q[rng.randrange(len(q))])
        if p.replay and self.delivered and rng.random() < p.replay:
            _to, frm, wire = self.delivered[rng.randrange(len(self.delivered))]
            q.append((net.peers[rng.randrange(len(net.peers))], frm, wire))
        if p.forger is not None and q and self.count >= p.forge_from and self.forged < 3 and rng.random() < p.forge:
            self.forged += 1
            self.forge_twin()

    def forge_twin(self) -> None:
        net, rng = self.net, self.rng
        signer = net.identities[self.p.forger]  # type: ignore[index]
        theirs = [item for item in net.queue if item[1] == signer.peer]
        if not theirs:
            return
        _to, _frm, wire = theirs[rng.randrange(len(theirs))]
        try:
            env = open_envelope(wire)
        except DecodeError:
            return
        if env.sender != signer.peer:
            return
        twin = seal(signer, net.game_id, env.seq, env.prev, env.kind, mutate(dict(env.body), rng)).wire
        for peer in net.peers:
            if peer != signer.peer and rng.random() < 0.5:
                net.queue.append((peer, signer.peer, twin))

    def after_delivery(self) -> None:
        p, net = self.p, self.net
        if p.cut is not None and self.count == p.cut[1]:
            net.cut = {net.identities[p.cut[0]].peer}
            net.gone = {p.cut[0]}
        if p.cut2 is not None and self.count == p.cut2[1]:
            net.cut = net.cut | {net.identities[p.cut2[0]].peer}
            net.gone = net.gone | {p.cut2[0]}
        if p.restart is not None and self.count == p.restart[1]:
            peer = net.peers[p.restart[0]]
            if peer not in net.cut:
                net.restart(peer)

    def quiet(self) -> bool:
        """Nothing on its way: the clocks act. False once nothing more happens."""
        net = self.net
        if self.delayed:
            net.queue.extend(self.delayed)
            self.delayed = []
            return True
        if net.stalled and self.ask_stand_in():
            return True
        if self.p.pull and self.pull():
            return True
        if self.vote():
            return True
        if net.cut and self.p.cut is not None and self.p.cut[2] and not self.back:
            self.back = True
            back, net.cut = sorted(net.cut), set()
            net.gone = set()
            if self.p.lossy:  # what was on its way is lost; each node back links to every peer again
                net.held = []
                for peer in back:
                    catch_up(net, peer)
                return True
            net.queue.extend(net.held)
            net.held = []
            return True
        if self.back and self.ask_back():
            return True
        return False

    def pull(self) -> bool:
        """Each node that waits on a seat asks its peers for what it lacks (the reference's node sends its heads
        every half second while a step waits, p2pnimmt/net/waiting.py; protocol.md 14 `heads`): a message that
        reached only some nodes before its sender was cut off reaches the rest from those that hold it."""
        net = self.net
        nodes = net.identities + net.watchers
        pulled = False
        for ident in nodes:
            if ident.peer in net.cut:
                continue
            session: Any = net.sessions[ident.peer]
            if not [seat for seat in session.waiting_for() if net.identities[seat].peer != ident.peer]:
                continue
            heads = session.heads()
            for other in nodes:
                if other.peer == ident.peer or other.peer in net.cut:
                    continue
                for wire in net.sessions[other.peer].missing_for(heads):
                    if (ident.peer, wire) not in self.pulled:  # what it took once and did not keep, it keeps not
                        self.pulled.add((ident.peer, wire))
                        net.queue.append((ident.peer, other.peer, wire))
                        pulled = True
        return pulled

    def ask_stand_in(self) -> bool:
        net = self.net
        asked = False
        for x in sorted(net.stalled):
            seat = net.identities.index(next(i for i in net.identities if i.peer == x))
            for ident in net.identities:
                session: Any = net.sessions[ident.peer]
                if ident.peer == x or ident.peer in net.cut or seat not in session.waiting_for():
                    continue
                try:
                    net.handle(ident.peer, session.ask_stand_in(seat))
                    asked = True
                except LocalError:
                    pass
        return asked

    def vote(self) -> bool:
        """Each seat's drop timer: it votes out each seat it waits on (and, while it waits, each seat cut off)."""
        net = self.net
        voted = False
        cut = {s for s, ident in enumerate(net.identities) if ident.peer in net.cut}
        for ident in net.identities:
            if ident.peer in net.cut:
                continue
            session: Any = net.sessions[ident.peer]
            waiting = set(session.waiting_for())
            for seat in sorted(waiting | (cut if waiting else set())):
                try:
                    net.handle(ident.peer, session.drop(seat))
                    voted = True
                except LocalError:
                    pass
        # and a seat that went on from the message of a seat cut off, and never passed it on, with it (harness.Net.
        # vote_out_keepers: asked for it first, as the node's heads do)
        queued = len(net.queue)
        for ident in net.identities:
            if ident.peer not in net.cut:
                net.vote_out_keepers(ident.peer)
        return voted or len(net.queue) > queued

    def ask_back(self) -> bool:
        net, p = self.net, self.p
        assert p.cut is not None
        asked = False
        for seat in [p.cut[0]] + ([p.cut2[0]] if p.cut2 is not None else []):
            x = net.identities[seat].peer
            if seat not in net.dropped_at(x):
                continue
            try:
                net.handle(x, net.sessions[x].rejoin())  # type: ignore[union-attr]
                asked = True
            except (LocalError, TypeScriptRefused):
                pass
        return asked


def table_of(p: Plan, child: NodeSeats) -> Table:
    return Table(child, p.deal, p.players, p.typescript, seed=p.seed, rounds=p.rounds, clock=p.clock)


def play(p: Plan, child: NodeSeats) -> Table:
    """Both tables of the plan played until nothing more happens."""
    table = table_of(p, child)
    for net in table.nets:
        Chaos(p, net).play()
    return table


assert set(DEALS) >= {"open", "sealed", "draft", "tactical"}
