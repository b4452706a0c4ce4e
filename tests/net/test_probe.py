"""A probe and its signed answer (protocol.md 14, "A probe"): the vectors, read from protocol.md, and a real host
process answering a member's probe over its link, signed with its key, bound to that link and that probe."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

from attacker import LOOPBACK, Attacker
from procs import code_of, seat_key_of

from p2pnimmt.protocol.codec import decode, encode
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.probe import answer_holds, probe_answer, probe_transcript

SPEC = (Path(__file__).parents[2] / "protocol.md").read_text()
V = json.loads(re.search(r"```json probe-vectors\n(.*?)```", SPEC, re.S).group(1))


def test_probe_vectors_of_protocol_md() -> None:
    me = Identity(bytes.fromhex(V["secret"]))
    assert me.public_key.hex() == V["public_key"]
    game, answerer, prober, nonce = (bytes.fromhex(V[k]) for k in ("game_id", "answerer_nonce", "prober_nonce", "nonce"))
    heads = [[bytes.fromhex(sender), count] for sender, count in V["heads"]]
    payload = probe_answer(me, game, (answerer, prober), nonce, heads)
    assert payload[0] == nonce and payload[1].hex() == V["heads_bytes"] and payload[2].hex() == V["signature"]
    assert probe_transcript(game, answerer, prober, nonce, payload[1]).startswith(b"p2pnimmt/probe/v1" + game)
    assert answer_holds(me.public_key, game, (prober, answerer), nonce, payload)
    # another probe, another link (the nonces swapped: the answer of the other side), another game, another key, or
    # another account of what it holds: no answer
    other = Identity(bytes(range(1, 33)))
    assert not answer_holds(me.public_key, game, (prober, answerer), bytes(16), payload)
    assert not answer_holds(me.public_key, game, (answerer, prober), nonce, payload)
    assert not answer_holds(me.public_key, bytes(16), (prober, answerer), nonce, payload)
    assert not answer_holds(other.public_key, game, (prober, answerer), nonce, payload)
    assert not answer_holds(me.public_key, game, (prober, answerer), nonce, [nonce, encode([]), payload[2]])
    assert not answer_holds(me.public_key, game, (prober, answerer), nonce, payload[:2])


def test_a_host_answers_a_members_probe_signed_over_its_link(tmp_path: Path, procs) -> None:
    ann = procs(["host", "--headless", "--seats", "2", "--interface", LOOPBACK, "--name", "ann"], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    tv = Attacker.dial(port)
    try:
        tv.join("spectator", name="tv", seat_key=seat_key_of(code_of(tmp_path / "ann.out")))
        tv.lobby()
        for _ in range(2):  # each probe its own answer
            nonce = secrets.token_bytes(16)
            tv.send("probe", nonce)
            answer = tv.until("probed")
            assert answer_holds(tv.their_key, tv.game_id, tv.nonces, nonce, answer), answer
            assert isinstance(decode(answer[1]), list)  # its heads: nothing signed yet, in a lobby
    finally:
        tv.close()
