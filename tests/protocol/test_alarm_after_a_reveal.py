"""protocol.md 17.8: a seat behind an alarm reveals before its keys. An alarm's turn is the number of turns its
sender had revealed; a seat whose every commit of the last of those turns was not in yet when the alarm came has
not revealed it, and the audit needs every shuffling seat's reveal of every turn below the stop. That seat signs
its reveal once the turn's commits are in, and only then its SEALED_KEYS, so every seat's keys in mean its reveals
below the stop are in (its chain): the audit runs on every node. Before, it sent its keys and never its reveal, and
every node waited at (r, 32, 0) on nobody for ever (11.1: once every key is in, the game waits on nobody there;
no clock runs and no vote can be called).
"""

from __future__ import annotations

from typing import Any

import pytest
from sealed_adversary import Cheat, assert_audited, cheat, keys_body

CHEAT = 2


def alarm_after_reveal(c: Cheat, kind: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]] | None:
    """Its PLAY_REVEAL of turn 1, then at once its SEALED_KEYS with `alarm` (a false alarm): the alarm's turn is 1."""
    if kind == "PLAY_REVEAL" and (body["round"], body["turn"]) == (0, 0) and not c.fired:
        c.fired = True
        return [(kind, body), ("SEALED_KEYS", keys_body(c.session, alarm=True))]
    return None


@pytest.mark.parametrize("seed", [3, 10, 11])  # delivery orders where a seat was behind the alarm (stuck before)
def test_a_false_alarm_right_after_a_reveal_is_audited_on_every_node(seed: int) -> None:
    """Four seats, two sealed rounds; seat 2's false alarm right after its reveal of turn 1. Every honest node audits
    the round, finds the alarm false (`sealed-false-alarm` against seat 2), voids the round, drops seat 2 at its round
    end, plays round 2 without it and ends alike; every honest transcript verifies."""
    net, made = cheat(4, CHEAT, alarm_after_reveal, seed=seed)
    assert made.fired
    assert_audited(net, CHEAT, "sealed-false-alarm")
