"""The phone relay's bounds on its dials (web.dialbound; protocol.md 14, Bounds), as arithmetic: the real relay
under a stranger's flood is tests/lan/test_relay_dial_flood.py."""

from __future__ import annotations

from p2pnimmt.net.door import PER_ADDRESS, SHUT_AFTER, SHUT_WINDOW
from p2pnimmt.protocol.bucket import Bucket
from p2pnimmt.web import dialbound
from p2pnimmt.web.dialbound import DialRates


def test_the_relay_never_dials_enough_to_be_shut_out_nor_reset() -> None:
    """Over all its unseated pages, the relay dials fewer within the door's window than the refusals that shut an
    address out, and keeps fewer opening at one address than the door lets wait from one address."""
    assert dialbound.ALL_BURST + SHUT_WINDOW * dialbound.ALL_RATE < SHUT_AFTER
    assert dialbound.OPENING <= PER_ADDRESS // 2


def test_a_bucket_gives_its_burst_then_its_rate() -> None:
    bucket = Bucket(4, 2.0, now=100.0)
    assert [bucket.take(100.0) for _ in range(5)] == [True] * 4 + [False]
    assert bucket.take(100.49) is False
    assert bucket.take(100.5) is True  # one each half second
    assert bucket.take(100.5) is False
    assert bucket.full(200.0)


def test_a_page_past_its_tunnels_burst_is_refused_in_words() -> None:
    rates = DialRates()
    tunnel = Bucket(dialbound.TUNNEL_BURST, 0.0)
    assert [rates.why_not("10.0.0.7", tunnel, False) for _ in range(dialbound.TUNNEL_BURST)] == [None] * dialbound.TUNNEL_BURST
    assert rates.why_not("10.0.0.7", tunnel, False) == dialbound.TUNNEL_DIALS


def test_an_address_past_its_burst_is_refused_and_another_is_not() -> None:
    rates = DialRates()
    for source in ("10.0.0.7", "10.0.0.8"):
        rates.sources[source] = Bucket(dialbound.SOURCE_BURST, 0.0)
    for _ in range(dialbound.SOURCE_BURST):
        assert rates.why_not("10.0.0.7", Bucket(1, 0.0), False) is None  # a new tunnel each time
    assert rates.why_not("10.0.0.7", Bucket(1, 0.0), False) == dialbound.SOURCE_DIALS
    assert rates.why_not("10.0.0.8", Bucket(1, 0.0), False) is None


def test_all_pages_together_are_bounded_but_a_seats_page_is_not_charged() -> None:
    rates = DialRates()
    rates.all = Bucket(dialbound.ALL_BURST, 0.0)
    for n in range(dialbound.ALL_BURST):
        assert rates.why_not(f"10.0.{n // 250}.{n % 250}", Bucket(1, 0.0), False) is None
    assert rates.why_not("10.0.9.9", Bucket(1, 0.0), False) == dialbound.ALL_DIALS
    seat = Bucket(2, 0.0)
    assert rates.why_not("10.0.9.9", seat, True) is None  # a seat's page: its tunnel's rate only
    assert rates.why_not("10.0.9.9", seat, True) is None
    assert rates.why_not("10.0.9.9", seat, True) == dialbound.TUNNEL_DIALS


def test_addresses_past_the_remembered_ones_forget_the_idle_first(monkeypatch) -> None:
    monkeypatch.setattr(dialbound, "SOURCES", 4)
    rates = DialRates()
    for n in range(3):
        rates.why_not(f"10.0.0.{n}", Bucket(1, 0.0), False)  # each spent one: not full
    rates.sources["10.0.0.9"] = Bucket(dialbound.SOURCE_BURST, 1.0)  # full: forgotten first
    rates.why_not("10.0.0.5", Bucket(1, 0.0), False)
    assert set(rates.sources) == {"10.0.0.0", "10.0.0.1", "10.0.0.2", "10.0.0.5"}
