"""The memo of layers applied (sealed_group.apply_all): the sessions of one process share their X25519 batches, so
the second audit of a round in a process applies no key again, and every byte is what the unmemoized
computation gives (issue 24 item 2)."""

from __future__ import annotations

import hashlib
import os

import pytest
from sealed_support import simulate_deal

from p2pnimmt.engine import deck
from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.sealed import Layout, audit, deck_order, new_secrets, open_hand

PLAYERS = 5


def a_round():
    cards = deck("standard", PLAYERS)
    secrets = {s: new_secrets(os.urandom) for s in range(PLAYERS)}
    return cards, secrets


def audit_of(cards, secrets, record, trusted=None):
    keys = {s: (secrets[s].key.e, secrets[s].seed) for s in secrets}
    return audit(cards, PLAYERS, record.seats, record.shuffles, record.unlocks, keys, [], trusted=trusted)


@pytest.fixture(autouse=True)
def fresh_memo():
    g.clear_layers_memo()
    yield
    g.layers_memo = True
    g.clear_layers_memo()


def test_the_same_bytes_with_and_without_the_memo() -> None:
    cards, secrets = a_round()
    g.layers_memo = False
    plain = simulate_deal(cards, PLAYERS, secrets)
    assert g.layers_memo_counts() == (0, 0)
    g.layers_memo = True
    memo = simulate_deal(cards, PLAYERS, secrets)
    again = simulate_deal(cards, PLAYERS, secrets)  # every batch found this time
    assert plain.shuffles == memo.shuffles == again.shuffles
    assert plain.unlocks == memo.unlocks == again.unlocks
    assert plain.final == memo.final == again.final
    layout = Layout(PLAYERS, len(cards))
    order = deck_order(cards, [secrets[s].seed for s in range(PLAYERS)])
    for s in range(PLAYERS):
        assert open_hand(layout, s, secrets[s].key.d, again.final) == [order[p] for p in layout.hand(s)]


def test_a_second_audit_in_the_process_applies_no_key_again() -> None:
    cards, secrets = a_round()
    record = simulate_deal(cards, PLAYERS, secrets)  # every seat's own steps, as its session computes them
    held, found = g.layers_memo_counts()
    assert held == 2 * PLAYERS and found == 0
    assert audit_of(cards, secrets, record, trusted=0) is None  # seat 0's audit: the outcomes' batches, made
    made, found = g.layers_memo_counts()
    assert made > held
    assert audit_of(cards, secrets, record) is None  # a spectator's: the same batches, found
    assert g.layers_memo_counts() == (made, found + made - held)


def test_a_wrong_step_is_found_whatever_the_memo_holds() -> None:
    cards, secrets = a_round()
    record = simulate_deal(cards, PLAYERS, secrets)
    shuffles = dict(record.shuffles)
    shuffles[PLAYERS - 1] = list(reversed(shuffles[PLAYERS - 1]))  # the last shuffle: the outcome shows it
    for _ in range(2):
        fault = audit(cards, PLAYERS, record.seats, shuffles, record.unlocks,
                      {s: (secrets[s].key.e, secrets[s].seed) for s in secrets}, [])
        assert fault is not None and (fault.seat, fault.step) == (PLAYERS - 1, "shuffle")


def test_a_low_order_point_is_refused_every_time_and_never_kept() -> None:
    point = min(g.LOW_ORDER).to_bytes(32, "little")
    for _ in range(2):
        with pytest.raises(ValueError, match="value 1 .* is a low-order point"):
            g.apply_all(g.S0, [g.encoding(3), point])
    assert g.layers_memo_counts() == (0, 0)


def test_the_memo_is_bounded() -> None:
    c = g.encoding(9)
    for card in range(1, g.LAYERS_KEPT + 11):
        g.apply_all(g.clamp(hashlib.sha256(bytes([card])).digest()), [c])
    assert g.layers_memo_counts()[0] == g.LAYERS_KEPT
