"""A stranger on the LAN takes no seat (benchmarks/attacks/seat_squat.py's finding of session 33, closed by the seat
key in session 34; protocol.md 14, "The seat key"). Real processes on 127.0.0.1, real zeroconf on 127.0.0.1 under
this test process's own service type (tests/conftest.py); the stranger is tests/attacker.py: it does the real
handshake, and its joins carry what a stranger has (no proof, or the proof of a key it guessed).

Before the seat key, the stranger read the game off mDNS, joined as `bob` and `carl` a second after the host began,
the table filled and started with its keys, and the real friends were refused."""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path

from attacker import Attacker
from deadlines import outer
from procs import final_scores, game_of, seat_key_of

from p2pnimmt.net.discovery import browse, open_zeroconf
from p2pnimmt.net.seatdoor import (
    MISSING,
    TOO_MANY,
    TOO_MANY_ADDRESSES,
    WRONG,
    WRONG_ADDRESSES,
    WRONG_BURST,
    WRONG_EVERY,
)
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.gamecode import CODE_ALPHABET
from p2pnimmt.protocol.seatkey import seat_secret
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
SHORT = ["--rounds", "1", "--no-points", "--deal", "open", "--bot-delay", "0.05"]


async def advertised(seconds: float = 30.0):
    """What a stranger's look at the LAN (127.0.0.1 only) finds: the first game advertised."""
    zc = open_zeroconf("127.0.0.1")
    try:
        deadline = time.monotonic() + outer(seconds)
        while time.monotonic() < deadline:
            ads = await browse(zc, 0.5)
            if ads:
                return ads[0]
        raise AssertionError("the stranger saw no game advertised")
    finally:
        await zc.async_close()


def answer(link: Attacker, timeout: float = 20.0) -> tuple[str, object]:
    """The host's answer to a join: ("refuse", why) or ("lobby", the lobby frame)."""
    link.sock.settimeout(outer(timeout))
    while True:
        kind, payload = link.read_frame()[:2]
        if kind in ("refuse", "lobby"):
            return kind, payload


def wrong_key(right: str, n: int = 0) -> str:
    """A seat key that is not `right` (the n-th of the alphabet that differs in its first character)."""
    others = [ch for ch in CODE_ALPHABET if ch != right[0]]
    return others[n % len(others)] + right[1:]


def stranger_joins(port: int, name: str, seat_key: str | None = None, source: str = "127.0.0.1"):
    """A stranger's fresh key dials the host and joins as player `name` (proving `seat_key` if given): the answer."""
    link = Attacker.dial(port, source=source)
    try:
        link.join("player", name=name, seat_key=seat_key)
        return answer(link)
    finally:
        link.close()


def start_roster(path: Path) -> list[dict]:
    data = path.read_bytes()
    verdict = verify_transcript(data)
    assert verdict.ok, f"{path.name}: {verdict.report()}"
    start = next(e for e in (open_envelope(p) for kind, p in records(data) if kind == "msg") if e.kind == "START")
    return start.body["roster"]


async def test_a_stranger_who_reads_the_game_off_mdns_takes_no_seat_and_the_friends_sit(tmp_path: Path,
                                                                                     procs) -> None:
    """The stranger finds the game by mDNS as the benchmark did and joins as bob and carl, without the key and with
    wrong keys, several times: each join is refused at the door, the host does not start, and the real bob and carl
    (`join CODE-KEY`) take the seats; the START seats their keys and none of the stranger's."""
    host = procs(["host", "--headless", "--seats", "3", "--name", "ann", *LO, *SHORT, "--transcript",
                  str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    ad = await advertised()
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    assert ad.code == game_of(code), "the stranger read the host's game off the air"
    assert seat_key_of(code) not in repr(ad), "the seat key is not on the air"

    stranger_keys = []
    for name in ("bob", "carl"):  # what the benchmark's stranger did: no key at all
        link = Attacker.dial(ad.port)
        stranger_keys.append(link.identity.public_key)
        link.join("player", name=name)
        kind, why = answer(link)
        link.close()
        assert (kind, why) == ("refuse", MISSING), (kind, why)
    for n in range(3):  # and keys it guessed
        link = Attacker.dial(ad.port)
        stranger_keys.append(link.identity.public_key)
        link.join("player", name="bob", seat_key=wrong_key(seat_key_of(code), n))
        kind, why = answer(link)
        link.close()
        assert (kind, why) == ("refuse", WRONG), (kind, why)
    assert "game started" not in host.text(), host.text()

    friends = [procs(["join", code, "--headless", "--name", name, *LO, "--transcript", str(tmp_path / f"{name}.p2pt")],
                     tmp_path / f"{name}.out") for name in ("bob", "carl")]
    for friend in friends:
        assert friend.finish(120) == 0, friend.text()
    assert host.finish(60) == 0, host.text()
    started = re.search(r"game started: (.*) \(", host.text())
    assert started is not None and sorted(started.group(1).split(", ")) == ["ann", "bob", "carl"], host.text()
    assert final_scores(host.text()) == final_scores(friends[0].text()) == final_scores(friends[1].text())
    roster = start_roster(tmp_path / "ann.p2pt")
    assert sorted(s["name"] for s in roster) == ["ann", "bob", "carl"]
    assert not {s["key"] for s in roster} & set(stranger_keys), "no key of the stranger's is seated"
    assert [s["key"] for s in roster if s["name"] == "bob"] == [
        s["key"] for s in start_roster(tmp_path / "bob.p2pt") if s["name"] == "bob"]


def test_wrong_keys_are_bounded_per_address(tmp_path: Path, procs) -> None:
    """After WRONG_BURST (8) wrong keys from 127.0.0.1, the next join from there is refused without its proof being
    checked, the right key too ("too many wrong seat keys"); a join from 127.0.0.2 with the right key is admitted."""
    host = procs(["host", "--headless", "--seats", "3", "--name", "ann", *LO, *SHORT], tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    right = seat_key_of(code)
    probe = Attacker.dial(port)  # the game id, to draw the guesses' secrets before the clock runs (no join)
    guesses = [wrong_key(right, n) for n in range(int(WRONG_BURST))]
    for key in [*guesses, right]:
        seat_secret(probe.game_id, key)  # cached: each join below costs a dial, not a scrypt
    probe.close()
    began = time.monotonic()
    for n, key in enumerate(guesses):
        assert stranger_joins(port, "mallory", key) == ("refuse", WRONG), n
    assert time.monotonic() - began < WRONG_EVERY, "the burst took longer than one refill: the bound not tested"
    assert stranger_joins(port, "mallory", right) == ("refuse", TOO_MANY)
    kind, lobby = stranger_joins(port, "bob", right, source="127.0.0.2")
    assert kind == "lobby", (kind, lobby)
    assert isinstance(lobby, dict) and "bob" in [m["name"] for m in lobby["members"]], lobby
    assert "game started" not in host.text()


def guessed(port: int, source: str) -> tuple[str, object]:
    """A stranger's join from `source` with a proof that does not hold (to the host, a wrong seat key): the answer."""
    link = Attacker.dial(port, source=source)
    try:
        link.send("join", {"name": "mallory", "role": "player", "bot": False, "port": 1,
                           "proof": secrets.token_bytes(32)})
        return answer(link)
    finally:
        link.close()


def test_many_addresses_give_a_spent_address_no_fresh_burst(tmp_path: Path, procs) -> None:
    """An address that spent its WRONG_BURST stays bounded however many other addresses guess: after 1,024 others
    (as many as the host counts apart) it still gets no guess checked, and the addresses past those share one
    burst. Before (benchmarks/attacks/seat_key_guess.py), the host forgot the oldest address counted once a new one
    came past 1,024, with a fresh burst each: a stranger cycling over 1,025 addresses had every guess checked. A
    friend from an address of its own still sits."""
    host = procs(["host", "--headless", "--seats", "3", "--name", "ann", *LO, *SHORT], tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    spent = "127.0.0.5"
    for n in range(int(WRONG_BURST)):
        assert guessed(port, spent) == ("refuse", WRONG), n
    spent_at = time.monotonic()
    assert guessed(port, spent) == ("refuse", TOO_MANY)
    for n in range(WRONG_ADDRESSES):
        assert guessed(port, f"127.4.{n // 250}.{1 + n % 250}") == ("refuse", WRONG), n
    pooled_at = time.monotonic()  # the last of those was the first charged to the count the others share
    kind, lobby = stranger_joins(port, "bob", seat_key_of(code), source="127.0.0.6")
    assert kind == "lobby" and isinstance(lobby, dict) and "bob" in [m["name"] for m in lobby["members"]], lobby
    # The addresses past those counted apart, asked before the spent address is again: while it is the least lately
    # charged and short of tries, no address counted apart is forgotten, however long the others took (an address
    # charged once is whole again after WRONG_EVERY, which under load the 1,024 dials can outlast).
    past = []
    for n in range(2 * int(WRONG_BURST)):
        past.append(guessed(port, f"127.5.{n // 250}.{1 + n % 250}"))
        if past[-1] != ("refuse", WRONG):
            break
    shared = int(WRONG_BURST) - 1 + int((time.monotonic() - pooled_at) / WRONG_EVERY)  # one spent, one back each 10 s
    assert shared < 2 * WRONG_BURST - 1, "the shared count got a whole burst back meanwhile: the bound not tested"
    assert past[-1] == ("refuse", TOO_MANY_ADDRESSES), past  # one burst for the addresses past those counted apart
    assert past.count(("refuse", WRONG)) <= shared, past
    answers = [guessed(port, spent) for _ in range(int(WRONG_BURST))]
    allowed = int((time.monotonic() - spent_at) / WRONG_EVERY)  # the tries it got back meanwhile, one each 10 s
    assert allowed < WRONG_BURST, "the others took longer than a whole refill: the bound not tested"
    assert answers.count(("refuse", WRONG)) <= allowed, answers
    assert "game started" not in host.text()
