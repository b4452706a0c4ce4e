"""Protocol CPU per peer per turn, next to the signature floor measured in the same run. Prints; asserts nothing.

    python benchmarks/turn_cpu_bench.py [--seats 2 5 10] [--deal open sealed] [--rounds 2] [--games 3] [--layers-memo]

Sessions are linked in memory (tests/protocol/harness.py: random bots, each
peer writing its transcript, relayed copies delivered as on a real mesh),
but every peer checks every signature itself, as separate processes do (the
in-process memo of good signatures is switched off). What a peer's session
does is timed with time.process_time (CPU time, so the machine's load mostly
cancels out): each receive and each move, given to the peer that made it;
routing and the bots' choices are not counted. Per table size and deal it
prints the best of --games games: CPU per peer per turn, the signature
floor (the signatures each peer signed and checked in that game, at the
sign and verify costs measured in this run) and the ratio of the two, the
wall time of the game, and the load average while it ran. A sealed deal's
round-end audit (section 17.7) is counted in its turns: that is what a turn
costs a peer over a game. Like the memo of good signatures, the memo of layers
applied (sealed_group.apply_all: a second session of a process finds the
X25519 batches of the first) is off, so each peer's audit applies every other
seat's keys; --layers-memo leaves it on: what the peers cost when they share
one process (a host and its bots). --pass-time also prints the CPU spent inside the step machine's passes
(protocol.steps.advance, each resumption of it timed) per peer per turn, mean over the peers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "protocol"))

from harness import Net  # noqa: E402

from p2pnimmt.engine import HAND_SIZE, Settings  # noqa: E402
from p2pnimmt.protocol import envelope, identity, sealed_group, steps  # noqa: E402
from p2pnimmt.protocol.envelope import NO_PREVIOUS, SIGN_TAG, seal  # noqa: E402
from p2pnimmt.protocol.identity import Identity, verify_unmemoized  # noqa: E402

TIMED = ("receive", "host", "play", "choose_row", "pick", "play_stand_in", "drop", "ask_stand_in")


def per_message() -> tuple[float, float]:
    """(sign, verify) in CPU µs for one PLAY_COMMIT, best of 5 batches of 400."""
    ident = Identity(bytes(32))
    body = {"round": 0, "turn": 0, "commit": bytes(32), "state": bytes(32)}
    env = seal(ident, bytes(16), 0, NO_PREVIOUS, "PLAY_COMMIT", body)
    data = SIGN_TAG + env.signed
    best_sign = best_verify = float("inf")
    for _ in range(5):
        t = time.process_time()
        for _ in range(400):
            ident.sign(data)
        best_sign = min(best_sign, (time.process_time() - t) / 400)
        t = time.process_time()
        for _ in range(400):
            verify_unmemoized(ident.public_key, env.signature, data)
        best_verify = min(best_verify, (time.process_time() - t) / 400)
    return best_sign * 1e6, best_verify * 1e6


class Clocked:
    """Per peer: CPU seconds in its session, signatures checked and made."""

    def __init__(self, net: Net) -> None:
        self.cpu = dict.fromkeys(net.sessions, 0.0)
        self.verifies = dict.fromkeys(net.sessions, 0)
        self.signs = dict.fromkeys(net.sessions, 0)
        self.current: bytes | None = None
        for peer, session in net.sessions.items():
            for name in TIMED:
                setattr(session, name, self._timed(peer, getattr(session, name)))
            ident = session.identity
            assert ident is not None
            object.__setattr__(ident, "sign", self._signing(peer, ident.sign))

    def _timed(self, peer: bytes, method: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.current = peer
            t = time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.cpu[peer] += time.process_time() - t
                self.current = None

        return timed

    def _signing(self, peer: bytes, sign: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
        def counted(data: bytes) -> bytes:
            self.signs[peer] += 1
            return sign(data)

        return counted

    def verify(self, public_key: bytes, signature: bytes, data: bytes) -> bool:
        if self.current is not None:
            self.verifies[self.current] += 1
        return verify_unmemoized(public_key, signature, data)


class PassTimer:
    """CPU seconds spent inside steps.advance (every resumption of the generator), all peers together."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.advance = steps.advance

    def __call__(self, table: Any) -> Any:
        passes = self.advance(table)
        value = None
        while True:
            t = time.process_time()
            try:
                effect = passes.send(value)
            except StopIteration as stop:
                self.cpu += time.process_time() - t
                return stop.value
            self.cpu += time.process_time() - t
            value = yield effect


pass_timer: PassTimer | None = None


def one_game(seats: int, deal: str, rounds: int, seed: int) -> tuple[Clocked, float, float, int]:
    """(the clocks, wall seconds, 1-minute load average at the end, turns) of one game."""
    settings = Settings(players=seats, max_rounds=rounds, point_limit=None, deal=deal)
    net = Net(seats, settings=settings, bots="random", seed=seed, spectators=0, shuffle_delivery=False)
    clocked = Clocked(net)
    envelope.verify = clocked.verify  # every peer checks every signature, as separate processes do
    sealed_group.clear_layers_memo()
    try:
        t = time.perf_counter()
        net.start()
        net.run()
        wall = time.perf_counter() - t
    finally:
        envelope.verify = identity.verify
        sealed_group.clear_layers_memo()
    session = next(iter(net.sessions.values()))
    assert session.phase == "over", session.phase
    return clocked, wall, os.getloadavg()[0], session.game.rounds_played * HAND_SIZE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 5, 10])
    parser.add_argument("--deal", nargs="+", default=["open", "sealed"], choices=["open", "sealed"])
    parser.add_argument("--rounds", type=int, default=2, help="rounds per game (default 2)")
    parser.add_argument("--games", type=int, default=3, help="games per figure, the best counts (default 3)")
    parser.add_argument("--layers-memo", action="store_true", help="the peers share their X25519 batches (above)")
    parser.add_argument("--pass-time", action="store_true", help="also the CPU inside the step machine's passes")
    args = parser.parse_args()
    global pass_timer
    if args.pass_time:
        pass_timer = PassTimer()
        steps.advance = pass_timer  # type: ignore[assignment]  # the session calls steps.advance(table) each pass
    sealed_group.layers_memo = args.layers_memo
    sign_us, verify_us = per_message()
    print(f"signature costs (CPU, best of 5 x 400): sign {sign_us:.0f} µs, verify {verify_us:.0f} µs "
          f"({getattr(identity, 'BACKEND', 'cryptography')}); load average {os.getloadavg()[0]:.2f}")
    for deal in args.deal:
        for seats in args.seats:
            best: tuple[float, float, float, float, float] | None = None
            passes: list[float] = []
            for seed in range(args.games):
                before = pass_timer.cpu if pass_timer is not None else 0.0
                clocked, wall, load, turns = one_game(seats, deal, args.rounds, seed)
                if pass_timer is not None:
                    passes.append((pass_timer.cpu - before) / seats / turns * 1e3)
                per_turn = max(clocked.cpu.values()) / turns * 1e3
                mean = sum(clocked.cpu.values()) / seats / turns * 1e3
                floor = max((clocked.signs[p] * sign_us + clocked.verifies[p] * verify_us) / turns / 1e3
                            for p in clocked.cpu)
                if best is None or per_turn < best[0]:
                    best = (per_turn, mean, floor, wall, load)
            assert best is not None
            per_turn, mean, floor, wall, load = best
            print(f"{deal:>6} deal, {seats:>2} seats: CPU per peer per turn {per_turn:.2f} ms (the busiest peer; "
                  f"mean {mean:.2f}), signature floor {floor:.2f} ms, ratio {per_turn / floor:.2f}; "
                  f"game {wall:.2f} s wall for all {seats} peers in one process"
                  f"{' sharing X25519 batches' if args.layers_memo else ''}; load average {load:.2f}")
            if passes:
                print(f"    inside the step machine's passes: {min(passes):.2f}-{max(passes):.2f} ms per peer per turn "
                      f"(mean over the peers; each game)")


if __name__ == "__main__":
    main()
