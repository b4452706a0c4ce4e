"""Mixed tables: the reference's Python sessions and TypeScript seats at one table, linked in memory.

The TypeScript seats live in one `node` child process (web/peer/test/mixed.ts, compiled by the `compiled`
fixture) that speaks length-prefixed frames on its stdin and stdout: 4 bytes big-endian length, then UTF-8 JSON,
one answer per request. `TypeScriptSeat` stands where tests/protocol/harness.py's Net keeps a Session: fed the
bytes a peer delivered, it returns what to send, as Outgoings the Net routes like any other.

Every seat, whichever implementation runs it, is driven by one rule (`Mixed.move`): after each input, the move
its seat owes now (a card to commit, a row, a draft pick: what the game waits on from it) is made at once, the
choice drawn from a stream of its own (`moves/SEED/INDEX`) among the cards it holds, sorted. Keys and entropy are
the harness's (key/SEED/i, SEED/i), so a seat signs the same bytes whether Python or TypeScript runs it: the same
game played with every seat in Python gives every node the same outgoing messages and the same transcript.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

from nodepeer import NODE_FLAGS, PEER, tool

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from harness import Net, catch_up, restart  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.net.waiting import refused_acks  # noqa: E402
from p2pnimmt.protocol.events import Outgoing  # noqa: E402
from p2pnimmt.protocol.identity import Identity  # noqa: E402
from p2pnimmt.protocol.session import LocalError, Session  # noqa: E402

NODE_IDS = itertools.count()  # a TypeScript node's id in its process: one process may host the nodes of many tables


class TypeScriptError(AssertionError):
    """The TypeScript node threw on an input it should take (a bug, or a part it lacks): the test fails."""


class TypeScriptRefused(LocalError):
    """The TypeScript node refused a player's move (as a Python session's LocalError)."""


# A person's asks (a move, a vote, its seat back): a TypeScript node's error answer to one is its refusal (as a
# Python session's LocalError), to anything else a failure.
ASKS = ("play", "row", "pick", "auto", "drop", "rejoin", "standin")


class NodeSeats:
    """The node process that hosts the TypeScript seats of a table (started and ended by us, by its pid), with the
    project's V8 flags (NODE_FLAGS)."""

    def __init__(self, script: Path, log: Path) -> None:
        self.log = log
        self._err: IO[bytes] = open(log, "wb")
        self.proc = subprocess.Popen([tool("node"), *NODE_FLAGS, str(script)], cwd=PEER, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._err)
        self.calls = 0

    def call(self, op: str, node: int, **fields: Any) -> dict[str, Any]:
        payload = json.dumps({"op": op, "id": node, **fields}).encode()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(len(payload).to_bytes(4, "big") + payload)
        self.proc.stdin.flush()
        size = int.from_bytes(self._read(4), "big")
        self.calls += 1
        return json.loads(self._read(size))

    def _read(self, n: int) -> bytes:
        assert self.proc.stdout is not None
        data = self.proc.stdout.read(n)
        if len(data) != n:
            self.proc.wait(timeout=30)
            raise TypeScriptError(f"the node process ended (status {self.proc.returncode}): "
                                  f"{self.log.read_text(errors='replace')[-3000:]}")
        return data

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._err.close()


def outgoing(items: Iterable[list[Any]]) -> list[Outgoing]:
    return [Outgoing(bytes.fromhex(wire), None if to is None else bytes.fromhex(to),
                     tuple(bytes.fromhex(p) for p in skip), watchers) for wire, to, skip, watchers in items]


class TypeScriptSeat:
    """A TypeScript node (web/peer/src/seat.ts) in the node process, with the face of a Session a Net uses."""

    def __init__(self, child: NodeSeats, index: int, identity: Identity, label: str, game_id: bytes, relay: bool,
                 native: bool) -> None:
        self.child, self.index, self.identity, self.me = child, index, identity, identity.peer  # index: in child
        self.due: list[Any] | None = None
        self.call("new", secret=identity.secret.hex(), label=label, game=game_id.hex(), relay=relay, native=native)

    def call(self, op: str, **fields: Any) -> list[Outgoing]:
        answer = self.child.call(op, self.index, **fields)
        if "error" in answer:
            if op in ASKS:
                raise TypeScriptRefused(answer["error"])
            raise TypeScriptError(f"TypeScript node {self.index}, {op}: {answer['stack']}")
        self.due = answer["due"]
        return outgoing(answer["out"])

    def host(self, salt: bytes, settings: Settings, roster: Sequence[tuple[bytes, str, bool]],
             carry: dict[str, Any] | None = None) -> list[Outgoing]:
        return self.call("host", salt=salt.hex(), settings={
            "variant": settings.variant, "deal": settings.deal, "point_limit": settings.point_limit,
            "max_rounds": settings.max_rounds, "clock": settings.clock},
            roster=[[key.hex(), name, bot] for key, name, bot in roster],
            carry=None if carry is None else {**carry, "game": carry["game"].hex()})

    def carry_problem(self, keys: Sequence[bytes], carry: dict[str, Any] | None) -> str | None:
        """Why this node refuses a new START seating `keys` with `carry` (protocol.md 12; seat.ts carryProblem)."""
        answer = self.child.call("carry", self.index, roster=[k.hex() for k in keys],
                                 carry=None if carry is None else {**carry, "game": carry["game"].hex()})
        return answer["problem"]

    def out_for_proof(self, rounds: int | None = None) -> dict[int, str]:
        """The seats out of this node's game for a proof, with why (protocol.md 12, "Who G' leaves out"; session.ts
        outForProof)."""
        answer = self.child.call("carry", self.index, roster=[], carry=None, rounds=rounds)
        return {seat: why for seat, why in answer["out"]}

    def receive(self, wire: bytes, via: bytes | None = None) -> list[Outgoing]:
        return self.call("deliver", wire=wire.hex(), via=None if via is None else via.hex())

    def play(self, card: int) -> list[Outgoing]:
        return self.call("play", card=card)

    def choose_row(self, row: int) -> list[Outgoing]:
        return self.call("row", row=row)

    def pick(self, card: int) -> list[Outgoing]:
        return self.call("pick", card=card)

    def drop(self, seat: int) -> list[Outgoing]:
        return self.call("drop", seat=seat)

    def rejoin(self) -> list[Outgoing]:
        return self.call("rejoin")

    def play_stand_in(self) -> list[Outgoing]:
        return self.call("auto")

    def ask_stand_in(self, seat: int) -> list[Outgoing]:
        return self.call("standin", seat=seat)

    def restart(self) -> list[Outgoing]:
        """The node's process died: it comes back from its transcript and secrets (Seat.restart)."""
        return self.call("restart")

    def heads(self) -> list[list[bytes | int]]:
        return [[bytes.fromhex(sender), count] for sender, count in self.child.call("heads", self.index)["heads"]]

    def missing_for(self, heads: list[list[Any]]) -> list[bytes]:
        have = [[sender.hex(), count] for sender, count in heads]
        return [bytes.fromhex(w) for w in self.child.call("missing", self.index, heads=have)["wires"]]

    def waiting_for(self) -> tuple[int, ...]:
        return tuple(self.child.call("waiting", self.index)["waiting"])

    def voters(self, seat: int) -> set[int]:
        """The seats whose DROP names `seat` where the game waits now (the reference's Table.voters there)."""
        return set(self.child.call("voters", self.index, seat=seat)["voters"])

    @property
    def phase(self) -> str:
        return str(self.child.call("phase", self.index)["phase"])

    def report(self) -> dict[str, Any]:
        return self.child.call("report", self.index)


def python_due(session: Session) -> list[Any] | None:
    """The move a Python seat owes now, by the rule mixed.ts's `due` applies to a TypeScript seat."""
    seat = session.seat
    if seat is None or seat in session.dropped or session.phase not in ("turn", "deal"):
        return None
    if seat not in session.waiting_for():
        return None
    if session.phase == "deal":
        draft = session.game.draft
        if draft is None or draft.to_move != seat:
            return None
        return ["pick", sorted(draft.open_cards)]
    step = session.step_now()
    assert step is not None
    if (step - 2) % 3 == 0:
        return ["play", sorted(session.view().hand)]
    return ["row"] if (step - 2) % 3 == 2 else None


class Mixed(Net):
    """A Net whose nodes of `typescript` (indices into its seats, then its spectators) are TypeScript nodes in
    `child`; every seat moves by one rule (the module's docstring). `child` None: every node is Python."""

    def __init__(self, players: int, *, typescript: Iterable[int] = (), child: NodeSeats | None = None,
                 native: bool = True, seed: int = 0, **kwargs: Any) -> None:
        """`typescript`: the nodes (seats, then spectators, from 0) that are TypeScript nodes in `child`."""
        super().__init__(players, seed=seed, **kwargs)
        self.bots = {}  # the moves are Mixed.move's
        nodes = self.identities + self.watchers
        self.typescript = sorted(set(typescript))
        assert not self.typescript or child is not None
        for i in self.typescript:
            ident = nodes[i]
            assert child is not None
            self.sessions[ident.peer] = TypeScriptSeat(  # type: ignore[assignment]
                child, next(NODE_IDS), ident, f"{seed}/{i}", self.game_id, kwargs.get("relay", True), native)
        self.choosers = {ident.peer: random.Random(f"moves/{seed}/{i}") for i, ident in enumerate(nodes)}
        self.sent: dict[bytes, list[tuple[bytes, bytes | None, tuple[bytes, ...], bool]]] = \
            {p: [] for p in self.sessions}
        self.moves: dict[bytes, list[list[Any]]] = {p: [] for p in self.sessions}
        self.stalled: set[bytes] = set()  # seats whose person makes no move (others may ask the stand-in, 11.2)
        self.away_seen: dict[bytes, list[list[int]]] = {p: [] for p in self.sessions}  # the seats away after each input
        self.clocked: set[bytes] = set()  # seats whose clock runs out on every move (a card, a row, a draft pick):
        # the stand-in's, marked auto on its PLAY_REVEAL and ROW_CHOICE

    def is_typescript(self, peer: bytes) -> bool:
        return isinstance(self.sessions[peer], TypeScriptSeat)

    def handle(self, peer: bytes, outputs: list) -> None:
        for item in outputs:
            if isinstance(item, Outgoing):
                self.sent[peer].append((item.wire, item.to, tuple(item.skip), item.watchers_only))
                self.send(peer, item)
            else:
                self.events[peer].append(item)
        self.move(peer)
        self.away_seen[peer].append(self.away(peer))

    def away(self, peer: bytes) -> list[int]:
        """The seats `peer`'s node counts away now (protocol.md 11.2)."""
        session: Any = self.sessions[peer]
        if isinstance(session, TypeScriptSeat):
            return list(session.child.call("away", session.index)["away"])
        return [s for s in range(len(session.table.roster)) if session.away(s)]

    def due(self, peer: bytes) -> list[Any] | None:
        session = self.sessions[peer]
        return session.due if isinstance(session, TypeScriptSeat) else python_due(session)

    def move(self, peer: bytes) -> None:
        """The move the seat owes now, if any, made at once (its outputs handled, and so on)."""
        due = self.due(peer)
        if due is None or peer in self.stalled:
            return
        rng = self.choosers[peer]
        session: Any = self.sessions[peer]
        self.moves[peer].append(due)
        if peer in self.clocked:
            out = session.play_stand_in()
        elif due[0] == "play":
            out = session.play(rng.choice(due[1]))
        elif due[0] == "pick":
            out = session.pick(rng.choice(due[1]))
        else:
            out = session.choose_row(rng.randrange(4))
        self.handle(peer, out)

    def restart(self, peer: bytes) -> None:
        """`peer`'s process dies (what was queued for it is lost) and comes back from its transcript and secrets
        (the reference's harness.restart, or the TypeScript Seat.restart); its peers then tell it what it lacks
        and it tells them (the heads exchange on reconnect, harness.catch_up)."""
        self.queue = type(self.queue)(item for item in self.queue if item[0] != peer)
        session: Any = self.sessions[peer]
        self.handle(peer, session.restart() if isinstance(session, TypeScriptSeat) else restart(self, peer))
        catch_up(self, peer)

    def join_votes(self, peer: bytes) -> None:
        """The node's policy (harness.Net.join_votes) for a TypeScript node too: it joins a vote against a seat in
        `gone` that the game waits on, once another seat's DROP against it is in (net/waiting.py: voted_out_unseen,
        page_waiting.ts)."""
        session: Any = self.sessions[peer]
        if not isinstance(session, TypeScriptSeat):
            super().join_votes(peer)
            return
        seats = [ident.peer for ident in self.identities]
        if peer not in seats:
            return  # a spectator votes not
        me = seats.index(peer)
        for seat in sorted(self.gone & set(session.waiting_for())):
            if session.voters(seat) - {me}:
                try:
                    self.handle(peer, session.drop(seat))
                except LocalError:
                    pass

    def never_passed_on(self, peer: bytes, seat: int) -> set[int]:
        """harness.Net.never_passed_on for a TypeScript node too (Seat.neverPassedOn)."""
        session: Any = self.sessions[peer]
        if not isinstance(session, TypeScriptSeat):
            return super().never_passed_on(peer, seat)
        return set(session.child.call("passed", session.index, seat=seat)["passed"])

    def few_enough(self, peer: bytes, absent: set[int]) -> bool:
        """harness.Net.few_enough for a TypeScript node too (Seat.fewEnoughGone)."""
        session: Any = self.sessions[peer]
        if not isinstance(session, TypeScriptSeat):
            return super().few_enough(peer, absent)
        return bool(session.child.call("few", session.index, absent=sorted(absent))["few"])

    def vote_out(self, seat: int) -> int:
        """Every other seat the game waits on `seat` at votes to drop it; how many voted. Each node's timer found it
        gone: a node that comes to wait on it later joins the vote on sight (harness.Net.gone, the node's policy)."""
        self.gone.add(seat)
        voted = 0
        for voter, ident in enumerate(self.identities):
            session: Any = self.sessions[ident.peer]
            if voter != seat and seat in session.waiting_for():
                try:
                    self.handle(ident.peer, session.drop(seat))
                    voted += 1
                except LocalError:
                    pass  # it voted already
        return voted

    def dropped_at(self, peer: bytes) -> list[int]:
        session: Any = self.sessions[peer]
        if isinstance(session, TypeScriptSeat):
            return list(session.child.call("dropped", session.index)["dropped"])
        return sorted(session.dropped)

    def outcome(self, peer: bytes) -> dict[str, Any]:
        """What a node holds at the end: phase, scores, each round's bull heads, seats dropped (and where), void
        rounds, forfeits, winners; for a TypeScript node its transcript is read into `transcripts` too."""
        session: Any = self.sessions[peer]
        if isinstance(session, TypeScriptSeat):
            got = session.report()
            self.transcripts[peer] = bytearray(bytes.fromhex(got["transcript"]))
            return {"phase": got["phase"], "scores": got["scores"], "history": got["history"],
                    "dropped": [[seat, list(pos)] for seat, pos in got["dropped"]],
                    "voided": [r for r, _why in got["voided"]], "forfeits": got["forfeits"], "winners": got["winners"],
                    "fault": got["fault"], "refused": got["refused"]}
        game = session.game
        result = session.result
        return {"phase": str(session.phase), "scores": list(game.scores) if game else [],
                "history": [list(h) for h in game.history] if game else [],
                "dropped": [[seat, list(pos)] for seat, pos in sorted(session.dropped.items())],
                "voided": sorted(session.voided), "forfeits": sorted(session.table.forfeits),
                "winners": list(result.winners) if result is not None else None,
                "fault": None if session.fault is None else {"code": session.fault.code,
                                                             "detail": session.fault.detail},
                "refused": refused_acks(session)}  # a START_ACK refused (protocol.md 12): the new start is due
