"""Finite waits (issue 12, finding 7): a node that can make no progress says why and exits 1 within --give-up
seconds; no process of a finished or dead game is left running. The transcript of a node that gave up is left
unsealed, a whole prefix of the game: `resume` can take it up again.

Real processes on 127.0.0.1, each stopped by pid at the end (the `procs` fixture); the partitioned host of four
is in tests/lan/test_partition.py.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from p2pnimmt.net.files import torn_tail
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
GIVE_UP = ["--give-up", "3"]
BOUND = 60  # seconds a process may take to notice and leave: a bound, not a measurement


def kill(proc) -> None:
    os.kill(proc.popen.pid, signal.SIGKILL)
    proc.popen.wait()


def gave_up(proc, where: str = "", or_why: str | None = None) -> None:
    """The process exited 1 and said why: no progress for the --give-up time, and where it stood (or `or_why`,
    another reason it may say first)."""
    assert proc.finish(BOUND) == 1, proc.text()
    text = proc.text()
    assert re.search(r"giving up: no progress for \d+ s \(" + where, text) or (
        or_why is not None and re.search(or_why, text)), text
    assert "Traceback" not in text, text


def test_the_spectator_of_a_host_that_died_gives_up(tmp_path: Path, procs) -> None:
    """Two seats and a spectator linked only to the host; the host dies: the other player drops it and finishes
    the game with the stand-in; the spectator, which hears from no one now, says so and leaves."""
    host = procs(["host", "--headless", "--seats", "2", "--rounds", "3", "--no-points", *LO, "--drop-after", "0",
                  "--bot-delay", "0.05", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    watch = procs(["watch", code, "--headless", *LO, *GIVE_UP, "--transcript", str(tmp_path / "watch.p2pt")],
                  tmp_path / "watch.out")
    watch.wait_for("joined")
    player = procs(["join", code, "--headless", *LO, "--drop-after", "1", "--give-up", "30", "--bot-delay", "0.05",
                    "--transcript", str(tmp_path / "j.p2pt")], tmp_path / "j.out")
    player.wait_for(r"(?m)^round 1:", 60)
    kill(host)
    assert player.finish(BOUND) == 0, player.text()
    verdict = verify_transcript((tmp_path / "j.p2pt").read_bytes())
    assert verdict.ok, verdict.report()
    status = watch.finish(BOUND)
    if status == 0:  # it was relayed the rest by the player after all: then it agrees
        assert re.search(r"final scores: (.*)", watch.text()).group(1) in verdict.summary
    else:
        gave_up(watch, "round")
        data = (tmp_path / "watch.p2pt").read_bytes()
        assert torn_tail(data) is None
        assert "ends before the game does" in verify_transcript(data).fault


def test_a_host_whose_players_are_all_gone_gives_up_and_so_does_its_spectator(tmp_path: Path, procs) -> None:
    """Every player but the host gone (as after the forged refuse of finding 1): nobody is left to vote a drop
    with; the host says too few players remain, the spectator what it waits for, and both leave, their
    transcripts resumable."""
    host = procs(["host", "--headless", "--seats", "3", "--rounds", "3", "--no-points", *LO, "--drop-after", "1",
                  *GIVE_UP, "--bot-delay", "0.05", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    watch = procs(["watch", code, "--headless", *LO, *GIVE_UP, "--transcript", str(tmp_path / "watch.p2pt")],
                  tmp_path / "watch.out")
    joiners = [procs(["join", code, "--headless", *LO, "--drop-after", "0", "--bot-delay", "0.05", "--name", f"j{i}",
                      "--transcript", str(tmp_path / f"j{i}.p2pt")], tmp_path / f"j{i}.out") for i in (1, 2)]
    joiners[0].wait_for(r"(?m)^round 1:", 60)
    for joiner in joiners:
        kill(joiner)
    # the host cannot vote out two seats of three (protocol.md 11.1): it says so after its drop time (1 s),
    # before its give-up time (3 s)
    assert host.finish(BOUND) == 1, host.text()
    assert re.search(r"giving up: too few players remain to play on: j\d, j\d left \(1 of 3 remain", host.text())
    assert "resume" in host.text() and "Traceback" not in host.text()
    # The spectator either reaches its give-up time first, or first finds every player gone: the host said `bye`
    # as it gave up and nothing answers at the joiners' addresses (net.waiting.too_few); which comes first is a
    # matter of timing (a loaded CI machine saw the second), and both are a clear line and a resumable transcript.
    gave_up(watch, or_why=r"giving up: too few players remain to play on: .* left \(0 of 3 remain")
    for name in ("host.p2pt", "watch.p2pt"):
        data = (tmp_path / name).read_bytes()
        assert torn_tail(data) is None
        verdict = verify_transcript(data)
        assert "ends before the game does" in verdict.fault, (name, verdict.report())


@pytest.mark.parametrize("leaves", [signal.SIGINT, signal.SIGKILL], ids=["quits", "dies"])
def test_a_joiner_whose_host_left_the_lobby_says_so_at_once(tmp_path: Path, procs, leaves) -> None:
    """The host leaves the lobby (Ctrl-C: it says bye; killed: its port refuses the joiner's redial): nothing to
    wait for, and nothing to resume. The joiner says so at once (its --give-up, the default 300 s, is not what ends
    it: before issue 26 it waited for it), one line naming the host, and exits 1."""
    host = procs(["host", "--headless", "--seats", "3", *LO, "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    joiner = procs(["join", code, "--headless", *LO, "--transcript", str(tmp_path / "j.p2pt")], tmp_path / "j.out")
    host.wait_for("lobby: 2/3")
    joiner.wait_for(r"joined \w{4}")  # the host's lobby frame came (its name with it): said once it names us
    os.kill(host.popen.pid, leaves)
    host.popen.wait()
    assert joiner.finish(BOUND) == 1, joiner.text()
    text = joiner.text()
    what = "left the lobby before the game started \\(it said goodbye\\)" if leaves == signal.SIGINT else \
        "is gone from the lobby before the game started \\(nothing listens there any more\\)"
    assert re.search(r"giving up: the host ann at 127\.0\.0\.1:\d+ " + what + ": there is no game to wait for",
                     text), text
    if leaves == signal.SIGKILL:  # no bye came: the refused redial is what told it
        assert "said goodbye" not in text, text
    assert "resume" not in text and "no progress" not in text and "Traceback" not in text, text


def test_a_joiner_whose_host_is_silent_in_the_lobby_gives_up(tmp_path: Path, procs) -> None:
    """A host that stops answering in the lobby without leaving (stopped; as a cut network): it may come back, so
    the joiner waits its --give-up time, then says where it stood."""
    host = procs(["host", "--headless", "--seats", "3", *LO, "--transcript", str(tmp_path / "host.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    joiner = procs(["join", code, "--headless", *LO, *GIVE_UP, "--link-timeout", "2",
                    "--transcript", str(tmp_path / "j.p2pt")], tmp_path / "j.out")
    host.wait_for("lobby: 2/3")
    os.kill(host.popen.pid, signal.SIGSTOP)
    try:
        gave_up(joiner, "in the lobby, no link to the host")
        assert "left the lobby" not in joiner.text() and "is gone from the lobby" not in joiner.text()
    finally:
        kill(host)


def test_what_counts_as_waiting_on_others() -> None:
    """A host filling its lobby, a joiner linked to its host, a person thinking over our own move: not stuck.
    A joiner with no link to its host, or a game waiting on other seats with no new message: stuck."""
    from types import SimpleNamespace

    from p2pnimmt.app.nodes import _progress

    lobby = SimpleNamespace(start=None)
    assert _progress(SimpleNamespace(session=lobby, is_host=True, links={}, lobby_state="lobby", members={}))[1]
    assert _progress(SimpleNamespace(session=lobby, is_host=False, links={b"h": 1}, lobby_state="lobby",
                                     members={}))[1]
    assert not _progress(SimpleNamespace(session=lobby, is_host=False, links={}, lobby_state="lobby",
                                         members={}))[1]

    def playing(seat, waiting, bot):
        session = SimpleNamespace(start=object(), seat=seat, waiting_for=lambda: waiting, phase="turn", round=0,
                                  turn=3, journal=SimpleNamespace(messages=[b"m"] * 7))
        return _progress(SimpleNamespace(session=session, is_host=False, links={}, bot=bot))

    assert playing(1, (1, 2), None)[1]  # a person has our move to make
    assert not playing(1, (2,), None)[1]  # others owe theirs
    assert not playing(1, (1,), object())[1]  # a bot owes it: it does not think for minutes
    assert not playing(None, (0,), None)[1]  # a spectator waits on others only
    assert playing(1, (2,), None)[0] == playing(None, (0,), None)[0]  # the same messages: the same mark
