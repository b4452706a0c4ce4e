"""Sealed deal cost: the deal (every shuffle and unlock step) and the round-end audit for 2, 5 and 10 players.

    python benchmarks/sealed_bench.py [--repeat N] [--vectors]

All seats' work runs in this one process, each published list checked once
as its receivers would (no network): on a LAN the steps are sequential, so
this is the deal's computing time on its critical path, plus one receipt
check per step. Targets: a 10-player deal under 0.5 s, audit under 0.5 s.
`--vectors` prints the test vectors (JSON) for protocol.md; they must equal
VECTORS in tests/protocol/test_sealed.py. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time

from p2pnimmt.engine import deck
from p2pnimmt.protocol.sealed import Layout, audit, deck_order, new_secrets, permutation, shuffle_step, simulate_deal
from p2pnimmt.protocol.sealed_group import (
    CARD_TAG,
    S0,
    S0_TAG,
    L,
    apply_all,
    clamp,
    clamped_representative,
    encodings,
    hash_to_curve,
    new_key_pair,
    point_error,
)


def stream(label: bytes):
    """Deterministic entropy: SHA-256(label || counter as 4 bytes big-endian), concatenated."""
    counter = 0
    buffer = b""

    def entropy(n: int) -> bytes:
        nonlocal counter, buffer
        while len(buffer) < n:
            buffer += hashlib.sha256(label + counter.to_bytes(4, "big")).digest()
            counter += 1
        out, buffer = buffer[:n], buffer[n:]
        return out

    return entropy


def vectors() -> dict:
    """The test vectors: card encodings, one key pair (first draw rejected), one shuffle step."""
    cards = {}
    for k in (1, 2, 3, 4, 104):
        counter, u = hash_to_curve(k)
        cards[str(k)] = {"counter": counter, "u": u.hex(), "encoding": encodings()[k].hex()}
    draws = [hashlib.sha256(b"p2pnimmt/sealed/vector/key" + bytes([i])).digest() for i in range(64)]
    usable = [clamped_representative(pow(int.from_bytes(clamp(x), "little"), -1, L)) is not None for x in draws]
    first = next(i for i in range(63) if not usable[i] and usable[i + 1])  # show one rejection
    pair = new_key_pair(_feed(draws[first:first + 2]))
    seed = bytes(range(32))
    step_in = [encodings()[k] for k in (1, 2, 3, 4)]
    return {
        "s0_tag": S0_TAG.decode(),
        "s0": S0.hex(),
        "card_tag": CARD_TAG.decode(),
        "card_encodings": cards,
        "key_pair": {"draws": [draws[first].hex(), draws[first + 1].hex()], "e": pair.e.hex(), "d": pair.d.hex()},
        "shuffle_step": {
            "input": [x.hex() for x in step_in],
            "e": pair.e.hex(),
            "seed": seed.hex(),
            "permutation": list(permutation(seed, 4)),
            "layered": [x.hex() for x in apply_all(pair.e, step_in)],
            "output": [x.hex() for x in shuffle_step(pair.e, seed, step_in)],
        },
    }


def _feed(chunks: list[bytes]):
    queue = list(chunks)
    return lambda n: queue.pop(0)


def bench(players: int, repeat: int) -> tuple[float, float, int]:
    cards = deck("standard", players)
    layout = Layout(players, len(cards))
    deal_times, audit_times = [], []
    ops = 0
    for r in range(repeat):
        entropy = stream(f"bench/{players}/{r}".encode())
        secrets = {s: new_secrets(entropy) for s in range(players)}
        t = time.perf_counter()
        record = simulate_deal(cards, players, secrets)
        deal_times.append(time.perf_counter() - t)
        order = deck_order(cards, [secrets[s].seed for s in range(players)])
        plays = [(s, order[p], p) for s in range(players) for p in layout.hand(s)]
        keys = {s: (secrets[s].key.e, secrets[s].seed) for s in range(players)}
        t = time.perf_counter()
        fault = audit(cards, players, range(players), record.shuffles, record.unlocks, keys, plays)
        audit_times.append(time.perf_counter() - t)
        assert fault is None, fault
        ops = players * len(cards) + players * (layout.dealt - 10)
    return statistics.median(deal_times), statistics.median(audit_times), ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--vectors", action="store_true", help="print the protocol.md test vectors and stop")
    args = parser.parse_args()
    if args.vectors:
        print(json.dumps(vectors(), indent=2))
        return
    t = time.perf_counter()
    encodings()
    print(f"card encodings (104 hash-to-curve, once per process): {(time.perf_counter() - t) * 1000:.1f} ms")
    pair = new_key_pair(stream(b"bench/key"))
    points = apply_all(pair.e, encodings()[1:]) * 10
    t = time.perf_counter()
    apply_all(pair.d, points)
    apply_us = (time.perf_counter() - t) / len(points) * 1e6
    t = time.perf_counter()
    for x in points:
        point_error(x)
    check_us = (time.perf_counter() - t) / len(points) * 1e6
    print(f"per value: X25519 {apply_us:.0f} us, receipt check (canonical, on the curve) {check_us:.0f} us")
    for players in (2, 5, 10):
        deal_s, audit_s, ops = bench(players, args.repeat)
        print(f"{players:>2} players, standard deck: deal {deal_s * 1000:6.1f} ms, audit {audit_s * 1000:6.1f} ms "
              f"({ops} X25519 each; median of {args.repeat})")
    print("vectors for protocol.md (python benchmarks/sealed_bench.py --vectors):")
    print(json.dumps(vectors(), indent=2))


if __name__ == "__main__":
    main()
