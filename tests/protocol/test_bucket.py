"""The one bucket (protocol.bucket): a burst, then a rate, on the caller's clock; and the three bounds that count with
it keep their own details (net.connection.Asks' slack, protocol.seatkey.WrongKeys' debt and forgetting,
web.dialbound's forgetting)."""

from __future__ import annotations

from p2pnimmt.net.connection import Asks
from p2pnimmt.protocol import seatkey
from p2pnimmt.protocol.bucket import Bucket
from p2pnimmt.protocol.seatkey import WRONG_BURST, WRONG_EVERY, WrongKeys
from p2pnimmt.web import dialbound
from p2pnimmt.web.dialbound import make_room


def test_a_bucket_gives_its_burst_at_once_then_nothing() -> None:
    bucket = Bucket(3, 1.0, now=10.0)
    assert [bucket.take(10.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.level == 0.0  # the refused one took nothing
    assert not bucket.has(10.0)


def test_a_bucket_fills_at_its_rate_up_to_its_burst() -> None:
    bucket = Bucket(2, 4.0, now=0.0)  # one each quarter second
    assert bucket.take(0.0) and bucket.take(0.0) and not bucket.take(0.0)
    assert not bucket.take(0.2)
    assert bucket.take(0.25)  # 0.2 s and 0.05 s: a whole one
    assert not bucket.take(0.25)
    assert bucket.fill(100.0) == 2.0  # never more than its burst, however long it waited
    assert [bucket.take(100.0) for _ in range(3)] == [True, True, False]


def test_has_takes_nothing_and_spend_goes_into_debt() -> None:
    bucket = Bucket(1, 0.5, now=0.0)
    assert bucket.has(0.0) and bucket.has(0.0)  # asking twice takes nothing
    bucket.spend(0.0)
    bucket.spend(0.0)  # counted though it held none: one owed
    assert bucket.level == -1.0 and not bucket.has(2.0)  # 2 s paid the debt back, no more
    assert not bucket.has(3.9) and bucket.has(4.0)


def test_a_bucket_made_without_a_time_is_full_until_first_asked() -> None:
    bucket = Bucket(2, 1.0)
    assert bucket.full(5.0)
    assert bucket.take(1000.0) and bucket.take(1000.0) and not bucket.take(1000.0)
    assert bucket.take(1001.0)


def test_full_says_whether_it_holds_its_burst_again_and_changes_nothing() -> None:
    bucket = Bucket(4, 2.0, now=0.0)
    for _ in range(4):
        bucket.take(0.0)
    assert not bucket.full(1.99)
    assert bucket.full(2.0)
    assert (bucket.level, bucket.at) == (0.0, 0.0)  # asked, not filled


def test_asks_past_the_budget_are_excused_within_the_slack_at_the_same_rate() -> None:
    asks = Asks(per_second=2.0, burst=2.0, slack=3.0)
    assert [asks.take(0.0) for _ in range(2)] == [True, True]
    assert not asks.excused
    assert [asks.take(0.0) or asks.excused for _ in range(4)] == [True, True, True, False]  # 3 excused, then not
    assert asks.take(0.5)  # both filled by one: the budget's is taken, the slack keeps its own
    assert not asks.take(0.5) and asks.excused  # the slack's
    assert not asks.take(0.5) and not asks.excused
    plain = Asks(per_second=1.0, burst=1.0)  # no slack: nothing is ever excused
    assert plain.take(0.0) and not plain.take(0.0) and not plain.excused


def test_wrong_keys_an_address_has_are_a_burst_then_one_each_wrong_every() -> None:
    keys = WrongKeys()
    for _ in range(int(WRONG_BURST)):
        assert not keys.spent("10.0.0.7", 0.0)
        keys.charge("10.0.0.7", 0.0)
    assert keys.spent("10.0.0.7", 0.0) and not keys.spent("10.0.0.8", 0.0)
    assert keys.spent("10.0.0.7", WRONG_EVERY / 2)
    assert not keys.spent("10.0.0.7", WRONG_EVERY)  # one try again
    keys.charge("10.0.0.7", WRONG_EVERY)
    keys.charge("10.0.0.7", WRONG_EVERY)  # a wrong proof of a known key's, checked though none was left: owed
    assert keys.spent("10.0.0.7", 2.5 * WRONG_EVERY)  # the debt paid back, half a try
    assert not keys.spent("10.0.0.7", 3 * WRONG_EVERY)


def test_wrong_keys_forget_an_address_only_once_it_has_all_its_tries_again(monkeypatch) -> None:
    monkeypatch.setattr(seatkey, "WRONG_ADDRESSES", 2)
    keys = WrongKeys()
    keys.charge("a", 0.0)
    keys.charge("b", 1.0)
    assert not keys.spent("c", 2.0) and keys.pooled("c")  # neither full again: c is counted with the others
    keys.charge("c", 2.0)
    assert list(keys.tries) == ["a", "b"] and keys.others is not None and keys.others.level == WRONG_BURST - 1
    assert not keys.spent("d", WRONG_EVERY)  # a has its burst again at 10 s: forgotten, d counted apart
    keys.charge("d", WRONG_EVERY)
    assert list(keys.tries) == ["b", "d"] and not keys.pooled("d")


def test_the_relay_forgets_full_addresses_first_then_the_oldest(monkeypatch) -> None:
    monkeypatch.setattr(dialbound, "SOURCES", 3)
    sources = {name: Bucket(2, 1.0, now=0.0) for name in ("a", "b", "c")}
    sources["a"].take(0.0)
    sources["c"].take(0.0)
    make_room(sources, 0.5)  # b is full: forgotten; a and c are not
    assert list(sources) == ["a", "c"]
    sources["d"] = Bucket(2, 1.0, now=0.5)
    sources["d"].take(0.5)
    make_room(sources, 0.5)  # none full: the oldest goes
    assert list(sources) == ["c", "d"]
