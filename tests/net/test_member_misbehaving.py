"""A seated member misbehaving (issue 21, items 5 and 6): garbage and replays from a member's own link.

Real `p2pnimmt` processes on 127.0.0.1: ann hosts four seats, bob, cat and mal join; mal is killed once it
has played, the others vote it out, and the raw-socket attacker of tests/attacker.py takes mal's seat key
from the key file beside mal's transcript: it shakes hands with every honest peer as a seated member and
- floods bad signatures, redialling at once whenever cut: each link is cut (one log line), and the key's
  handshakes are refused for 1 s, then 2 s, then 4 s (the accepted handshakes are counted and timed);
- replays every message of the game, again and again: the first copy of each costs a lookup (no signature
  check, at most one fault record per transcript), the second on a link gets the link cut.
A spectator cut for bad messages is refused when it comes back. The honest game always finishes, agreed,
every honest transcript verifying. The memo of signatures is bounded in bytes (in process). Turn times and
memory under these floods are measured by benchmarks/member_flood_bench.py, never asserted here.
"""

from __future__ import annotations

import os
import re
import signal
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from attacker import LOOPBACK, Attacker, Campaign, Listener, forged_flood, member_key, member_ports, replay_flood
from deadlines import outer
from procs import code_of, final_scores, seat_key_of

import p2pnimmt.protocol.envelope as envelope
import p2pnimmt.protocol.inbox as inbox
from p2pnimmt.engine import Settings
from p2pnimmt.net.frames import MAX_LINK_FAULTS
from p2pnimmt.net.trouble import BAD_LINK_BACKOFF
from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.envelope import NO_PREVIOUS, VERSION
from p2pnimmt.protocol.events import Fault, Outgoing
from p2pnimmt.protocol.identity import (
    MEMO_ENTRY,
    MEMO_SIZE,
    SALT_SIZE,
    Identity,
    clear_verify_memo,
    fingerprint,
    game_id_for,
    peer_id,
    verify,
    verify_memo,
)
from p2pnimmt.protocol.session import Session
from p2pnimmt.protocol.transcript import TranscriptJournal
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", LOOPBACK]
HONEST = ("ann", "bob", "cat")
# 8 rounds of 10 turns, each move at least 0.1 s: the game lasts at least 8 s whatever the machine, longer
# than the attacks below need (about 4 s once mal is voted out: its key is spaced 1 s, then 2 s).
SLOW = ["--bot-delay", "0.1", "--drop-after", "1"]


def wait_until(check: Callable[[], bool], what: Callable[[], str], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + outer(timeout)
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what()}")
        time.sleep(0.05)


def table_with_a_dead_seat(procs, tmp_path: Path) -> tuple[dict, int, Identity]:
    """ann hosts 4 seats, bob, cat and mal join; mal is killed once it has committed a card and voted out.
    Returns the honest processes by name, the host's port and mal's seat key."""
    def transcript(name: str) -> list[str]:
        return ["--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")]

    ann = procs(["host", "--headless", "--seats", "4", "--rounds", "8", "--no-points", *LO, *SLOW,
                 *transcript("ann")], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    code = code_of(tmp_path / "ann.out")
    joined = {name: procs(["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, *SLOW,
                           *transcript(name)], tmp_path / f"{name}.out",
                          env={"P2PNIMMT_TIMING": "1"} if name == "mal" else None)
              for name in ("bob", "cat", "mal")}
    mal = joined.pop("mal")
    mal.wait_for(r"timing commit 0 0 ", 90)  # past the START and its shuffle: the game needs it from now on
    os.kill(mal.popen.pid, signal.SIGKILL)
    mal.popen.wait()
    ann.wait_for("mal was dropped by the others' vote", 90)
    return {"ann": ann, **joined}, port, member_key(tmp_path / "mal.p2pt")


def all_finish_agree_and_verify(tmp_path: Path, honest: dict) -> dict[str, list[dict]]:
    """Every honest process exits 0 with the same scores and a transcript that verifies; its fault records."""
    for name, proc in honest.items():
        assert proc.finish(120) == 0, (name, proc.text())
    assert len({final_scores(proc.text()) for proc in honest.values()}) == 1
    records = {}
    for name in honest:
        verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())
        records[name] = verdict.faults_recorded
        assert "Traceback" not in honest[name].text(), honest[name].text()
    return records


def attack_every_honest_peer(port: int, mal: Identity, attack: Callable) -> tuple[dict[str, Campaign], Listener]:
    listener = Listener()  # where the honest peers that dial mal's seat now reach (and are never answered)
    ports = member_ports(port, mal, listener.port, HONEST) | {"ann": port}
    campaigns = {name: Campaign(ports[name], mal, attack()) for name in HONEST}
    for campaign in campaigns.values():
        campaign.start()
    return campaigns, listener


def test_a_seat_flooding_bad_signatures_is_cut_once_a_link_and_its_reconnects_are_spaced(tmp_path: Path,
                                                                                         procs) -> None:
    """Item 5. The seat's key floods each honest peer with 60 KB messages whose signatures nobody made and
    redials at once whenever cut. Each honest peer cuts the first link after MAX_LINK_FAULTS + 1 bad messages
    and each later one at its first, with one log line a link (the faults themselves are not logged one by
    one), and refuses the key's handshakes for 1 s after the first cut, 2 s after the second: accepted
    handshakes are at least that far apart, however fast the attacker redials. The game plays on."""
    honest, port, mal = table_with_a_dead_seat(procs, tmp_path)
    campaigns, listener = attack_every_honest_peer(port, mal, forged_flood)
    try:
        wait_until(lambda: all(len(c.accepted) >= 3 for c in campaigns.values()),
                   lambda: f"3 accepted handshakes at each peer: {[c.accepted for c in campaigns.values()]}")
    finally:
        for campaign in campaigns.values():
            campaign.finish()
        listener.close()
    records = all_finish_agree_and_verify(tmp_path, honest)
    fp = re.escape(fingerprint(mal.peer))
    for name, campaign in campaigns.items():
        accepted = campaign.accepted
        gaps = [b - a for a, b in zip(accepted, accepted[1:], strict=False)]
        for k, gap in enumerate(gaps):
            assert gap >= BAD_LINK_BACKOFF[0] * 2 ** k - 0.01, (name, gaps)
        assert campaign.refused > 0, (name, "the attacker was never refused: it did not redial while spaced")
        text = honest[name].text()
        cuts = re.findall(rf"WARNING p2pnimmt\.net: closing the link to {fp}: (\d+) bad messages \(the first: "
                          r"PLAY_COMMIT #\d+ claiming to be from seat \d \(mal\).*; its key is refused for (\d+) s",
                          text)
        # The first cut is a line, the later ones a count (p2pnimmt.quietlog: one line per address and kind).
        later = re.findall(r"WARNING p2pnimmt\.net: link cut for bad messages: (\d+) more from 127\.0\.0\.1 .*the "
                           rf"last: closing the link to {fp}: 1 bad messages .*; its key is refused for \d+ s", text)
        assert cuts == [(str(MAX_LINK_FAULTS + 1), "1")] and later, (name, cuts, later)
        cuts += [("1", "")] * sum(int(n) for n in later)
        assert len(accepted) - 1 <= len(cuts) <= len(accepted), (name, cuts, accepted)
        assert "does not verify" not in "".join(line for line in text.splitlines() if "WARNING" in line
                                                 and "closing the link" not in line), text
        blamed = Counter(f["code"] for f in records[name] if f["peer"] == mal.peer)
        assert blamed["bad-signature"] == MAX_LINK_FAULTS + len(cuts), (name, blamed, cuts)


def test_a_seat_replaying_the_whole_game_costs_lookups_and_one_record(tmp_path: Path, procs) -> None:
    """Item 6. The seat's key asks each honest peer for the whole game (heads of nothing) and sends every
    message back again and again. Each honest transcript holds at most one fault record for it (`replay`,
    once for the seat's own messages), none for the others' messages it relays; a link that carries a
    message twice is cut (an honest peer never sends one twice on a link) and its key spaced like any link
    that carries garbage; the game plays on."""
    honest, port, mal = table_with_a_dead_seat(procs, tmp_path)
    pool: dict[bytes, None] = {}
    campaigns, listener = attack_every_honest_peer(port, mal, lambda: replay_flood(pool))
    try:
        wait_until(lambda: all(len(c.accepted) >= 2 for c in campaigns.values()),
                   lambda: f"2 accepted handshakes at each peer: {[c.accepted for c in campaigns.values()]}")
    finally:
        for campaign in campaigns.values():
            campaign.finish()
        listener.close()
    senders = Counter(envelope.open_envelope(wire).sender for wire in pool)
    assert senders[mal.peer] and len(senders) == 4, "the attacker did not replay messages of every seat"
    records = all_finish_agree_and_verify(tmp_path, honest)
    fp = re.escape(fingerprint(mal.peer))
    for name in HONEST:
        blamed = Counter(f["code"] for f in records[name] if f["peer"] == mal.peer)
        assert blamed["replay"] <= 1 and set(blamed) <= {"replay", "absent"}, (name, blamed)
        assert len([f for f in records[name] if f["peer"] != mal.peer]) == 0, (name, records[name])
        assert re.search(rf"closing the link to {fp}: \d+ bad messages \(the first: a message it had sent on "
                         r"this link already \(replayed\)\)", honest[name].text()), honest[name].text()


def test_a_spectator_cut_for_bad_messages_may_watch_again_and_is_cut_at_its_first_bad_one(tmp_path: Path,
                                                                                         procs) -> None:
    """Item 5, from a spectator's link: it joins mid-game and sends messages forged as bob's; its link is cut
    with one log line and it is removed. Its key is not refused for it: a link's frames after the handshake are
    nobody's signed word (protocol.md 14, Bounds, since session 41: a phone relay that put garbage in its page's
    name had the page's key cut off for good). Dialling again and asking to watch, it is admitted (a lobby frame),
    and its new link is cut at its first bad message: its budget stays spent. The spectator has the seat key (a
    member; protocol.md 14, "The seat key")."""
    ann = procs(["host", "--headless", "--seats", "2", "--rounds", "4", "--no-points", *LO, *SLOW, "--name", "ann",
                 "--transcript", str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    port = int(ann.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    bob = procs(["join", code_of(tmp_path / "ann.out"), "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, *SLOW,
                 "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
    bob.wait_for("game started")
    seat_key = seat_key_of(code_of(tmp_path / "ann.out"))
    tv = Attacker.dial(port)
    try:
        tv.join("spectator", name="tv", seat_key=seat_key)
        members = {m["name"]: m for m in tv.lobby()["members"]}
        bob_peer = peer_id(members["bob"]["key"])
        try:
            for seq in range(3 * MAX_LINK_FAULTS):
                tv.send("msg", tv.forged(bob_peer, 1000 + seq, 2_000))
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert tv.closed_by_peer()
    finally:
        tv.close()
    again = Attacker.dial(port, tv.identity)  # back: admitted, its budget spent
    try:
        again.join("spectator", name="tv", seat_key=seat_key)
        assert "tv" in {m["name"] for m in again.lobby()["members"]}
        try:
            again.send("msg", again.forged(bob_peer, 5_000, 2_000))
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert again.closed_by_peer(), "a spectator's link cut for bad messages before was not cut at its first one"
    finally:
        again.close()
    records = all_finish_agree_and_verify(tmp_path, {"ann": ann, "bob": bob})
    lines = re.findall(rf"WARNING .*{re.escape(fingerprint(tv.identity.peer))}.*", ann.text())
    assert lines and "bad messages" in lines[0] and "next link is cut at its first bad message" in lines[0], lines
    blamed = Counter(f["code"] for f in records["ann"] if f["peer"] == tv.identity.peer)
    assert blamed == {"bad-signature": MAX_LINK_FAULTS + 2}, blamed


# ----------------------------------------------------------------- in process


def test_the_signature_memo_holds_a_bounded_number_of_bytes() -> None:
    """The memo of good signatures keeps the key, the signature and a hash of each message, never the message:
    thousands of large distinct messages leave at most MEMO_SIZE entries of MEMO_ENTRY bytes each (the
    unbounded cache held 241 MB in the issue's flood), and bad signatures are not remembered at all."""
    me = Identity.generate()
    clear_verify_memo()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for k in range(MEMO_SIZE + 1000):
            data = k.to_bytes(4, "big") + bytes(15_000)  # each distinct, as large as the memo takes
            assert verify(me.public_key, me.sign(data), data)
        for k in range(200):
            data = k.to_bytes(4, "big") + bytes(60_000)  # over the memo's size: checked every time
            assert verify(me.public_key, me.sign(data), data)
        entries, size = verify_memo()
        assert entries == MEMO_SIZE and size <= MEMO_SIZE * MEMO_ENTRY, (entries, size)
        for k in range(1000):
            assert not verify(me.public_key, bytes(64), k.to_bytes(4, "big") + bytes(15_000))
        assert verify_memo() == (entries, size)
        held = tracemalloc.get_traced_memory()[0] - before
        assert held < 4 * 1024 * 1024, f"the memo holds {held} bytes after {MEMO_SIZE + 1200} messages of 15-60 KB"
    finally:
        tracemalloc.stop()
    data = b"the same message"
    signature = me.sign(data)
    assert verify(me.public_key, signature, data) and verify(me.public_key, signature, data)  # a hit
    assert not verify(me.public_key, signature, data + b"!")  # a hit is for these exact bytes only
    assert not verify(Identity.generate().public_key, signature, data)


def test_a_copy_of_a_message_held_is_dropped_before_it_is_decoded_or_its_signature_checked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 6 in process: 1,000 copies of a message the session holds, from its sender and relayed, are
    neither decoded nor signature-checked (both counted, the real functions doing the work), and leave
    exactly one fault (`replay`) and one fault record, however many come. Another message under a taken
    sequence number is still decoded and checked."""
    ann, eve = Identity.generate(), Identity.generate()
    salt = os.urandom(SALT_SIZE)
    game_id = game_id_for(ann.public_key, salt)
    host = Session(ann, game_id=game_id, journal=TranscriptJournal(bytearray().extend, ann))
    out = host.host(salt, Settings(players=2, deal="open", max_rounds=1, point_limit=None),
                    [(ann.public_key, "ann", True), (eve.public_key, "eve", True)])
    start = next(o.wire for o in out if isinstance(o, Outgoing))
    other = Session(eve, game_id=game_id)
    ack = next(o.wire for o in other.receive(start, via=ann.peer)
               if isinstance(o, Outgoing) and o.wire != start)
    host.receive(ack, via=eve.peer)
    assert host.inbox.holds(ack)
    counted: Counter[str] = Counter()

    def counting(name: str, real: Callable) -> Callable:
        def call(*args):
            counted[name] += 1
            return real(*args)
        return call

    monkeypatch.setattr(inbox, "open_envelope", counting("decoded", inbox.open_envelope))
    monkeypatch.setattr(envelope, "verify", counting("signature checked", envelope.verify))
    faults = []
    for k in range(1000):
        faults += [o for o in host.receive(ack, via=eve.peer if k % 2 else bytes(16)) if isinstance(o, Fault)]
    assert counted == {}, counted
    assert [f.code for f in faults] == ["replay"], faults
    assert [f.code for f in host.journal.faults] == ["replay"]
    signed = encode([VERSION, game_id, eve.peer, 0, NO_PREVIOUS, "START_ACK", {"other": 1}])
    faults = [o for o in host.receive(encode([signed, bytes(64)]), via=eve.peer) if isinstance(o, Fault)]
    assert counted == {"decoded": 1, "signature checked": 1}, counted
    assert [f.code for f in faults] == ["bad-signature"] and host.phase != "aborted", faults
