"""Golden games played again by TypeScript nodes that sign (web/peer/src/seat.ts): byte for byte the same.

The reference plays a golden game of tests/protocol/test_golden.py while every input of every node (the START it
hosts, each delivery with who delivered it, each card, row and pick its bot chose, each vote to drop a seat, each
restart from its transcript) is logged with what that input
gave to send. The TypeScript nodes get the same keys, the same pinned entropy and those inputs, in that order
(web/peer/test/golden.ts); what each input gives to send must be the same bytes, to the same peers, and so must
every transcript and secrets file. Last, the golden pin (test_golden.pin) computed from the TypeScript nodes'
bytes alone must be the one golden.json holds.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest
from nodepeer import PEER, tool

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
import test_golden  # noqa: E402  (the golden games, as tests/protocol has them)

from p2pnimmt.protocol.envelope import open_envelope  # noqa: E402

RESTART = test_golden.restart
from p2pnimmt.protocol.events import Outgoing  # noqa: E402

# Every golden game: every deal, 2 to 5 seats, a silent seat voted out, a node restarted from its transcript.
AGREED = ["open-2", "tactical-3", "open-5", "draft-2", "draft-5", "sealed-2", "sealed-5", "open-resumed-4",
          "sealed-resumed-4", "open-drop-4", "sealed-drop-4"]


def shown(outputs: list[Any]) -> list[list[Any]]:
    return [[o.wire.hex(), None if o.to is None else o.to.hex(), [p.hex() for p in o.skip], o.watchers_only]
            for o in outputs if isinstance(o, Outgoing)]


class Logged(test_golden.RecordingNet):
    """A golden game's network that logs, per node, every input and what it gave to send (and where each Outgoing
    the network sent came from: input, position)."""

    def __init__(self, players: int, **kwargs: Any) -> None:
        super().__init__(players, **kwargs)
        seed = kwargs.get("seed", 0)
        secrets = [hashlib.sha256(f"key/{seed}/{i}".encode()).digest() for i in range(players)]
        secrets += [hashlib.sha256(f"watch/{seed}/{i}".encode()).digest() for i in range(len(self.watchers))]
        self.log: dict[bytes, dict[str, Any]] = {}
        for i, (peer, session) in enumerate(self.sessions.items()):
            entry = self.log[peer] = {"secret": secrets[i].hex(), "label": f"{seed}/{i}", "inputs": [], "outputs": [],
                                       "where": {}}
            self.wrap(session, entry)

    @staticmethod
    def note(entry: dict[str, Any], given: list[Any], out: list[Any]) -> None:
        """One input of a node, and what it gave to send."""
        entry["inputs"].append(given)
        entry["outputs"].append(shown(out))
        sent = [o for o in out if isinstance(o, Outgoing)]
        entry["where"].update({id(o): (len(entry["inputs"]) - 1, j) for j, o in enumerate(sent)})

    def restart(self, peer: bytes) -> list[Any]:
        """The node of `peer` restarted from its transcript and secrets (harness.restart), logged."""
        out = RESTART(self, peer)
        self.note(self.log[peer], ["restart"], out)
        self.wrap(self.sessions[peer], self.log[peer])
        return out

    @staticmethod
    def wrap(session: Any, entry: dict[str, Any]) -> None:
        def logged(name: str, shape: Any) -> Any:
            method = getattr(session, name)

            def call(*args: Any, **kwargs: Any) -> Any:
                out = method(*args, **kwargs)
                Logged.note(entry, shape(*args, **kwargs), out)
                return out

            setattr(session, name, call)

        logged("host", lambda salt, settings, roster: [
            "host", salt.hex(), {"variant": settings.variant, "point_limit": settings.point_limit,
                                 "max_rounds": settings.max_rounds, "deal": settings.deal, "clock": settings.clock},
            [[key.hex(), name, bot] for key, name, bot in roster]])
        logged("receive", lambda wire, via=None: ["receive", wire.hex(), None if via is None else via.hex()])
        logged("play", lambda card: ["play", card])
        logged("choose_row", lambda row: ["row", row])
        logged("pick", lambda card: ["pick", card])
        logged("drop", lambda seat: ["drop", seat])


def what(wire_hex: str) -> str:
    env = open_envelope(bytes.fromhex(wire_hex))
    return f"{env.kind} of {env.sender.hex()[:8]} #{env.seq} {env.body}"


@pytest.mark.parametrize("name", AGREED)
def test_typescript_nodes_play_the_golden_game_byte_for_byte(name: str, compiled: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(test_golden, "RecordingNet", Logged)
    monkeypatch.setattr(test_golden, "restart", Logged.restart)
    net = test_golden.GAMES[name]()
    assert isinstance(net, Logged)
    golden = json.loads(test_golden.GOLDEN.read_text())[name]
    assert test_golden.pin(net) == golden  # the game logged is the golden game
    peers = list(net.sessions)
    request = {"peers": [{k: net.log[p][k] for k in ("secret", "label", "inputs")} for p in peers]}
    done = subprocess.run([tool("node"), str(compiled / "test" / "golden.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=600, input=json.dumps(request))
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    digest = hashlib.sha256()
    for i, (peer, theirs) in enumerate(zip(peers, answers)):
        ours = net.log[peer]
        for k, (given, want, got) in enumerate(zip(ours["inputs"], ours["outputs"], theirs["outputs"])):
            if got != want:
                pytest.fail(f"node {i}, input {k} ({given[0]} {what(given[1]) if given[0] == 'receive' else given[1:]}):"
                            f"\n reference sent {[what(o[0]) + f' skip {o[2]} watchers {o[3]}' for o in want]}"
                            f"\n TypeScript sent {[what(o[0]) + f' skip {o[2]} watchers {o[3]}' for o in got]}"
                            f"\n TypeScript node at the end: {theirs.get('phase')}, {theirs.get('faults')}, "
                            f"{theirs.get('error')}",
                            pytrace=False)
        assert "error" not in theirs, f"node {i}: {theirs['error']}"
        assert len(theirs["outputs"]) == len(ours["outputs"])
        transcript = bytes(net.transcripts[peer])
        assert theirs["transcript"] == transcript.hex(), f"node {i}: the transcripts differ"
        secrets = msgpack.packb(list(net.sessions[peer].journal.secrets), use_bin_type=True)
        assert theirs["secrets"] == secrets.hex(), f"node {i}: the secrets differ"
        assert theirs["phase"] == "over"
        digest.update(peer)
        digest.update(bytes.fromhex(theirs["transcript"]))
        digest.update(bytes.fromhex(theirs["secrets"]))
        # in the order the network sent them (a bot's move goes out before the rest of what asked for it)
        for sent in net.sent[peer]:
            k, j = ours["where"][id(sent)]
            wire, to, skip, watchers = theirs["outputs"][k][j]
            digest.update(msgpack.packb([bytes.fromhex(wire), None if to is None else bytes.fromhex(to),
                                         [bytes.fromhex(p) for p in skip], watchers], use_bin_type=True))
    assert digest.hexdigest() == golden["sha256"]  # the golden pin, from the TypeScript nodes' bytes alone
