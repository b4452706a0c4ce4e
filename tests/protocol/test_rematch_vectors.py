"""protocol.md section 14, "Rematch": the START with `previous` and the again and rematch frames, byte for byte;
a session takes the START and a bad `previous` makes it not a START at all."""

from __future__ import annotations

import json
import re
from pathlib import Path

from p2pnimmt.net.connection import frame
from p2pnimmt.net.rematch import offer_body, offer_problem
from p2pnimmt.protocol.codec import decode
from p2pnimmt.protocol.envelope import NO_PREVIOUS, open_envelope, seal
from p2pnimmt.protocol.identity import Identity, game_id_for
from p2pnimmt.protocol.session import Session

DOC = (Path(__file__).resolve().parents[2] / "protocol.md").read_text()
V = json.loads(re.search(r"```json rematch-vectors\n(.*?)```", DOC, re.S).group(1))
h = bytes.fromhex


def start_body(previous: bytes) -> dict:
    v = V["start"]
    host, other = Identity(h(v["secret"])), Identity(h(v["other_secret"]))
    return {"salt": h(v["salt"]), "settings": v["settings"],
            "roster": [{"key": host.public_key, "name": "ann", "bot": False},
                       {"key": other.public_key, "name": "bob", "bot": False}],
            "previous": previous}


def test_the_start_of_a_rematch_names_the_game_before() -> None:
    v = V["start"]
    host = Identity(h(v["secret"]))
    game_id = game_id_for(host.public_key, h(v["salt"]))
    assert game_id.hex() == v["game_id"]
    wire = seal(host, game_id, 0, NO_PREVIOUS, "START", start_body(h(v["previous"]))).wire
    assert wire.hex() == v["wire"]
    env = open_envelope(wire)
    assert env.kind == "START" and env.body["previous"] == h(v["previous"])
    # A spectator's session takes it: the game started, and its START says which game it follows.
    watcher = Session(None, game_id=game_id)
    watcher.receive(wire)
    assert watcher.start is not None and watcher.start.body["previous"] == h(v["previous"])
    # `previous` of another size (or type) is a bad body: the START is not accepted at all.
    for bad in (h(v["previous"])[:15], h(v["previous"]) + b"\x00", "0ea1684b595e669856af5467442c8f82", None):
        other = Session(None, game_id=game_id)
        other.receive(seal(host, game_id, 0, NO_PREVIOUS, "START", start_body(bad)).wire)
        assert other.start is None, bad


def test_the_again_and_rematch_frames() -> None:
    assert frame(["again", True]).hex() == V["again_frame"]
    r = V["rematch_frame"]
    body = offer_body(h(r["game"]), r["port"], [h(k) for k in r["seats"]], r["wait"])
    data = frame(["rematch", body])
    assert data.hex() == r["frame"]
    kind, payload = decode(data[4:], 1 << 17)
    assert kind == "rematch" and offer_problem(payload, h(V["start"]["game_id"])) is None
