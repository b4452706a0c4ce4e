"""Two messages of one `seq` both held ahead of their sender's chain (protocol.md 8, check 4, and 12, *Above a split
commit*: "a pair of one `seq` whose first is only held back" is not judged at once). Each implementation's inbox
finds the pair at once (the reference's `Inbox.ingest` returns its `equivocation`), but its session holds the proof
unjudged while its chain of the sender has not reached the pair (above_split.py NOT_REACHED; above_split.ts): no
fault, the game goes on; once the chain is there the proof is judged, fatal, alike in both (session 46's review
probed it: the text and both implementations agree; a pin, it passes on main).
"""

from __future__ import annotations

import sys
from pathlib import Path

from test_take_back_agrees import accepted, python_spectator, typescript_spectators

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.envelope import seal

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from harness import Net  # noqa: E402

X = 2  # the seat that signs two versions of its commit (other states: not a split commit's pair, fatal once judged)


def test_a_pair_of_one_seq_held_ahead_is_judged_once_the_chain_reaches_it(compiled: Path) -> None:
    net = Net(4, settings=Settings(players=4, deal="open", max_rounds=1), seed=3, spectators=1)
    net.start()
    net.run()
    messages = accepted(net)
    chain = [env for env in messages if env.sender == net.identities[X].peer]
    first = next(env for env in chain[1:] if env.kind == "PLAY_COMMIT" and env.body["turn"] == 2)
    other = seal(net.identities[X], net.game_id, first.seq, first.prev, first.kind, first.body | {"state": bytes(32)})
    before = messages.index(chain[first.seq - 1])  # X's message under the pair: not taken yet
    feeds = {"ahead, chain short": messages[:before] + [first, other],
             "ahead, then the rest": messages[:before] + [first, other] + messages[before:],
             "on the chain": messages[:before + 1] + [first, other] + messages[before + 1:]}
    typescript = dict(zip(feeds, typescript_spectators(list(feeds.values()), compiled)))
    python = {name: python_spectator(feed) for name, feed in feeds.items()}
    assert python["ahead, chain short"]["faults"] == [] and python["ahead, chain short"]["phase"] == "turn"
    for name in ("ahead, then the rest", "on the chain"):
        assert python[name]["phase"] == "aborted", name
        assert [f[0] for f in python[name]["faults"]] == ["equivocation"], name
    for name in feeds:
        assert typescript[name] == python[name], name
