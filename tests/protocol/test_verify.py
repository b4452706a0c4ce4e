"""`verify_transcript` and `p2pnimmt verify` on honest and tampered transcripts.

Tampering is done at known places of a real transcript: the frame length,
a record's index, link, type, payload, a message's signed part and
signature, the seal and the header; then whole records are dropped,
swapped, truncated or appended. Each must fail with the reason
protocol.md section 13 names, at the right record.
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache

import pytest
from harness import Net
from support import build, check_honest, flip, messages, play, records, rewrite, short, winner_line

from p2pnimmt.protocol.codec import encode
from p2pnimmt.protocol.envelope import open_envelope, seal
from p2pnimmt.protocol.events import Outgoing
from p2pnimmt.protocol.identity import Identity, fingerprint
from p2pnimmt.protocol.transcript import TranscriptJournal, frame
from p2pnimmt.protocol.verify import TranscriptError, replay, verify_transcript

MSG_KINDS = ("START_ACK", "SEED_COMMIT", "SEED_REVEAL", "PLAY_COMMIT", "PLAY_REVEAL", "ROW_CHOICE", "ROUND_END",
             "GAME_END")


@cache
def game(variant: str = "standard"):
    """A finished 3-player, 2-round game (seed chosen so that somebody chooses a row)."""
    for seed in range(40):
        net = play(short(3, variant, 2), 300 + seed)
        kinds = {r.kind for r in records(bytes(net.transcripts[net.peers[1]]))}
        if "ROW_CHOICE" in kinds or variant == "draft":
            check_honest(net)
            return net
    raise AssertionError("no game with a row choice")


def data(variant: str = "standard", peer: int = 1) -> bytes:
    net = game(variant)
    return bytes(net.transcripts[net.peers[peer]])


def first(recs, kind: str, nth: int = 0):
    return [r for r in recs if r.kind == kind][nth]


def check(tampered: bytes, reason: str, record: int | None) -> None:
    v = verify_transcript(tampered)
    assert not v.ok, "tampering went unnoticed"
    assert reason in v.fault, v.report()
    assert v.record == record, v.report()
    assert v.report().startswith("FAILED at " + (f"record {record}: " if record is not None else ""))
    # The readers raise the one error type, carrying the record and the reason, that the verdict reports.
    with pytest.raises(TranscriptError) as caught:
        replay(tampered)
    assert (caught.value.record, caught.value.reason, caught.value.peer) == (v.record, v.fault, v.peer)


# ----------------------------------------------------------------- honest


@pytest.mark.parametrize("variant", ["standard", "draft"])
def test_honest_transcripts_verify(variant: str) -> None:
    net = game(variant)
    session = net.sessions[net.peers[0]]
    names = session.names
    for peer in net.peers:  # every seat and the spectator
        v = verify_transcript(bytes(net.transcripts[peer]))
        assert v.ok, v.report()
        assert v.fault == "" and v.record is None and v.faults_recorded == []
        lines = v.report().splitlines()
        assert v.report() == v.summary
        assert f"variant {variant}" in lines[0] and "3 players" in lines[0] and "2 rounds" in lines[0]
        assert lines[1] == "players: " + ", ".join(
            f"{n} ({fingerprint(p)}, bot)" for n, p in zip(names, session.roster))
        for r, taken in enumerate(session.game.history):
            assert f"round {r + 1}: " + ", ".join(f"{n} {x}" for n, x in zip(names, taken)) in lines
        assert "scores: " + ", ".join(f"{n} {x}" for n, x in zip(names, session.result.scores)) in lines
        assert winner_line(session) in lines
        assert f"verified: {len(messages(bytes(net.transcripts[peer])))} signed messages" in lines[-1]
        recorder = net.sessions[peer]
        who = (f"seat {recorder.seat} {names[recorder.seat]} ({fingerprint(peer)})" if recorder.seat is not None
               else fingerprint(peer))
        assert lines[-1].endswith(f"sealed by {who}")


def test_a_tie_names_the_winners() -> None:
    for seed in range(200):
        net = play(short(2, "standard"), 5000 + seed)
        result = net.sessions[net.peers[0]].result
        if len(result.winners) > 1:
            check_honest(net)
            v = verify_transcript(bytes(net.transcripts[net.peers[0]]))
            assert "winners: p0, p1" in v.summary.splitlines()
            return
    pytest.skip("no tie in 200 two-player games")


def test_non_fatal_faults_are_recorded_and_the_transcript_still_verifies() -> None:
    """Junk delivered to a seat during the game shows up as fault records; the game and its transcript are fine."""

    class Junky(Net):
        def handle(self, peer, outputs):
            super().handle(peer, outputs)
            target = self.identities[1].peer
            if self.delivered in (5, 50) and not getattr(self, f"done{self.delivered}", False):
                setattr(self, f"done{self.delivered}", True)
                wire = bytearray(self.sessions[target].journal.messages[-1])
                wire[-67] ^= 1  # the last byte of the signed part: a message nobody signed
                junk = self.sessions[target].receive(bytes(wire), via=self.identities[2].peer)
                junk += self.sessions[target].receive(b"\x93garbage", via=self.identities[0].peer)
                assert [f.code for f in junk] == ["bad-signature", "malformed"]

    net = play(short(3, "standard", 1), 400, net_class=Junky)
    target = net.identities[1].peer
    assert [f.code for f in net.sessions[target].journal.faults] == ["bad-signature", "malformed"] * 2
    v = verify_transcript(bytes(net.transcripts[target]))
    assert v.ok, v.report()
    assert [f["code"] for f in v.faults_recorded] == ["bad-signature", "malformed"] * 2
    assert all(f["fatal"] is False for f in v.faults_recorded)
    assert v.faults_recorded[0]["peer"] == net.identities[2].peer
    # the fault records are chained like the rest: altering one is noticed at the next record ...
    recs = records(bytes(net.transcripts[target]))
    fault = first(recs, "fault")
    detail = fault.start + fault.raw.index(fault.payload["detail"].encode())
    check(flip(bytes(net.transcripts[target]), detail), "does not chain", fault.position + 1)
    # ... unless it no longer has the shape of a fault record (here its key "evidence"): then at its own
    check(flip(bytes(net.transcripts[target]), fault.end - 3), "malformed fault record", fault.position)


def test_a_corrupted_copy_of_an_accepted_message_is_ignored() -> None:
    """Only the signature differs from a message already accepted: same message hash, so a harmless duplicate."""
    net = game()
    session = net.sessions[net.peers[0]]
    wire = bytearray(session.journal.messages[-1])
    sender = open_envelope(bytes(wire)).sender
    wire[-1] ^= 1
    relayer = next(p for p in net.peers[1:] if p != sender)  # a relayed copy: from its sender, it would be a replay
    assert session.receive(bytes(wire), via=relayer) == []
    assert session.phase == "over"


def test_an_aborted_game_names_the_cheater() -> None:
    """Seat 2 signs two different SEED_COMMITs for one round (to different peers): everybody aborts, blaming it.
    (Two PLAY_COMMITs for one turn, a split commit, cost it its seat instead: protocol.md 12, test_split_commit.py.)"""
    net = Net(3, settings=short(3), seed=410)
    cheater = net.identities[2]

    def equivocate(peer, out: Outgoing):
        env = open_envelope(out.wire)
        targets = net.targets(peer, out)
        if env.sender != peer or env.kind != "SEED_COMMIT":
            return [(to, out.wire) for to in targets]
        other = seal(cheater, env.game_id, env.seq, env.prev, env.kind, {**env.body, "commit": bytes(32)})
        return [(to, out.wire if k % 2 else other.wire) for k, to in enumerate(targets)]

    net.tamper[cheater.peer] = equivocate
    net.start()
    net.run()
    for peer in net.peers[:2] + net.peers[3:]:
        session = net.sessions[peer]
        # equivocation, or, where the forged commit arrived first, its next message does not chain
        assert session.phase == "aborted" and session.fault.code in ("equivocation", "chain-broken")
        assert session.fault.peer == cheater.peer and session.fault.fatal
        v = verify_transcript(bytes(net.transcripts[peer]))
        assert not v.ok and v.record is None
        assert v.fault.startswith(f"the game was aborted: {session.fault.code}: ")
        assert v.fault.endswith(f"peer at fault: seat 2 p2 ({cheater.fingerprint})")
        assert v.peer == cheater.peer


def test_an_unsealed_transcript_is_not_accepted() -> None:
    wires = messages(data())
    out = bytearray()
    journal = TranscriptJournal(out.extend, None)  # a recorder without a key cannot seal
    for wire in wires:
        journal.message(wire)
    journal.seal()
    check(bytes(out), "no seal", None)


# ----------------------------------------------------------------- one byte flipped


@pytest.mark.parametrize("kind", MSG_KINDS)
def test_flipped_signature_or_signed_byte(kind: str) -> None:
    d = data()
    rec = first(records(d), kind)
    env = rec.envelope
    seat = game().sessions[game().peers[0]].roster.index(env.sender)
    places = [(offset, mask) for offset in (rec.signature_at, rec.signature_at + 31, rec.end - 1)
              for mask in (0x01, 0x80, 0xFF)]
    places += [(rec.signed_end - 1, 0x01), (rec.signed_end - 1, 0x02)]  # the body's last value (a hash byte, a row)
    for offset, mask in places:
        v = verify_transcript(flip(d, offset, mask))
        assert not v.ok and v.record == rec.position, v.report()
        assert v.fault.startswith(f"bad-signature: {kind} #{env.seq} claiming to be from seat {seat} "), v.fault
        assert "peer at fault: no single peer (the transcript itself)" in v.fault


@pytest.mark.parametrize("kind", MSG_KINDS)
def test_flipped_message_shape(kind: str) -> None:
    d = data()
    rec = first(records(d), kind)
    for offset in (rec.payload_at, rec.payload_at + 1):  # the wire's array header, the signed part's bin header
        v = verify_transcript(flip(d, offset, 0x01))
        assert not v.ok and v.record == rec.position, v.report()
        assert v.fault.startswith("malformed: "), v.fault


@pytest.mark.parametrize("kind", [*MSG_KINDS, "seal"])
def test_flipped_record_fields(kind: str) -> None:
    d = data()
    rec = first(records(d), kind)
    k = rec.position
    check(flip(d, rec.link_at), f"record #{k} does not chain to record #{k - 1}", k)
    check(flip(d, rec.link_at + 31, 0xFF), "does not chain", k)
    type_at = rec.link_at + 32 + 1  # after the link comes the type string's header, then its first letter
    check(flip(d, type_at, 0x01), "unknown record type", k)
    check(flip(d, type_at - 1, 0x40), "malformed record", k)
    check(flip(d, rec.start, 0x01), "malformed record", k)  # the record's array header
    # the frame's length
    for byte, mask in ((0, 0x01), (2, 0x01), (3, 0x80)):
        check(flip(d, rec.offset + byte, mask), "malformed transcript: frame at byte", None)


@pytest.mark.parametrize("kind", [*MSG_KINDS, "seal"])
def test_changed_index(kind: str) -> None:
    d = data()
    recs = records(d)
    rec = first(recs, kind)
    k = rec.position
    assert rec.value[0] == k

    def with_index(i: int) -> bytes:
        raws = [r.raw for r in recs]
        raws[k] = encode([i, *rec.value[1:]])
        return build(raws)

    check(with_index(k + 1), f"record #{k} is missing (the next record is #{k + 1})", k)
    check(with_index(k - 1), f"records out of order: #{k - 1} stands where #{k} belongs", k)
    check(with_index(0), "out of order", k)
    check(with_index(k + 1000), "missing", k)


def test_flipped_seal() -> None:
    d = data()
    rec = records(d)[-1]
    assert rec.type == "seal"
    for offset in (rec.payload_at, rec.payload_at + 20, rec.end - 1):
        check(flip(d, offset), "the seal's signature does not verify", rec.position)


def test_flipped_header() -> None:
    d = data()
    header = records(d)[0]
    check(flip(d, header.start + 5), "not a p2pnimmt transcript (bad header)", 0)  # inside the magic
    check(flip(d, header.end - 1), "record #1 does not chain to record #0", 1)  # inside the recorder key
    check(flip(d, header.start), "malformed header", 0)
    check(flip(d, 3), "malformed transcript", None)


def test_start_flipped_anywhere_fails_at_record_1() -> None:
    d = data()
    rec = first(records(d), "START")
    assert rec.position == 1
    for offset in range(rec.payload_at, rec.end, 7):
        v = verify_transcript(flip(d, offset))
        assert not v.ok and v.record == 1, v.report()


def test_start_with_a_bad_signature_is_reported_as_such() -> None:
    """The START's signature is altered: the report should say so, as for any other message.

    verify says instead "message is not the next in its sender's chain (a
    message is missing or out of order)": the session silently holds a
    START that fails its checks as an early message (session.py _ingest),
    so neither a live peer nor verify reports bad-signature for it.
    """
    d = data()
    rec = first(records(d), "START")
    v = verify_transcript(flip(d, rec.end - 1))
    assert not v.ok and v.record == 1
    assert "bad-signature" in v.fault, v.report()


def test_every_record_flipped_somewhere() -> None:
    """A sweep: one flipped byte at several places of every record is always caught, at that record."""
    d = data(peer=3)  # the spectator's transcript
    recs = records(d)
    for rec in recs:
        for offset in sorted({rec.offset + 3, rec.start, rec.start + 1, (rec.start + rec.end) // 2, rec.end - 1}):
            v = verify_transcript(flip(d, offset))
            assert not v.ok, f"record {rec.position} ({rec.kind}) byte {offset} flipped unnoticed"
            if offset < rec.start:
                assert v.record is None and "malformed transcript" in v.fault
            elif rec.position == 0:
                assert v.record in (0, 1)
            else:
                assert v.record == rec.position, (rec.position, rec.kind, offset, v.report())


# ----------------------------------------------------------------- whole records


@pytest.mark.parametrize("kind", ["START", *MSG_KINDS])
def test_dropped_record(kind: str) -> None:
    d = data()
    recs = records(d)
    k = first(recs, kind).position
    check(build(r.raw for r in recs if r.position != k), f"record #{k} is missing (the next record is #{k + 1})", k)


def test_dropped_last_message_seal_and_header() -> None:
    d = data()
    recs = records(d)
    last = len(recs) - 1
    check(build(r.raw for r in recs[:-2] + recs[-1:]), f"record #{last - 1} is missing", last - 1)
    check(build(r.raw for r in recs[:-1]), "the transcript has no seal", None)
    check(build(r.raw for r in recs[1:]), "not a p2pnimmt transcript (bad header)", 0)


@pytest.mark.parametrize("kind", ["START", *MSG_KINDS])
def test_swapped_adjacent_records(kind: str) -> None:
    d = data()
    recs = records(d)
    k = first(recs, kind).position
    raws = [r.raw for r in recs]
    raws[k], raws[k + 1] = raws[k + 1], raws[k]
    check(build(raws), f"records out of order: #{k + 1} stands where #{k} belongs", k)


def test_swapped_seal_and_last_message() -> None:
    d = data()
    raws = [r.raw for r in records(d)]
    raws[-1], raws[-2] = raws[-2], raws[-1]
    k = len(raws) - 2
    check(build(raws), f"records out of order: #{k + 1} stands where #{k} belongs", k)


def test_relinked_transcript_with_a_message_removed() -> None:
    """A forger who rebuilds the whole chain and seals with its own key still cannot hide a missing message."""
    wires = messages(data())
    forger = Identity(bytes([7]) * 32)
    assert verify_transcript(rewrite(wires, forger)).ok  # rewriting alone is fine: the messages are what count
    reveal = next(i for i, w in enumerate(wires) if open_envelope(w).kind == "PLAY_REVEAL")
    v = verify_transcript(rewrite(wires[:reveal] + wires[reveal + 1 :], forger))
    assert not v.ok
    assert "not the next in its sender's chain" in v.fault or "ends before the game" in v.fault, v.report()
    # nor change a result: the signatures are over the bytes
    end = next(i for i, w in enumerate(wires) if open_envelope(w).kind == "ROUND_END")
    env = open_envelope(wires[end])
    changed = wires[end].replace(env.body["state"], bytes(32))
    v = verify_transcript(rewrite(wires[:end] + [changed] + wires[end + 1 :], forger))
    assert not v.ok and "bad-signature: ROUND_END" in v.fault, v.report()


# ----------------------------------------------------------------- cut short, or more


def test_truncated() -> None:
    d = data()
    recs = records(d)
    mid = recs[len(recs) // 2]
    for cut in (1, 3, 5, recs[1].offset + 2, mid.start + 10, len(d) - 1, len(d) - 30):
        check(d[:cut], "cut short", None)
    reveal = first(recs, "PLAY_REVEAL", 40)  # in the second round
    check(d[: reveal.offset], "the transcript ends before the game does (phase turn, round 2", None)
    check(d[: recs[-1].offset], "the transcript has no seal", None)
    check(d[: recs[1].offset], "the transcript ends before the game does (phase lobby", None)
    check(b"", "empty transcript", None)


def test_appended() -> None:
    d = data()
    recs = records(d)
    n = len(recs)
    check(d + b"\x00", "cut short", None)
    check(d + b"\xff\xff\xff\xff", "over the", None)
    check(d + frame(b"\xc1"), "records after the seal", n)
    check(d + frame(encode([n, recs[-1].value[1], "msg", b""])), "records after the seal", n)
    check(d + frame(recs[-2].raw), "records after the seal", n)
    check(d + d, "records after the seal", n)


def test_garbage_and_other_files() -> None:
    check(b"hello, world", "not a p2pnimmt transcript", None)  # text, not a damaged transcript: said so
    check(b"# p2pnimmt\n\n**6 nimmt!** for a local network", "not a p2pnimmt transcript", None)
    check(b"\x00\x00\x00\x08hello!!!", "malformed header", 0)  # a frame that fits, holding no header
    check(frame(encode(["p2pnimmt-transcript", 2, None])), "bad header", 0)
    check(frame(encode({"not": "a list"})), "bad header", 0)
    check(frame(b"\x93\xc1\xc1\xc1"), "malformed header", 0)


def test_a_file_that_is_no_transcript_is_told_by_the_verdict_not_by_its_words() -> None:
    """Verdict.alien says why the bytes are no transcript at all (verify's and replay's status 2, resume's refusal
    before the key): as data, never searched for in the fault's English words; a damaged one has none."""
    assert verify_transcript(b"hello, world" * 8).alien == "it does not begin with a transcript header"
    for damaged in (frame(encode(["p2pnimmt-transcript", 2, None])), b"", b"\x00\x00\x00\x08hello!!!"):
        verdict = verify_transcript(damaged)
        assert not verdict.ok and verdict.alien is None, verdict


# ----------------------------------------------------------------- the command


def run_verify(path: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", "verify", path], capture_output=True, text=True,
                          encoding="utf-8", timeout=60)


def test_cli_honest(tmp_path) -> None:
    path = tmp_path / "game.p2pnimmt"
    path.write_bytes(data())
    proc = run_verify(str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout == verify_transcript(data()).summary + "\n"
    session = game().sessions[game().peers[0]]
    assert winner_line(session) in proc.stdout.splitlines()
    assert "scores: " in proc.stdout


def test_cli_tampered(tmp_path) -> None:
    d = data()
    rec = first(records(d), "PLAY_REVEAL", 2)
    path = tmp_path / "tampered.p2pnimmt"
    path.write_bytes(flip(d, rec.signature_at + 3))
    proc = run_verify(str(path))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"p2pnimmt verify: {path}: FAILED at record {rec.position}: bad-signature: ")
    # a dropped record
    path.write_bytes(build(r.raw for r in records(d) if r.position != rec.position))
    proc = run_verify(str(path))
    assert proc.returncode == 1
    assert f"FAILED at record {rec.position}: record #{rec.position} is missing" in proc.stderr


def test_cli_cut_short_and_empty(tmp_path) -> None:
    path = tmp_path / "short.p2pnimmt"
    path.write_bytes(data()[:1000])
    proc = run_verify(str(path))
    assert proc.returncode == 1 and "FAILED at malformed transcript" in proc.stderr
    path.write_bytes(b"")
    proc = run_verify(str(path))
    assert proc.returncode == 1 and "FAILED at empty transcript" in proc.stderr


def test_cli_missing_file(tmp_path) -> None:
    proc = run_verify(str(tmp_path / "nope.p2pnimmt"))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "cannot read" in proc.stderr and "nope.p2pnimmt" in proc.stderr


def test_cli_directory(tmp_path) -> None:
    proc = run_verify(str(tmp_path))
    assert proc.returncode == 2 and "cannot read" in proc.stderr
