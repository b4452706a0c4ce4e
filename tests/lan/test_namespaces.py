"""Whole games over a real (virtual) LAN: every peer in its own network namespace, found by mDNS, on a bridge.

See conftest.py for how the LAN is built and always removed, and for the
skip rule (skip without root/iproute2 unless P2PNIMMT_REQUIRE_NETNS=1).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from procs import game_of

from p2pnimmt.protocol.verify import Verdict, verify_transcript

SHORT = ["--no-points"]  # with --rounds R: exactly R rounds


def final_scores(text: str) -> str:
    match = re.search(r"final scores: (.*)", text)
    assert match, f"no final scores in:\n{text}"
    return match.group(1)


def check_game(procs: dict, transcripts: list[Path], timeout: float = 90) -> tuple[str, dict[str, Verdict]]:
    """Every process exits 0 with the same final scores; every transcript verifies and agrees with them."""
    for name, proc in procs.items():
        assert proc.finish(timeout) == 0, f"{name} failed\n{outputs(procs)}"
    scores = {name: final_scores(proc.text()) for name, proc in procs.items()}
    assert len(set(scores.values())) == 1, scores
    result = next(iter(scores.values()))
    verdicts = {}
    for path in transcripts:
        verdict = verdicts[path.name] = verify_transcript(path.read_bytes())
        assert verdict.ok, (path.name, verdict.report())
        assert "scores: " + result in verdict.summary, (path.name, verdict.summary)
        assert "sealed deal" in verdict.summary, "the LAN games run the default deal, sealed"
    return result, verdicts


def host_and_joiners(lan, seats: int, bots: int, joiners: int, rounds: int, watcher: bool = True,
                     env: dict | None = None, extra: tuple[str, ...] = ()) -> tuple[str, dict, list[Path]]:
    """Host (with `bots` bots in its process) in namespace 1, joiners in namespaces 2.., the spectator (if any)
    in the last one; all find the game by its code over mDNS; `extra` options go to every one of them.
    Returns (code, processes, transcripts)."""
    out = lan.tmp_path
    host = lan.start(1, ["host", "--headless", "--seats", str(seats), "--bots", str(bots), "--name", "ann",
                         "--rounds", str(rounds), *SHORT, *extra, "--transcript", str(out / "host.p2pt")], "host", env)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    host.wait_for(rf"listening on {re.escape(lan.addr(1))}:\d+")
    procs = {"host": host}
    if watcher:
        procs["watch"] = lan.start(2 + joiners, ["watch", code, "--headless", *extra,
                                                 "--transcript", str(out / "watch.p2pt")], "watch", env)
        # Found by mDNS, at the host's namespace address (not loopback, not another interface).
        procs["watch"].wait_for(rf"joined {game_of(code)} at {re.escape(lan.addr(1))}:\d+ as spectator", timeout=30)
    for i in range(2, 2 + joiners):
        procs[f"join{i}"] = lan.start(i, ["join", code, "--headless", "--name", f"j{i}", *extra,
                                          "--transcript", str(out / f"join{i}.p2pt")], f"join{i}", env)
    return code, procs, [out / f"{name}.p2pt" for name in procs]


@pytest.mark.parametrize("seats,bots,joiners,rounds", [(2, 0, 1, 2), (4, 0, 3, 1), (10, 4, 5, 1)],
                         ids=["2-players", "4-players", "10-players"])
def test_game_across_namespaces_found_by_mdns(make_lan, seats: int, bots: int, joiners: int, rounds: int) -> None:
    """Each joiner and the spectator in a namespace of its own; every node reaches the same result and every
    transcript (the spectator's included) verifies."""
    lan = make_lan(1 + joiners + 1)
    code, procs, transcripts = host_and_joiners(lan, seats, bots, joiners, rounds)
    scores, _ = check_game(procs, transcripts)
    names = [part.rsplit(" ", 1)[0] for part in scores.split(", ")]
    assert sorted(names) == sorted(["ann", *[f"bot{k + 1}" for k in range(bots)],
                                    *[f"j{i}" for i in range(2, 2 + joiners)]]), scores
    for i in range(2, 2 + joiners):
        assert f"joined {game_of(code)} at {lan.addr(1)}:" in procs[f"join{i}"].text()


def test_honest_game_records_no_faults(make_lan) -> None:
    """In a game of honest peers nobody may be accused of anything: no transcript records a fault and no node
    logs one.

    Was a bug (a race; fixed: a message is never sent twice on one link): when a link comes up while the game is running (the
    mesh links form after START; a spectator joins a game under way; any redial), Node._link sends
    "heads" and from then on also sends live messages on the link; the other side answers the heads it
    sent when the link came up with missing_for(...), which includes messages already sent live on the
    same link. The receiver then holds two direct copies from their sender and Session._duplicate
    records fault `replay` ("seat N (X) sent its message #K (...) again") against an honest peer, in
    its transcript and as a WARNING.
    """
    lan = make_lan(7)
    # Each headless seat's moves 0.2 s apart: the seven rounds after the first last 14 s at least, long enough for
    # the spectator to find the game under way (without it an idle machine played all eight rounds in 2 s, and the
    # spectator found the game's advertisement withdrawn at its end: "no game with code ... found").
    code, procs, transcripts = host_and_joiners(lan, seats=6, bots=0, joiners=5, rounds=8, watcher=False,
                                                extra=("--bot-delay", "0.2"))
    procs["host"].wait_for(r"round 1: ")  # and a spectator comes to watch the game under way
    procs["watch"] = lan.start(7, ["watch", code, "--headless", "--transcript", str(lan.tmp_path / "watch.p2pt")],
                               "watch")
    transcripts.append(lan.tmp_path / "watch.p2pt")
    _, verdicts = check_game(procs, transcripts)
    accusations = {name: [f"{f.get('code')}: {f.get('detail')}" for f in verdict.faults_recorded]
                   for name, verdict in verdicts.items() if verdict.faults_recorded}
    logged = [line for proc in procs.values() for line in proc.text().splitlines() if "fault:" in line]
    assert not accusations and not logged, f"honest peers accused: {accusations}\nlogged: {logged}"


def start_three_player_game(lan, rounds: int, env: dict, extra: tuple[str, ...] = ()) -> tuple[dict, list[Path]]:
    _, procs, transcripts = host_and_joiners(lan, seats=3, bots=0, joiners=2, rounds=rounds, watcher=False,
                                             env=env, extra=extra)
    return procs, transcripts


def outputs(procs: dict) -> str:
    return "\n".join(f"--- {name}:\n{proc.text()}" for name, proc in procs.items())


def cut_mid_game(lan, procs: dict, trigger: str, seconds: float) -> None:
    """Unplug peer 3 from the switch as soon as `trigger` is in its output, for `seconds`, then plug it back."""
    procs["join3"].wait_for(trigger, timeout=30)
    lan.cut(3)
    try:
        unfinished = [name for name, proc in procs.items() if "final scores" not in proc.text()]
        assert len(unfinished) == len(procs), f"the game ended before the cut: {unfinished}\n{outputs(procs)}"
        time.sleep(seconds)
        # Nobody can finish without peer 3's moves: the cut really stalled the game.
        finished = [name for name, proc in procs.items() if "final scores" in proc.text()]
        assert not finished, f"finished while peer 3 was cut off: {finished}\n{outputs(procs)}"
    finally:
        lan.heal(3)


@pytest.mark.parametrize("trigger", ["game started", r"round 1: "], ids=["at-start", "after-round-1"])
def test_link_cut_mid_game_then_healed(make_lan, trigger: str) -> None:
    """Peer 3's cable is pulled for 2.5 s mid-game: at once after START (its mesh link to peer 2 is then only
    made after the heal, by redial) or after round 1 (established links; TCP retransmits); the game completes
    with agreeing scores and verifying transcripts everywhere."""
    lan = make_lan(3)
    procs, transcripts = start_three_player_game(lan, rounds=10, env={"P2PNIMMT_LOG": "INFO"})
    cut_mid_game(lan, procs, trigger, 2.5)
    check_game(procs, transcripts, timeout=60)


def test_link_cut_longer_than_idle_timeout_redials_and_resyncs(make_lan) -> None:
    """A cut longer than the link timeout (--link-timeout 2 here, the cut 2 s longer; 20 s by default), after round 1:
    the links to peer 3 end (nothing received), the dialling sides redial after the heal, heads are exchanged, and
    the game resumes and completes."""
    lan = make_lan(3)
    procs, transcripts = start_three_player_game(lan, rounds=10, env={"P2PNIMMT_LOG": "INFO"},
                                                 extra=("--link-timeout", "2"))
    cut_mid_game(lan, procs, r"round 1: ", 2 + 2)
    check_game(procs, transcripts, timeout=60)
    # The links to peer 3 really broke (logged at INFO by the nodes) and were made again: the game went on.
    logs = {name: proc.text() for name, proc in procs.items()}
    assert re.search(r"link to \S+ \(.*\) ended: nothing received for 2 s", logs["join3"]), logs["join3"]
    assert re.search(r"link to \S+ \(.*\) ended: nothing received for 2 s", logs["host"]), logs["host"]
