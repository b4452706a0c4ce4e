"""The one decision of a door that checks the seat key (protocol.seatkey.seat_refusal), as the host's door
(net.seatdoor) and a phone relay's (web.relaydoor) call it: each refusal, in its order. The doors themselves over
real links: tests/net/test_seat_door.py, tests/web/test_relay_seat_key.py."""

from __future__ import annotations

from typing import Any

from p2pnimmt.net import seatdoor
from p2pnimmt.protocol import seatkey
from p2pnimmt.protocol.seatkey import WRONG_BURST, WrongKeys, join_proof, seat_refusal
from p2pnimmt.web import relaydoor

SECRET = bytes(range(32))  # K as seat_secret draws it (any 32 bytes will do here: the scrypt is tested apart)
LINK = (b"G" * 16, b"j" * 16, b"h" * 16, b"k" * 32)  # game id, joiner's nonce, host's nonce, joiner's key
RIGHT = join_proof(SECRET, *LINK)
OTHER_LINK = join_proof(SECRET, LINK[0], b"J" * 16, LINK[2], LINK[3])  # a proof seen on another link
HOST, RELAY = seatdoor.SAYS, relaydoor.SAYS


def spent(address: str = "10.0.0.7") -> WrongKeys:
    tries = WrongKeys()
    for _ in range(int(WRONG_BURST)):
        tries.charge(address, 0.0)
    return tries


def decide(says: seatkey.Refusals, tries: WrongKeys, **join: Any) -> str | None:
    asked: dict[str, Any] = {"seated": False, "known": False, "keyless": False, "proof": RIGHT, "secret": SECRET,
                             "link": LINK, **join}
    return seat_refusal(says, tries, "10.0.0.7", 1.0, **asked)


def left(tries: WrongKeys, address: str = "10.0.0.7") -> float:
    return tries.tries[address].fill(1.0) if address in tries.tries else WRONG_BURST


def test_the_host_refuses_in_its_order() -> None:
    """Each condition in turn, the ones before it cleared: a seat of the START, no key, a spent address, no proof,
    a proof that does not hold."""
    everything = {"proof": OTHER_LINK}
    assert decide(HOST, spent(), seated=True, keyless=True, **everything) is None
    assert decide(HOST, spent(), keyless=True, **everything) is None  # a host without key checks nothing
    assert decide(HOST, spent(), **everything) == seatdoor.TOO_MANY
    assert decide(HOST, spent(), proof=None) == seatdoor.TOO_MANY  # spent is asked before the proof is looked at
    assert decide(HOST, WrongKeys(), proof=None) == seatdoor.MISSING
    assert decide(HOST, WrongKeys(), **everything) == seatdoor.WRONG
    assert decide(HOST, WrongKeys()) is None


def test_the_relay_refuses_in_its_order() -> None:
    """A relay lets a join without a proof go on (the host refuses it), and refuses one it cannot check for want of a
    key, after the spent address and the missing proof."""
    everything = {"proof": OTHER_LINK, "keyless": True, "secret": None}
    assert decide(RELAY, spent(), seated=True, **everything) is None
    assert decide(RELAY, spent(), **everything) == relaydoor.TOO_MANY
    assert decide(RELAY, WrongKeys(), **{**everything, "proof": None}) is None
    assert decide(RELAY, WrongKeys(), **everything) == relaydoor.KEYLESS
    assert decide(RELAY, WrongKeys(), proof=OTHER_LINK) == relaydoor.WRONG
    assert decide(RELAY, WrongKeys()) is None


def test_only_a_proof_that_does_not_hold_is_charged() -> None:
    tries = WrongKeys()
    assert decide(HOST, tries, proof=None) == seatdoor.MISSING
    assert decide(RELAY, tries, keyless=True, secret=None) == relaydoor.KEYLESS
    assert decide(HOST, tries) is None and decide(HOST, tries, seated=True, proof=OTHER_LINK) is None
    assert "10.0.0.7" not in tries.tries  # none of them cost a try
    assert decide(HOST, tries, proof=OTHER_LINK) == seatdoor.WRONG
    assert decide(RELAY, tries, proof=b"\0" * 32) == relaydoor.WRONG
    assert decide(RELAY, tries, secret=None) == relaydoor.WRONG  # no game id to draw K for: no proof holds
    assert left(tries) == WRONG_BURST - 3


def test_a_known_key_is_checked_not_refused_unchecked_at_a_spent_address() -> None:
    tries = spent()
    assert decide(HOST, tries, known=True) is None
    assert decide(HOST, tries, known=True, proof=OTHER_LINK) == seatdoor.WRONG  # and charged, into debt
    assert left(tries) < 0.0
    assert decide(HOST, tries) == seatdoor.TOO_MANY


def test_addresses_past_those_counted_apart_are_told_so_by_the_host_only(monkeypatch) -> None:
    monkeypatch.setattr(seatkey, "WRONG_ADDRESSES", 1)
    tries = spent("10.0.0.9")  # the one counted apart, short of tries: the others share one count
    for _ in range(int(WRONG_BURST)):
        assert decide(HOST, tries, proof=OTHER_LINK) == seatdoor.WRONG
    assert tries.pooled("10.0.0.7")
    assert decide(HOST, tries) == seatdoor.TOO_MANY_ADDRESSES
    assert decide(RELAY, tries) == relaydoor.TOO_MANY


LINK_SECRET = bytes(range(0x40, 0x50))  # the link secret (protocol.md 14, "The link secret")
LINK_RIGHT = seatkey.link_proof(LINK_SECRET, *LINK)


def pooled_and_spent() -> WrongKeys:
    """The lockout of session 40: the addresses past those counted apart share one burst, and it is spent."""
    tries = spent("10.0.0.1")  # the least lately charged, short of tries: none counted apart is forgotten
    for n in range(2, seatkey.WRONG_ADDRESSES + 1):
        tries.charge(f"10.1.{n // 250}.{n % 250}", 0.5)
    for _ in range(int(WRONG_BURST)):
        tries.charge("10.9.9.9", 0.5)
    assert tries.pooled("10.0.0.7") and tries.spent("10.0.0.7", 1.0)
    return tries


def test_a_link_proof_decides_alone_before_any_count_and_is_never_charged() -> None:
    """A join with a `link_proof` is admitted where it holds, from a spent address and with the shared burst spent
    too (the stranger's lockout keeps out no newcomer with the host's link); one that does not hold is refused as
    such, whatever its `proof`, and charges nothing; a seat of the START and a keyless host still go first."""
    for tries in (spent(), pooled_and_spent()):
        assert decide(HOST, tries, proof=None, link_proved=LINK_RIGHT, link_secret=LINK_SECRET) is None
        assert decide(HOST, tries, link_proved=LINK_RIGHT, link_secret=LINK_SECRET) is None
    assert decide(HOST, pooled_and_spent(), link_secret=LINK_SECRET) == seatdoor.TOO_MANY_ADDRESSES  # typed: out
    tries = WrongKeys()
    for _ in range(3 * int(WRONG_BURST)):
        assert decide(HOST, tries, link_proved=bytes(32), link_secret=LINK_SECRET) == seatdoor.WRONG_LINK
    assert left(tries) == WRONG_BURST and not tries.tries, "a wrong link proof is charged nothing"
    other = seatkey.link_proof(LINK_SECRET, LINK[0], b"J" * 16, LINK[2], LINK[3])  # seen on another link
    assert decide(HOST, WrongKeys(), link_proved=other, link_secret=LINK_SECRET) == seatdoor.WRONG_LINK
    assert decide(HOST, WrongKeys(), link_proved=LINK_RIGHT, link_secret=None) == seatdoor.WRONG_LINK
    assert decide(HOST, spent(), seated=True, link_proved=bytes(32), link_secret=LINK_SECRET) is None
    assert decide(HOST, spent(), keyless=True, link_proved=bytes(32), link_secret=LINK_SECRET) is None


def test_the_relay_passes_a_link_proof_on_unchecked() -> None:
    """A relay leaves a join with a `link_proof` to the host, whatever it holds: not refused unchecked from a spent
    page address, not charged, not refused for want of a key."""
    tries = spent()
    assert decide(RELAY, tries, proof=OTHER_LINK, link_proved=bytes(32)) is None
    assert decide(RELAY, WrongKeys(), keyless=True, secret=None, link_proved=bytes(32)) is None
    assert left(tries) <= 0.1
