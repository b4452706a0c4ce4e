"""net.trouble: one record per key of what its links cost it (protocol.md 14, Bounds), bounded in memory."""

from __future__ import annotations

from p2pnimmt.net.trouble import BAD_LINK_BACKOFF, MAX_ADDRESSES, MAX_KEYS, Trouble

SEAT = b"s" * 16


def key(n: int) -> bytes:
    return n.to_bytes(16, "big")


def test_a_seat_is_spaced_at_the_address_of_its_cut_link_only() -> None:
    trouble = Trouble(lambda peer: peer == SEAT)
    assert [trouble.space(SEAT, "10.0.0.7", 0.0) for _ in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert trouble.spaced(SEAT, "10.0.0.7", 30.0) == (8, 30.0)
    assert trouble.spaced(SEAT, "::ffff:10.0.0.7", 30.0) == (8, 30.0)  # an IPv4-mapped address is its IPv4 one
    assert trouble.spaced(SEAT, "10.0.0.8", 30.0) == (0, 0.0)  # another relay, another machine: at once
    assert trouble.spent(SEAT, "::ffff:10.0.0.7")  # each later link of it there is cut at its first bad message
    assert not trouble.spent(SEAT, "10.0.0.8")  # elsewhere a whole budget (since the session-42 review)
    assert not trouble.is_cut_off(SEAT, "10.0.0.7")


def test_a_key_over_a_cap_is_cut_off_at_that_address_only() -> None:
    trouble = Trouble(lambda peer: False)
    assert trouble.cut_off(key(1), "10.0.0.7") and not trouble.cut_off(key(1), "::ffff:10.0.0.7")  # said once
    assert trouble.is_cut_off(key(1), "10.0.0.7") and not trouble.is_cut_off(key(1), "10.0.0.8")
    assert not trouble.told(key(1), "10.0.0.7") and trouble.told(key(1), "10.0.0.7")  # told why once, then refused
    assert not trouble.told(key(1), "10.0.0.8")  # (not cut off there: nothing to tell)
    assert trouble.spent(key(1), "10.0.0.8")  # its later links are cut at their first bad message


def test_a_seat_is_spaced_at_a_bounded_number_of_addresses() -> None:
    trouble = Trouble(lambda peer: peer == SEAT)
    for n in range(MAX_ADDRESSES + 1):
        trouble.space(SEAT, f"10.0.0.{n}", 0.0)
    assert trouble.spaced(SEAT, "10.0.0.0", 0.0) == (0, 0.0)  # the oldest forgotten
    assert trouble.spaced(SEAT, f"10.0.0.{MAX_ADDRESSES}", 0.0) == (1, BAD_LINK_BACKOFF[0])


def test_keys_without_a_seat_are_remembered_up_to_a_bound_and_seats_always() -> None:
    trouble = Trouble(lambda peer: peer == SEAT)
    trouble.space(SEAT, "10.0.0.7", 0.0)
    assert trouble.cut_off(key(0), "10.0.0.9")
    for n in range(1, MAX_KEYS - 1):
        trouble.spend(key(n))
    assert trouble.spent(key(0), "?")  # MAX_KEYS records: all kept
    trouble.spend(key(MAX_KEYS - 1))
    assert not trouble.is_cut_off(key(0), "10.0.0.9") and not trouble.spent(key(0), "?")  # the oldest without a seat: forgotten
    assert trouble.spent(key(1), "?") and trouble.spent(key(MAX_KEYS - 1), "?")
    for n in range(MAX_KEYS, 3 * MAX_KEYS):
        trouble.spend(key(n))
    assert trouble.spent(key(3 * MAX_KEYS - 1), "?") and not trouble.spent(key(2 * MAX_KEYS), "?")
    assert trouble.spaced(SEAT, "10.0.0.7", 0.0) == (1, BAD_LINK_BACKOFF[0])  # the seat's, older still, is kept


def test_a_key_is_spent_by_the_rule_of_what_it_is_now_seat_or_not() -> None:
    """A seat's key is spent only at the addresses it is spaced or cut off at (the session-42 rule), whatever its
    links cost it before it held a seat; a key that holds no seat (any more) is spent wherever once a link of it was
    cut for bad messages, a seat's spacing included. Since session 43 a seat's spacing no longer sets the record's
    `spent` as well (a flag never read while it held the seat): pinned, it holds on main too."""
    seats: set[bytes] = set()
    trouble = Trouble(lambda peer: peer in seats)
    trouble.spend(SEAT)  # in the lobby, before the START: no seat yet
    assert trouble.spent(SEAT, "10.0.0.7") and trouble.spent(SEAT, "10.0.0.8")
    seats |= {SEAT, key(5)}  # the START: seats now
    assert not trouble.spent(SEAT, "10.0.0.7") and not trouble.spent(SEAT, "10.0.0.8")
    trouble.space(SEAT, "10.0.0.7", 0.0)
    trouble.space(key(5), "10.0.0.7", 0.0)
    assert trouble.spent(SEAT, "10.0.0.7") and not trouble.spent(SEAT, "10.0.0.8")
    assert trouble.spent(key(5), "10.0.0.7") and not trouble.spent(key(5), "10.0.0.8")
    assert trouble.cut_off(SEAT, "10.0.0.9")
    assert trouble.spent(SEAT, "10.0.0.9") and not trouble.spent(SEAT, "10.0.0.8")
    seats.clear()  # (a game the keys hold no seat of)
    assert trouble.spent(key(5), "10.0.0.8")  # spaced as a seat, none now: spent wherever, as any key cut
    assert trouble.spent(SEAT, "10.0.0.8")
