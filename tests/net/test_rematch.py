"""A rematch with real processes on 127.0.0.1 (issue 13 item 2): the host offers it after the game, the player
who accepts and the spectator follow into a new game (a new id, a START naming the previous one), the bot
stays, the player who declines leaves; the evening's table is the sum of both verified transcripts; a
member that is not the host cannot redirect anyone with a forged offer."""

from __future__ import annotations

import re
from pathlib import Path

from attacker import Attacker, Listener
from procs import game_of, seat_key_of

from p2pnimmt.app.evening import Evening
from p2pnimmt.app.history import games, history_lines
from p2pnimmt.net.rematch import offer_problem
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.identity import fingerprint, peer_id
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
SHORT = ["--rounds", "1", "--no-points", "--deal", "open", "--bot-delay", "0.05"]
ENV = {"P2PNIMMT_PLACE_DELAY": "0"}


def start_of(path: Path):
    data = path.read_bytes()
    verdict = verify_transcript(data)
    assert verdict.ok, f"{path.name}: {verdict.report()}"
    wires = [open_envelope(p) for kind, p in records(data) if kind == "msg"]
    return next(e for e in wires if e.kind == "START"), verdict


def scores_of(verdict) -> dict[str, int]:
    line = re.search(r"^scores: (.*)$", verdict.summary, re.M).group(1)
    return {name: int(points) for name, points in (item.rsplit(" ", 1) for item in line.split(", "))}


def winners_of(verdict) -> set[str]:
    return set(re.search(r"^winners?: (.*)$", verdict.summary, re.M).group(1).split(", "))


def evening_printed(text: str) -> dict[str, tuple[int, int, int]]:
    """The last evening's table a process printed: name -> (games, won, points)."""
    block = text[text.rindex("The evening: "):].splitlines()
    rows = {}
    for line in block[2:]:
        m = re.match(r"^  (\S+)\s+(\d+)\s+(\d+)\s+(\d+)$", line)
        if not m:
            break
        rows[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
    return rows


def test_a_rematch_moves_the_players_who_accept_the_spectator_and_the_bots_to_a_new_game(tmp_path: Path,
                                                                                         procs) -> None:
    host = procs(["host", "--headless", "--seats", "4", "--bots", "1", *LO, *SHORT, "--rematch", "1",
                  "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out", env=ENV)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    tv = procs(["watch", code, "--headless", *LO, "--rematch", "1", "--transcript", str(tmp_path / "tv.p2pt")],
               tmp_path / "tv.out", env=ENV)
    tv.wait_for("joined")
    bob = procs(["join", code, "--headless", *LO, "--rematch", "1", "--name", "bob",
                 "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out", env=ENV)
    carl = procs(["join", code, "--headless", *LO, "--name", "carl", "--transcript", str(tmp_path / "carl.p2pt")],
                 tmp_path / "carl.out", env=ENV)
    for proc in (host, tv, bob, carl):
        assert proc.finish(120) == 0, proc.text()

    first, one = start_of(tmp_path / "ann.p2pt")
    second, two = start_of(tmp_path / "ann-2.p2pt")
    assert second.game_id != first.game_id, "the rematch has a new game id"
    assert "previous" not in first.body and second.body["previous"] == first.game_id, "the new START names the old"
    assert f"rematch of game {first.game_id.hex()}" in two.summary
    assert second.body["settings"] == first.body["settings"], "the same settings"
    names1 = [s["name"] for s in first.body["roster"]]
    names2 = [s["name"] for s in second.body["roster"]]
    assert sorted(names1) == ["ann", "bob", "bot1", "carl"]
    assert names2 == [n for n in names1 if n != "carl"], "the same seats, in their order; the decliner left"
    keys1 = {s["name"]: s["key"] for s in first.body["roster"]}
    assert all(keys1[s["name"]] == s["key"] for s in second.body["roster"]), "the same keys: the bot stayed"
    assert re.search(r"carl (leaves|has gone): the seat held for them is free", host.text()), host.text()
    assert not (tmp_path / "carl-2.p2pt").exists() and "a rematch of" not in carl.text()

    # The player and the spectator followed into the new game: their transcripts of it verify and agree.
    for name in ("bob", "tv"):
        start, verdict = start_of(tmp_path / f"{name}-2.p2pt")
        assert start.game_id == second.game_id and scores_of(verdict) == scores_of(two)
        assert f"(a rematch of {game_of(code)})" in (tmp_path / f"{name}.out").read_text()

    # The evening's table, as the host, the player and the TV printed it, is the sum of both transcripts.
    expected: dict[str, tuple[int, int, int]] = {}
    for verdict in (one, two):
        won = winners_of(verdict)
        for name, points in scores_of(verdict).items():
            g, w, p = expected.get(name, (0, 0, 0))
            expected[name] = (g + 1, w + (name in won), p + points)
    for proc in (host, bob, tv):
        assert evening_printed(proc.text()) == expected, proc.text()
    # ... and the same table again from the transcripts in the folder, following `previous`.
    records_ = games(tmp_path)
    last = next(r for r in records_ if r.path.name == "ann-2.p2pt")
    assert last.previous == first.game_id
    rows = Evening.from_records(records_, last).rows()
    assert {r.name: (r.games, r.wins, r.points) for r in rows} == expected
    assert any(f"rematch of {game_of(code)}" in line for line in history_lines(records_)), "history names the game before"


def test_a_forged_rematch_offer_from_a_member_who_is_not_the_host_is_ignored(tmp_path: Path, procs) -> None:
    """A spectator (a member) dials a player's own port and offers a 'rematch' at an address it listens on;
    it also answers 'again' to the host as if it were a seat. Both are ignored with a line naming it; the
    player dials nothing, and follows the real host's rematch."""
    host = procs(["host", "--headless", "--seats", "2", *LO, *SHORT, "--rematch", "1", "--name", "ann",
                  "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out", env=ENV)
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    spy = Attacker.dial(port)
    trap = Listener()
    try:
        spy.join("spectator", name="spy", seat_key=seat_key_of(code))  # a member: it watches with the room's key
        bob = procs(["join", code, "--headless", *LO, "--rematch", "1",
                     "--peer", f"127.0.0.1:{port}", "--name", "bob", "--bot-delay", "0.3",
                     "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out", env=ENV)
        lobby = spy.until("lobby")
        while not any(m["name"] == "bob" for m in lobby["members"]):
            lobby = spy.until("lobby")
        bob_port = next(m["port"] for m in lobby["members"] if m["name"] == "bob")
        as_member = Attacker.dial(bob_port, identity=spy.identity)
        offer = {"game": b"\x01" * 16, "port": trap.port, "seats": [spy.identity.public_key], "wait": 60}
        as_member.send("rematch", offer)
        spy_fp = fingerprint(peer_id(spy.identity.public_key))
        bob.wait_for(rf"ignored a rematch frame from {spy_fp}: only the host of the finished game may offer")
        spy.send("again", True)
        host.wait_for(rf"ignored an? again frame from {spy_fp}: only a seat of the game answers a rematch")
        for proc in (host, bob):
            assert proc.finish(120) == 0, proc.text()
        assert trap.dials() == 0, "bob dialled the address of a forged rematch offer"
        second, _ = start_of(tmp_path / "bob-2.p2pt")
        first, _ = start_of(tmp_path / "bob.p2pt")
        assert second.body["previous"] == first.game_id and second.game_id != b"\x01" * 16
        as_member.close()
    finally:
        trap.close()
        spy.close()


def test_what_is_an_offer() -> None:
    """protocol.md 14, "Rematch": exactly game, port, seats, wait, each in range; anything else is not an offer."""
    finished, key = b"\x00" * 16, b"\x07" * 32
    good = {"game": b"\x01" * 16, "port": 4000, "seats": [key], "wait": 60}
    assert offer_problem(good, finished) is None
    bad = [None, [], {**good, "extra": 1}, {k: v for k, v in good.items() if k != "wait"},
           {**good, "game": b"\x01" * 15}, {**good, "game": finished}, {**good, "port": 0}, {**good, "port": 70000},
           {**good, "port": True}, {**good, "seats": []}, {**good, "seats": [key, key]}, {**good, "seats": [b"x"]},
           {**good, "seats": [key] * 11}, {**good, "wait": 0}, {**good, "wait": 601}, {**good, "wait": 1.5}]
    for payload in bad:
        assert offer_problem(payload, finished), payload


def test_the_line_terminal_types_again(tmp_path: Path) -> None:
    """--lines: the host and a player type `again` at game over; both play the rematch at their line terminals;
    Enter at its end leaves, and each prints the evening's table of both games."""
    from procs import Terminal

    host = Terminal(["host", "--lines", "--seats", "3", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                     "--deal", "open", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")], env=ENV)
    bob = None
    try:
        code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
        port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
        bob = Terminal(["join", code, "--lines", *LO, "--peer", f"127.0.0.1:{port}", "--name", "bob",
                        "--transcript", str(tmp_path / "bob.p2pt")], env=ENV)
        import threading

        played = threading.Thread(target=bob.play_lines)
        played.start()
        host.play_lines()
        played.join(60)
        bob.wait_for(r"type again for a rematch")
        bob.type("again")
        bob.wait_for(r"you asked for a rematch: waiting for ann")
        seen = host.wait_for(r"final scores").end()
        host.wait_for(r"type again to offer everyone a rematch", seen)
        assert re.search(r"bob wants a rematch", host.wait_for(r"bob (wants a rematch|leaves)", seen).group(0)), bob.text
        host.type("again")
        first_order = host.wait_for(r"game started: (ann, (?:bot1, bob|bob, bot1))").group(1)  # who joined first
        after_host = host.wait_for(r"game started: " + re.escape(first_order), seen).end()  # the same seats
        after_bob = bob.wait_for(r"joined \w{4} at 127\.0\.0\.1:\d+ as player bob \(a rematch of " + game_of(code)).end()
        played = threading.Thread(target=bob.play_lines, args=(after_bob,))
        played.start()
        host.play_lines(after_host)
        host.wait_for(r"again> ", after_host)
        host.type("")  # Enter leaves (at once: the question waits 15 s, and bob's thread may still be going) ...
        played.join(60)
        assert host.popen.wait(30) == 0, host.text
        bob.wait_for(r"ann has left: no rematch", after_bob)  # ... and the player asked is told so, and leaves too
        assert bob.popen.wait(30) == 0, bob.text
        first, one = start_of(tmp_path / "ann.p2pt")
        second, two = start_of(tmp_path / "ann-2.p2pt")
        assert second.body["previous"] == first.game_id
        expected: dict[str, tuple[int, int, int]] = {}
        for verdict in (one, two):
            for name, points in scores_of(verdict).items():
                g, w, p = expected.get(name, (0, 0, 0))
                expected[name] = (g + 1, w + (name in winners_of(verdict)), p + points)
        assert evening_printed(host.text) == expected and evening_printed(bob.text) == expected
    finally:
        (tmp_path / "ann.text").write_text(host.text)
        host.stop()
        if bob is not None:
            (tmp_path / "bob.text").write_text(bob.text)
            bob.stop()
