"""Resume that is safe (issue 12, findings 3 and 5): the host resumes like any seat; `resume` checks its own
transcript before it sends anything, refuses a damaged one naming the record, trims a torn last record; one
identity plays one seat at a time on a machine, however its files were copied.

Real processes on 127.0.0.1; every process is stopped by pid at the end (the `procs` fixture).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from procs import final_scores

from p2pnimmt.net.files import torn_tail
from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.transcript import frame, frames, link
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
PEER = ["--drop-after", "0", "--bot-delay", "0.02", "--give-up", "60"]


def kill(proc) -> None:
    os.kill(proc.popen.pid, signal.SIGKILL)
    proc.popen.wait()


def start_game(tmp_path: Path, procs, joiners: int = 2, watcher: bool = True, rounds: int = 3, pace: tuple = ()):
    """A host (no bots: every seat a process of its own, each with files) and its joiners (and a spectator);
    `pace`: more options of every seat (a --bot-delay)."""
    host = procs(["host", "--headless", "--seats", str(joiners + 1), "--rounds", str(rounds), "--no-points", *LO,
                  *PEER, *pace, "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    peers = {"host": host}
    for i in range(1, joiners + 1):
        peers[f"j{i}"] = procs(["join", code, "--headless", *LO, *PEER, *pace, "--name", f"j{i}",
                                "--transcript", str(tmp_path / f"j{i}.p2pt")], tmp_path / f"j{i}.out")
    if watcher:
        peers["watch"] = procs(["watch", code, "--headless", *LO, "--give-up", "60",
                                "--transcript", str(tmp_path / "watch.p2pt")], tmp_path / "watch.out")
        # linked before anything is killed (`watch CODE` listens 1.5 s for a second game with the same code)
        peers["watch"].wait_for(r"joined \w{4} at .* as spectator", 30)
    return code, peers


def resume(procs, tmp_path: Path, name: str, path: Path | None = None, pace: tuple = ()):
    return procs(["resume", str(path or tmp_path / f"{name}.p2pt"), "--headless", *LO, *PEER, *pace],
                 tmp_path / f"{name}.resume.out")


def check_all(peers: dict, transcripts: list[Path], timeout: float = 90) -> str:
    """Every process exits 0 with the same final scores, and every transcript verifies with them."""
    for name, proc in peers.items():
        assert proc.finish(timeout) == 0, f"{name}:\n{proc.text()}"
    scores = {name: final_scores(proc.text()) for name, proc in peers.items()}
    assert len(set(scores.values())) == 1, scores
    result = next(iter(scores.values()))
    for path in transcripts:
        verdict = verify_transcript(path.read_bytes())
        assert verdict.ok, (path.name, verdict.report())
        assert "scores: " + result in verdict.summary, (path.name, verdict.summary)
    return result


def test_a_killed_host_resumes_and_every_node_finishes(tmp_path: Path, procs) -> None:
    """kill -9 the host (and a player) mid-game: the host resumes on its port, takes its lobby back, the player
    rejoins it (a join the resumed host must recognise), the spectator reconnects, a new spectator finds it by
    its code (advertised again) and is sent the lobby, and every node finishes."""
    pace = ("--bot-delay", "0.3")  # the game outlasts the late spectator's search (it finished first, once)
    code, peers = start_game(tmp_path, procs, pace=pace)
    peers["host"].wait_for(r"(?m)^round 1:", 60)
    kill(peers["host"])
    kill(peers["j1"])
    assert "final scores" not in peers["host"].text()
    host = resume(procs, tmp_path, "host", pace=pace)
    host.wait_for(r"resumed \w{4} from .*: \d+ messages replayed")
    host.wait_for(r"listening on 127\.0\.0\.1:\d+")
    j1 = resume(procs, tmp_path, "j1", pace=pace)
    late = procs(["watch", code, "--headless", *LO, "--give-up", "60", "--transcript", str(tmp_path / "late.p2pt")],
                 tmp_path / "late.out")
    alive = {"host": host, "j1": j1, "j2": peers["j2"], "watch": peers["watch"], "late": late}
    check_all(alive, [tmp_path / f"{n}.p2pt" for n in alive])
    assert "WARNING" not in host.text() and "Traceback" not in host.text(), host.text()
    for watcher in (peers["watch"], late):  # a spectator shows no raw log line (issue 23 item 9)
        assert "WARNING" not in watcher.text() and "Traceback" not in watcher.text(), watcher.text()


def test_a_damaged_transcript_is_refused_before_anything_is_sent(tmp_path: Path, procs) -> None:
    """One byte flipped in the middle of a seat's transcript: resume refuses it, naming the record, and sends
    nothing (the others do not abort: with the byte put back the same seat resumes and the game finishes)."""
    _code, peers = start_game(tmp_path, procs, watcher=False)
    peers["j1"].wait_for(r"(?m)^round 1:", 60)
    kill(peers["j1"])
    path = tmp_path / "j1.p2pt"
    data = path.read_bytes()
    offsets = [offset for offset, _record in frames(data)]
    middle = offsets[len(offsets) // 2]
    victim = middle + 4 + 60  # inside the record, past its index and link: the message bytes
    damaged = bytearray(data)
    damaged[victim] ^= 0x01
    path.write_bytes(bytes(damaged))
    refused = subprocess.run([sys.executable, "-m", "p2pnimmt", "resume", str(path), "--headless", *LO, *PEER],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert re.search(rf"transcript is damaged at record {len(offsets) // 2}: ", refused.stderr), refused.stderr
    assert "nothing was sent" in refused.stderr
    assert path.read_bytes() == bytes(damaged), "a refused resume leaves the transcript as it found it"
    # A frame's length made huge in the middle of the file: not a torn tail, the frame is named.
    damaged = bytearray(data)
    damaged[middle] = 0x7F
    path.write_bytes(bytes(damaged))
    refused = subprocess.run([sys.executable, "-m", "p2pnimmt", "resume", str(path), "--headless", *LO, *PEER],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert re.search(rf"damaged at record {len(offsets) // 2}: malformed frame: .*over the", refused.stderr), \
        refused.stderr
    assert path.read_bytes() == bytes(damaged)
    path.write_bytes(data)  # the byte put back
    j1 = resume(procs, tmp_path, "j1")
    check_all({"host": peers["host"], "j1": j1, "j2": peers["j2"]},
              [tmp_path / f"{n}.p2pt" for n in ("host", "j1", "j2")])


def test_a_torn_last_record_is_trimmed_and_the_seat_resumes(tmp_path: Path, procs) -> None:
    """The write a crash cut short (a record's first bytes at the end of the file): resume trims it, says so,
    and finishes; the transcript verifies."""
    _code, peers = start_game(tmp_path, procs, joiners=1, watcher=False)
    peers["j1"].wait_for(r"(?m)^round 1:", 60)
    kill(peers["j1"])
    path = tmp_path / "j1.p2pt"
    data = path.read_bytes()
    # SIGKILL can itself cut a write short where it crosses a page (the kernel stops a write at a page boundary
    # when a fatal signal is pending): that tail goes first, so that the torn record is the test's own, 57 bytes.
    cut = torn_tail(data)
    data = data if cut is None else data[:cut]
    records = list(frames(data))
    torn = frame(encode([len(records), link(records[-1][1]), "msg", bytes(300)]))[:57]
    path.write_bytes(data + torn)
    j1 = resume(procs, tmp_path, "j1")
    j1.wait_for(r"trimmed a torn last record of the transcript \(57 bytes")
    check_all({"host": peers["host"], "j1": j1}, [tmp_path / "host.p2pt", path])


def test_a_frame_damaged_in_the_middle_is_not_taken_for_a_torn_tail(tmp_path: Path) -> None:
    """A length prefix made larger in the middle of the file: not a cut tail (whole records follow), refused."""

    records = [encode([i, bytes(32), "msg", bytes(40 + i)]) for i in range(6)]
    data = b"".join(frame(r) for r in records)
    assert torn_tail(data) is None
    assert torn_tail(data + frame(records[0])[:3]) == len(data)
    assert torn_tail(data + frame(records[0])[:20]) == len(data)
    assert torn_tail(data + bytes(16)) == len(data)  # zeros a crash can leave
    offsets = [offset for offset, _record in frames(data)]
    damaged = bytearray(data)
    damaged[offsets[4] + 2] = 0x01  # record 4 now claims 256 bytes more than it has: records 4 and 5 are whole
    assert torn_tail(bytes(damaged)) is None


def test_one_identity_plays_one_seat_however_its_files_were_copied(tmp_path: Path, procs) -> None:
    """A seat's three files copied elsewhere: while one copy plays, resuming the other is refused."""
    _code, peers = start_game(tmp_path, procs, joiners=1, watcher=False)
    peers["j1"].wait_for(r"(?m)^round 1:", 60)
    os.kill(peers["j1"].popen.pid, signal.SIGSTOP)  # it holds its locks while stopped; its files stand still
    try:
        copy = tmp_path / "copy"
        copy.mkdir()
        for suffix in ("", ".secrets", ".key"):
            shutil.copy(tmp_path / f"j1.p2pt{suffix}", copy / f"j1.p2pt{suffix}")
        # The joiner holds its identity: the copy is refused (a different file, the same key), and left as it was.
        before = (copy / "j1.p2pt").read_bytes()
        second = subprocess.run([sys.executable, "-m", "p2pnimmt", "resume", str(copy / "j1.p2pt"), "--headless",
                                 *LO], capture_output=True, text=True, timeout=60)
        assert (copy / "j1.p2pt").read_bytes() == before
    finally:
        os.kill(peers["j1"].popen.pid, signal.SIGCONT)
    assert second.returncode == 1, second.stdout + second.stderr
    assert re.search(r"this identity \(\S+\) is in use by another p2pnimmt process", second.stderr), second.stderr
    check_all({"host": peers["host"], "j1": peers["j1"]}, [tmp_path / "host.p2pt", tmp_path / "j1.p2pt"])


def test_the_secrets_file_is_trimmed_when_torn_and_named_when_damaged(tmp_path: Path) -> None:
    """read_own_files: a torn last secret is cut off (and said); a damaged one in the middle is named."""
    import pytest

    from p2pnimmt.net.files import FileSet, read_own_files, secrets_path, transcript_journal
    from p2pnimmt.protocol.codec import DecodeError
    from p2pnimmt.protocol.identity import Identity

    path = tmp_path / "t.p2pt"
    files = FileSet()
    journal = transcript_journal(path, Identity.generate(), files)
    for turn in range(4):
        journal.secret({"kind": "play", "round": 0, "turn": turn, "card": 10 + turn, "nonce": bytes(32)})
    files.close()
    secret = secrets_path(path)
    whole = secret.read_bytes()
    secret.write_bytes(whole + frame(encode({"kind": "play", "round": 0, "turn": 4}))[:9])
    files = FileSet()
    own, _journal = read_own_files(path, files)
    files.close()
    assert [r["turn"] for r in own.secrets] == [0, 1, 2, 3]
    assert own.trimmed == [f"a torn last record of the secrets (9 bytes at byte {len(whole)})"]
    assert secret.read_bytes() == whole
    offsets = [offset for offset, _record in frames(whole)]
    damaged = bytearray(whole)
    damaged[offsets[2] + 4] = 0xC1  # never used in msgpack: record 2 does not decode
    secret.write_bytes(bytes(damaged))
    files = FileSet()
    with pytest.raises(DecodeError, match="the secrets file is damaged at its record 2"):
        read_own_files(path, files)
    files.close()
