"""A stranger without the seat key locks no newcomer out who opened the host's invite link (benchmarks/attacks/
seat_key_lockout.py's finding of session 40; protocol.md 14, "The seat key" and "The link secret"). Real processes on
127.0.0.1; the stranger is tests/attacker.py, dialling from loopback addresses as the machines of a large LAN.

Before, the stranger spent the wrong-seat-key count of more addresses than the host counts apart (random proofs: no
scrypt, no guess) and the burst the addresses past them share; every join from an address the host did not count
apart yet was then refused unchecked ("too many wrong seat keys from too many addresses"), an honest newcomer's with
the right key too."""

from __future__ import annotations

import re
import secrets
from pathlib import Path

from attacker import Attacker
from procs import final_scores

from p2pnimmt.net.seatdoor import TOO_MANY_ADDRESSES, WRONG, WRONG_ADDRESSES, WRONG_BURST

LO = ["--interface", "127.0.0.1"]
SHORT = ["--rounds", "1", "--no-points", "--deal", "open", "--bot-delay", "0.05"]


def guessed(port: int, source: str) -> tuple[str, object]:
    """A stranger's join from `source` with random bytes for a proof (no key, no scrypt): the host's answer."""
    link = Attacker.dial(port, source=source)
    try:
        link.send("join", {"name": "mallory", "role": "player", "bot": False, "port": 1,
                           "proof": secrets.token_bytes(32)})
        link.sock.settimeout(20)
        while True:
            kind, payload = link.read_frame()[:2]
            if kind in ("refuse", "lobby"):
                return kind, payload
    finally:
        link.close()


def spend_the_count(port: int) -> None:
    """The stranger's lockout: 127.6.0.1's burst spent (the least lately charged of the addresses counted apart, short
    of tries for 80 s, so none of them is forgotten), one wrong proof from each of WRONG_ADDRESSES - 1 more, then the
    shared burst of the addresses past them, until a join from one of those is refused unchecked."""
    for n in range(int(WRONG_BURST)):
        assert guessed(port, "127.6.0.1") == ("refuse", WRONG), n
    for n in range(1, WRONG_ADDRESSES):
        assert guessed(port, f"127.6.{n // 250}.{1 + n % 250}") == ("refuse", WRONG), n
    answers = []
    for n in range(4 * int(WRONG_BURST)):
        answers.append(guessed(port, f"127.7.{n // 250}.{1 + n % 250}"))
        if answers[-1] != ("refuse", WRONG):
            break
    assert answers[-1] == ("refuse", TOO_MANY_ADDRESSES), answers


def test_a_stranger_with_many_addresses_locks_out_no_newcomer_with_the_invite_link(tmp_path: Path, procs) -> None:
    """With the shared burst spent by a stranger, a friend who typed the code (CODE-KEY) from a fresh address is
    refused unchecked and told to open the invite link; a friend who opens the host's invite link (its link secret)
    from a fresh address sits, and the game is played to its end."""
    host = procs(["host", "--headless", "--seats", "2", "--name", "ann", *LO, *SHORT], tmp_path / "ann.out")
    found = host.wait_for(r"code: (\w{4}-\w{4})[\s\S]*listening on 127\.0\.0\.1:(\d+)[\s\S]*invite link: (\S+)")
    code, port, link = found.group(1), int(found.group(2)), found.group(3)
    spend_the_count(port)

    typed = procs(["join", code, "--headless", "--name", "bob", *LO], tmp_path / "bob.out")
    assert typed.finish(60) == 1, typed.text()
    assert "too many wrong seat keys from too many addresses" in typed.text(), typed.text()
    assert "invite link" in typed.text().split("too many wrong seat keys from too many addresses", 1)[1], typed.text()

    friend = procs(["join", link, "--headless", "--name", "carl", *LO], tmp_path / "carl.out")
    assert friend.finish(120) == 0, friend.text()
    assert host.finish(60) == 0, host.text()
    started = re.search(r"game started: (.*) \(", host.text())
    assert started is not None and sorted(started.group(1).split(", ")) == ["ann", "carl"], host.text()
    assert final_scores(host.text()) == final_scores(friend.text())
