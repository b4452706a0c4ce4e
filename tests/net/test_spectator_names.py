"""A spectator's name never passes for a player's or another spectator's (issue 22, item 7; protocol.md 14).

Real processes on 127.0.0.1: ann hosts; two `watch` processes ask to watch as `ann` and as `аnn` (a Cyrillic а),
and a raw-socket spectator (tests/attacker.py) as `bob` before bob takes his seat. The host shows them as
`ann (watching)`, `аnn (watching 2)` and, once bob is seated, `bob (watching)`: a seat's name is never blocked by
a spectator's, and no two names of the lobby look alike (UTS #39 skeletons, p2pnimmt.protocol.names). The
watcher is told the name it is shown under; the game is played to its end and every transcript verifies.
"""

from __future__ import annotations

from pathlib import Path

from attacker import Attacker
from procs import code_of, final_scores, seat_key_of

from p2pnimmt.protocol.names import look_alike
from p2pnimmt.protocol.verify import verify_transcript

LOOPBACK = "127.0.0.1"
LO = ["--interface", LOOPBACK]
CYRILLIC_ANN = "\u0430nn"


def process(procs, tmp_path: Path, port: int, command: str, name: str, out: str):
    return procs([command, code_of(tmp_path / "ann.out"), "--headless", "--peer", f"{LOOPBACK}:{port}", *LO,
                  "--name", name, "--transcript", str(tmp_path / f"{out}.p2pt")], tmp_path / f"{out}.out")


def names_until(a: Attacker, check) -> list[str]:
    """The members' names of the first lobby frame that passes `check`."""
    while True:
        names = [m["name"] for m in a.lobby(30)["members"]]
        if check(names):
            return names


def no_two_alike(names: list[str]) -> bool:
    return not any(look_alike(a, b) for i, a in enumerate(names) for b in names[i + 1:])


def test_spectators_are_shown_under_names_no_member_looks_like(tmp_path: Path, procs) -> None:
    """A spectator watching as `bob` cannot keep bob from his seat. Since session 34 (protocol.md 14, "The seat
    key") a stranger without the seat key cannot watch at all (refused at its join); the spy here is one who has
    the key (someone in the room), as the lookalike watchers do."""
    host = procs(["host", "--headless", "--seats", "2", *LO, "--name", "ann", "--rounds", "1", "--no-points",
                  "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = int(host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    stranger = Attacker.dial(port)
    try:
        stranger.join("spectator", name="bob")  # without the key: refused, and not shown to anyone
        assert stranger.until("refuse").startswith("the seat key is missing")
        assert stranger.closed_by_peer()
    finally:
        stranger.close()
    spy = Attacker.dial(port)
    spy.join("spectator", name="bob", seat_key=seat_key_of(code))
    assert "bob" in names_until(spy, lambda names: True)  # nobody looks like bob yet: shown as asked
    tv1 = process(procs, tmp_path, port, "watch", "ann", "tv1")
    names_until(spy, lambda names: "ann (watching)" in names)
    tv2 = process(procs, tmp_path, port, "watch", CYRILLIC_ANN, "tv2")
    names = names_until(spy, lambda names: f"{CYRILLIC_ANN} (watching 2)" in names)
    assert no_two_alike(names), names
    tv1.wait_for(r"the host shows you as 'ann \(watching\)': 'ann' looks like the name of someone here")
    tv2.wait_for(rf"the host shows you as '{CYRILLIC_ANN} \(watching 2\)'")
    bob = process(procs, tmp_path, port, "join", "bob", "bob")  # the seat's name wins: the spectator gives way
    names = names_until(spy, lambda names: "bob (watching)" in names)
    assert names.count("bob") == 1 and no_two_alike(names), names
    spy.close()
    for name, proc in {"ann": host, "bob": bob, "tv1": tv1, "tv2": tv2}.items():
        assert proc.finish(90) == 0, (name, proc.text())
        verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())
        assert "Traceback" not in proc.text()
    assert len({final_scores(p.text()) for p in (host, bob, tv1, tv2)}) == 1
