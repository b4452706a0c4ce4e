"""`play` (against bots) plays under the name the start menu remembered, as `host` and `join` do (issue 23
item 1; the network commands are tested in tests/net/test_names_lobby.py)."""

from __future__ import annotations

import json
from pathlib import Path

from procs import Terminal


def test_play_uses_the_remembered_name(tmp_path: Path) -> None:
    (tmp_path / "p2pnimmt").mkdir()
    (tmp_path / "p2pnimmt" / "config.json").write_text(json.dumps({"name": "carol"}))
    game = Terminal(["play", "--lines", "--rounds", "1", "--no-points", "--seed", "1"],
                    env={"XDG_CONFIG_HOME": str(tmp_path)})
    try:
        seen, hand = 0, []
        while True:  # the highest card each turn, row 4 when asked, to the end
            m = game.wait_for(r"your hand: (.*)\n|your card> |take row \(1-4\)> |Winner: ", seen)
            seen = m.end()
            if m.group(0).startswith("your hand"):
                hand = [int(c.split("*")[0]) for c in m.group(1).split()]
            elif m.group(0).startswith("your card"):
                game.type(str(max(hand)))
            elif m.group(0).startswith("take row"):
                game.type("4")
            else:
                break
        assert "Scores: carol " in game.text and "revealed: carol " in game.text, game.text
    finally:
        game.stop()


def test_a_config_file_that_is_no_config_stops_no_command(tmp_path: Path, monkeypatch) -> None:
    """Session 33's red team: a config.json nested 100,000 deep made every command (`verify` too) end in a
    RecursionError traceback, read before the command line; now it is only not remembered, and saving a name
    writes a good one over it."""
    from p2pnimmt.ui import remembered

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    config = tmp_path / "p2pnimmt" / "config.json"
    config.parent.mkdir()
    for text in ("[" * 100_000 + "]" * 100_000, '{"name": [1], "lang": {"de": 1}}', "\udcff", " " * 70_000 + "{}"):
        config.write_bytes(text.encode(errors="surrogateescape"))
        assert (remembered.load_name(), remembered.load_lang()) == ("", "")
    remembered.save_name("carol")
    assert (remembered.load_name(), json.loads(config.read_text())) == ("carol", {"name": "carol"})
