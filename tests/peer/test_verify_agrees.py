"""Both verifiers on transcripts the Python sessions recorded: `node peer.js verify FILE` prints the same lines as
`p2pnimmt verify FILE` (byte for byte, same exit status) for whole games of every deal and variant, with seats
dropped (open, draft and tactical games where the stand-in plays on; sealed games where a shuffler's drop voids
the round and it forfeits), a seat taken back, a seat resumed, every seat's transcript and a spectator's; and on a
tamper sweep (byte flips anywhere, records dropped, swapped, repeated, the file cut or extended) both give the same
verdict: the same record number, the same kind of problem (the fault's code, or the structural reason), the same
peer at fault.

The games are tests/protocol/test_golden.py's (fixed identities and entropy), test_drop.py's cut-offs and
test_take_back.py's seats taken back, test_attacks.py's cheats. The TypeScript session has no drop of several seats
together and no audit before a round's end yet, and says so (exit 4) instead of judging. A game left unfinished:
both say UNFINISHED, with the same lines and status 3.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from nodepeer import BUNDLE, PEER, tool

from p2pnimmt.bots import BOTS
from p2pnimmt.bots.base import SeededBot
from p2pnimmt.engine import Settings
from p2pnimmt.engine.cards import bull_heads
from p2pnimmt.protocol.codec import decode, encode
from p2pnimmt.protocol.transcript import FORMAT, MAGIC, MAX_FILE, MAX_RECORD, SEAL_TAG, frame, frames, link
from p2pnimmt.protocol.verify import verify_transcript

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
from harness import Net  # noqa: E402
from test_arrival_orders import void_round_with_a_second_round_end, void_then_round_end_drop  # noqa: E402
from test_attacks import at, commit_to, equivocate, h, play, someone_elses_card  # noqa: E402
from test_drop import silence_after, vote_out  # noqa: E402
from test_expelled_voter import CHEAT, expelled_voter  # noqa: E402
from test_golden import GAMES as GOLDEN  # noqa: E402
from test_lying_reveal import lying_reveal  # noqa: E402
from test_take_back import comes_back  # noqa: E402

GAMES = {  # name: (players, deal, variant, rounds, bots), seeded as test_golden.py's plain games
    "open-2": (2, "open", "standard", 2, "heuristic"),
    "open-5": (5, "open", "standard", 2, "random"),
    "sealed-2": (2, "sealed", "standard", 2, "heuristic"),
    "sealed-5": (5, "sealed", "standard", 1, "heuristic"),
    "draft-2": (2, "open", "draft", 2, "heuristic"),
    "draft-5": (5, "open", "draft", 1, "heuristic"),
    "tactical-3": (3, "open", "tactical", 2, "heuristic"),
}


DROPS = {  # name: (players, variant, deal, messages the last seat sends before it goes silent)
    "open-drop-reveal-3": (3, "standard", "open", 2),
    "open-drop-turn-4": (4, "standard", "open", 9),
    "draft-drop-pick-4": (4, "draft", "open", 5),
    "sealed-drop-unlock-3": (3, "standard", "sealed", 2),
    "sealed-drop-turn-4": (4, "standard", "sealed", 14),
    "sealed-drop-round2-4": (4, "standard", "sealed", 30),
}


def transcripts(name: str) -> list[bytes]:
    """The transcripts of the game's first seat, last seat and spectator."""
    players, deal, variant, rounds, bots = GAMES[name]
    net = Net(players, settings=Settings(players=players, variant=variant, max_rounds=rounds, point_limit=None,
                                         deal=deal), bots=bots, seed=players * 7 + 1)
    net.start()
    net.run()
    peers = [net.identities[0].peer, net.identities[-1].peer, net.watchers[0].peer]
    return [bytes(net.transcripts[p]) for p in peers]


def dropped_transcripts(name: str) -> list[bytes]:
    """A game whose last seat goes silent (it still hears the others) and is voted out: every seat's transcript
    and the spectator's."""
    players, variant, deal, after = DROPS[name]
    net = Net(players, settings=Settings(players=players, variant=variant, max_rounds=2, point_limit=None,
                                         deal=deal), bots="heuristic", seed=after)
    silence_after(net, players - 1, after)
    net.start()
    net.run()
    for _ in range(3):
        vote_out(net, players - 1)
    return [bytes(net.transcripts[p]) for p in [*(i.peer for i in net.identities), net.watchers[0].peer]]


def node_verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("node"), str(BUNDLE), "verify", str(path)], capture_output=True, text=True,
                          timeout=300)


def python_verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", "verify", str(path)], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_both_verifiers_print_the_same_summary(name: str, tmp_path: Path) -> None:
    for i, data in enumerate(transcripts(name)):
        path = tmp_path / f"{name}-{i}.p2pt"
        path.write_bytes(data)
        ours, theirs = python_verify(path), node_verify(path)
        assert ours.returncode == 0, ours.stderr
        assert (theirs.returncode, theirs.stdout, theirs.stderr) == (0, ours.stdout, ""), theirs.stderr
        assert "verified:" in theirs.stdout


def same_lines(path: Path) -> tuple[int, str, str]:
    """Both verifiers on one file: the same exit status, standard output and standard error; Python's result."""
    ours, theirs = python_verify(path), node_verify(path)
    assert (theirs.returncode, theirs.stdout, theirs.stderr) == (ours.returncode, ours.stdout, ours.stderr), path.name
    return ours.returncode, ours.stdout, ours.stderr


@pytest.mark.parametrize("name", sorted(DROPS))
def test_both_verifiers_agree_on_games_with_a_drop(name: str, tmp_path: Path) -> None:
    results = []
    for i, data in enumerate(dropped_transcripts(name)):
        path = tmp_path / f"{name}-{i}.p2pt"
        path.write_bytes(data)
        results.append(same_lines(path))
    assert all(code == 0 for code, _out, _err in results), [err for _code, _out, err in results]
    assert all("verified:" in out for _code, out, _err in results)


@pytest.mark.parametrize("name", ["open-drop-4", "sealed-drop-4", "open-resumed-4", "sealed-resumed-4"])
def test_both_verifiers_agree_on_the_golden_drop_and_resume_games(name: str, tmp_path: Path) -> None:
    net = GOLDEN[name]()
    for i, peer in enumerate(net.peers):
        path = tmp_path / f"{name}-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        same_lines(path)


@pytest.mark.parametrize("players, deal, seat, cut_at, delivery, delay", [
    (4, "open", 2, 60, 3, 0), (3, "open", 1, 40, 5, 7), (4, "sealed", 2, 60, 3, 0)])
def test_both_verifiers_agree_on_a_seat_taken_back(players: int, deal: str, seat: int, cut_at: int, delivery: int,
                                                   delay: int, tmp_path: Path) -> None:
    """A seat cut off, voted out, asking back with REJOIN and taken back at a round end (section 11.3): in the
    sealed games its drop voided a round and it forfeits."""
    net = comes_back(players, deal, seat, cut_at, delivery, delay)
    assert not net.sessions[net.peers[0]].dropped and net.sessions[net.peers[0]].table.absences  # it was back
    for i, peer in enumerate(net.peers):
        path = tmp_path / f"back-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        code, out, _err = same_lines(path)
        assert code == 0 and "verified:" in out


@pytest.mark.parametrize("cut_at", [92, 93])
def test_both_verifiers_agree_when_two_seats_vote_each_other_out(cut_at: int, tmp_path: Path) -> None:
    """Seats 2 and 3, cut at the first turn's commit of a sealed round, vote each other out there, and the others
    vote out both (the sweep's examples of issue 21 item 3). Seat 3 is back as seat 2 goes (the harness cuts one
    seat at a time): seat 2 is dropped there, which voids the round, and seat 3, whose commit the others hold, is
    kept (KEEP; a seat joins a vote only by its own policy, protocol.md 11.1: until session 27 the seats that came
    to the commit step joined the votes on both on sight, and both were dropped there at once, 11.1 "Active").
    Every node, both verifiers on every transcript: the same."""
    net = void_then_round_end_drop(4, cut_at, 0)
    for i, peer in enumerate(net.peers):
        assert sorted(net.sessions[peer].dropped) == [2]
        path = tmp_path / f"both-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        code, out, _err = same_lines(path)
        assert code == 0 and "round 1: void" in out, out


# (4, 93, 0): seats 2 and 3 are dropped at once at one turn's commit step, voiding the round; the reference named
# seat 2 alone `absent`, the TypeScript session seat 3 alone, so node peer.js verify failed seat 2's transcript at
# record 22 ('the recorded fault 'absent' ... is not one the replay found'): each seat is named (protocol.md 17.9).
# (4, 351, 33415): seat 3's own transcript failed under both verifiers (record 60: the recorded `duplicate` against
# seat 1 'is not one the replay found'): a rebuild for two seats voted out at one step dropped neither (11.1).
@pytest.mark.parametrize("players, cut_at, delivery", [(4, 156, 63944), (5, 180, 64937), (4, 93, 0), (4, 351, 33415)])
def test_both_verifiers_agree_on_a_seat_expelled_in_a_void_round(players: int, cut_at: int, delivery: int,
                                                                   tmp_path: Path) -> None:
    """A seat signs its ROUND_END of a void round twice (expelled, protocol.md 12): it is dropped where the game
    first waits on it, never at the keys of the void round (17.9), and a vote that lacks its DROP is void (11.1).
    Both verifiers, every honest transcript: the same lines, and verified (before the TypeScript session took a
    vote lacking an expelled seat's DROP as void, node peer.js verify said 'the transcript ends before the game
    does' on all of them)."""
    net, cheat = void_round_with_a_second_round_end(players, cut_at, delivery)
    for i, peer in enumerate(net.peers):
        if peer == net.identities[cheat].peer:
            continue
        path = tmp_path / f"expelled-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        code, out, _err = same_lines(path)
        assert code == 0 and "lost its seat" in out, out


# The examples of tests/protocol/test_expelled_voter.py (issue 21): a voter that signs its DROP twice is expelled
# from the second (protocol.md 12). (4, open, 60, 0): a rebuild carried the expulsion in from the START; (5, sealed,
# 200, 7): a void round placed at its keys before it was scored; (5, open, 76, 21001): a node lacking a START_ACK
# aborted for the duplicate where the others expelled.
@pytest.mark.parametrize("players, deal, cut_at, delivery", [(4, "open", 60, 0), (5, "sealed", 200, 7),
                                                              (5, "open", 76, 21001)])
def test_both_verifiers_agree_on_a_voter_expelled_by_its_second_drop(players: int, deal: str, cut_at: int,
                                                                      delivery: int, tmp_path: Path) -> None:
    net = expelled_voter(players, deal, cut_at, delivery)
    for i, peer in enumerate(net.peers):
        if peer == net.identities[CHEAT].peer:
            continue
        path = tmp_path / f"voter-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        code, out, _err = same_lines(path)
        assert code == 0 and "lost its seat" in out, out


@pytest.mark.parametrize("players, deal", [(4, "open"), (5, "sealed"), (3, "draft")])
def test_both_verifiers_agree_on_a_liar_voted_out(players: int, deal: str, tmp_path: Path) -> None:
    """A seat whose reveal names a commit set nobody holds, voted out as an absent seat (protocol.md 11)."""
    liar = players - 2
    net, adv = lying_reveal(players, deal, liar, seed=players)
    vote_out(net, liar)
    net.run()
    for i, peer in enumerate(net.peers):
        if peer == adv.peer:
            continue
        assert net.sessions[peer].phase == "over"
        path = tmp_path / f"liar-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        code, out, _err = same_lines(path)
        assert code == 0 and "verified:" in out, out


def reveal_another_card(adv, env, body) -> None:
    if at(env, "PLAY_REVEAL", turn=2):
        body["card"] = next(c for c in adv.session.game.round.hands[adv.seat] if c != body["card"])
        adv.fired = True


def commit_on_another_state(adv, env, body) -> None:
    if at(env, "PLAY_COMMIT", turn=3):
        body["state"] = h("another table")
        adv.fired = True


def steer_the_seed(adv, env, body) -> None:
    if at(env, "SEED_REVEAL"):
        body["contribution"] = h("a better deck for me")
        adv.fired = True


ATTACKS = {"bad-reveal": reveal_another_card, "state-mismatch": commit_on_another_state,
           "seed-mismatch": steer_the_seed, "not-in-hand": commit_to(3, someone_elses_card),
           "not-in-hand-300": commit_to(3, lambda adv: 300), "equivocation": equivocate(2, False),
           "split-commit": equivocate(2, True), "split-commit-silent": equivocate(2, False)}
# delivered in order: each seat takes the cheat's own version first, so the seats reveal on two commit sets
IN_ORDER = {"split-commit", "split-commit-silent"}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_both_verifiers_agree_on_a_cheat(attack: str, tmp_path: Path) -> None:
    """tests/protocol/test_attacks.py's cheats, re-signed by a seat of four: the honest transcripts verify with the
    cheat expelled (section 12: the fault recorded, the stand-in playing its seat; a split commit too, which the
    summary names) or, for an equivocation whose seats all used one version and the cheat then went silent, are
    valid as far as they go and UNFINISHED (status 3; until session 45 both said FAILED, 'the transcript ends before
    the game does', status 1); the cheat's own transcript fails the same way under both verifiers."""
    net, adv = play(4, 1, ATTACKS[attack], shuffle=attack not in IN_ORDER)
    assert adv.fired
    codes = []
    for i, peer in enumerate(net.peers):
        path = tmp_path / f"{attack}-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        ours, theirs = python_verify(path), node_verify(path)
        assert (theirs.returncode, theirs.stdout) == (ours.returncode, ours.stdout), path.name
        assert category(theirs.stderr.partition("FAILED at ")[2]) == category(ours.stderr.partition("FAILED at ")[2])
        codes.append(ours.returncode)
        if attack in IN_ORDER and net.peers[i] != adv.peer:
            assert "lost its seat for a proven rule break: p1 (equivocation, the stand-in played it from round 1, " \
                   "step 8)" in theirs.stdout, theirs.stdout
    honest = [code for i, code in enumerate(codes) if net.peers[i] != adv.peer]
    assert honest == [3] * len(honest) if attack == "equivocation" else honest == [0] * len(honest), honest


def test_unreadable_and_foreign_files_get_the_same_status_and_words(tmp_path: Path) -> None:
    cases = {"missing": None, "dir": "dir", "empty": b"", "text": b"hello, this is not a transcript\n" * 4,
             "cut": b"\x00\x00\x00\x10abc",
             "huge-frame-magic-near": b"\xff\xff\xff\xff p2pnimmt-transcript" + bytes(64)}  # damaged: exit 1
    for name, content in cases.items():
        path = tmp_path / name
        if content == "dir":
            path.mkdir()
        elif content is not None:
            path.write_bytes(content)
        ours, theirs = python_verify(path), node_verify(path)
        assert (theirs.returncode, theirs.stdout, theirs.stderr) == (ours.returncode, ours.stdout, ours.stderr), name
    usage = subprocess.run([tool("node"), str(BUNDLE), "check"], capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and "usage" in usage.stderr


def category(text: str) -> str:
    """The kind of a verdict's reason: a fault's code, or the structural reason without its detail."""
    return text.split(":")[0].split(" (")[0]


def mutations(data: bytes, rng: random.Random) -> list[bytes]:
    out = []
    for _ in range(40):  # byte flips, anywhere in the file
        flipped = bytearray(data)
        flipped[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        out.append(bytes(flipped))
    records = [raw for _offset, raw in frames(data)]

    def join(parts: list[bytes]) -> bytes:
        return b"".join(frame(r) for r in parts)

    for k in rng.sample(range(1, len(records)), 8):
        out.append(join(records[:k] + records[k + 1 :]))  # a record dropped
        if k + 1 < len(records):
            out.append(join(records[:k] + [records[k + 1], records[k]] + records[k + 2 :]))  # two swapped
        out.append(join(records[: k + 1] + [records[k]] + records[k + 1 :]))  # one repeated
        out.append(join(records[:k]))  # cut after a record
        out.append(data[: rng.randrange(len(data))])  # cut anywhere
    out.append(data + b"\x00")
    out.append(data + frame(b"\x94\x00\xc4\x00\xa3msg\xc4\x00"))
    return out


def typescript_verdicts(compiled: Path, cases: list[bytes], timeout: float = 900) -> list[dict]:
    """The compiled TypeScript verifier's verdict on each case (test/agree.js): ok, record, text, peer."""
    done = subprocess.run([tool("node"), str(compiled / "test" / "agree.js")], cwd=PEER, capture_output=True,
                          text=True, timeout=timeout, input=json.dumps({"verify": [c.hex() for c in cases]}))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["verify"]


def verdicts_differ(cases: list[bytes], theirs: list[dict]) -> tuple[list[str], list[str]]:
    """(each case whose verdict, record, kind of fault and peer differ between the two, each case the TypeScript
    verifier could not judge)."""
    differ, unsupported = [], []
    for case, answer in zip(cases, theirs):
        verdict = verify_transcript(case)
        if answer["unsupported"]:
            unsupported.append(f"{verdict.record} {verdict.fault}: {answer['unsupported']}")
            continue
        mine = (verdict.ok, verdict.record, category(verdict.fault) if not verdict.ok else "",
                verdict.peer.hex() if verdict.peer else None)
        other = (answer["ok"], answer["record"], category(answer["text"]) if not answer["ok"] else "", answer["peer"])
        if mine != other:
            differ.append(f"Python {mine} {verdict.fault[:100]!r}\n  TypeScript {other} {answer['text'][:100]!r}")
    return differ, unsupported


@pytest.mark.parametrize("name", ["draft-2", "open-drop-turn-4"])
def test_tamper_sweep_same_verdicts(name: str, compiled: Path) -> None:
    rng = random.Random(name)
    data = transcripts(name)[0] if name in GAMES else dropped_transcripts(name)[0]
    cases = mutations(data, rng)
    differ, unsupported = verdicts_differ(cases, typescript_verdicts(compiled, cases, timeout=600))
    compared = len(cases) - len(unsupported)
    assert not differ, f"{len(differ)} of {compared} verdicts differ:\n" + "\n".join(differ[:10])
    assert compared >= 0.9 * len(cases), f"only {compared} of {len(cases)} judged; no verdict:\n" + "\n".join(unsupported)


@pytest.mark.parametrize("versions", [2, 40], ids=["split-3", "flood-41"])
def test_both_verifiers_agree_on_a_split_into_many_versions(versions: int, tmp_path: Path) -> None:
    """A seat signs 1 + `versions` versions of one commit (tests/protocol/test_split_flood.py): three at four seats
    is a split commit (honest transcripts verify, the cheat expelled); 41 is more than the seats and fatal (honest
    transcripts end on the equivocation). Both verifiers print the same lines on every transcript."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "protocol"))
    from test_attacks import vote_out_when_stalled
    from test_split_flood import flood

    net, adv = play(4, 1, flood(1, versions), shuffle=False)
    vote_out_when_stalled(net, adv)
    for i, peer in enumerate(net.peers):
        path = tmp_path / f"split-{versions}-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        status, _out, err = same_lines(path)
        if peer != adv.peer:
            assert status == (0 if versions == 2 else 1), err
            assert versions == 2 or "versions of one commit" in err, err


@pytest.mark.parametrize("copies", [1, 40])
def test_a_split_commits_record_repeated_is_refused_by_both_verifiers(copies: int, tmp_path: Path) -> None:
    """protocol.md 13: a split commit's `equivocation` records are not counted by the caps of non-fatal records, but
    a node makes one per version (at most seats - 1 a commit), and one as the seat is expelled: a record the replay
    does not find as often fails there. An honest seat's transcript of a split commit (three versions at four seats)
    with one of its records repeated `copies` times, relinked and resealed with the recorder's key: both verifiers
    fail at the first copy with the same words, naming the recorder. Before (session 32), both verified it: a
    forger holding a key could grow its transcript without bound."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "protocol"))
    from test_attacks import vote_out_when_stalled
    from test_split_flood import flood

    net, adv = play(4, 1, flood(1, 2), shuffle=False)
    vote_out_when_stalled(net, adv)
    recorder = next(i for i in net.identities if i.peer != adv.peer)
    records = [(raw[2], raw[3]) for raw in (decode(r, MAX_RECORD) for _o, r in
                                            list(frames(bytes(net.transcripts[recorder.peer])))[1:])
               if raw[2] != "seal"]
    splits = [i for i, (kind, payload) in enumerate(records) if kind == "fault" and payload["code"] == "equivocation"]
    # two versions not held, then the seat expelled at the turn's reveals: each a fault the replay finds itself
    assert len(splits) == 3 and not any(records[i][1]["fatal"] for i in splits), splits
    honest = tmp_path / "honest.p2pt"
    honest.write_bytes(resealed(recorder, records))
    assert same_lines(honest)[0] == 0
    at = splits[0] + 1
    path = tmp_path / f"repeated-{copies}.p2pt"
    path.write_bytes(resealed(recorder, records[:at] + [records[at - 1]] * copies + records[at:]))
    status, _out, err = same_lines(path)
    assert status == 1, err
    assert f"FAILED at record {at + 1}: the recorded fault 'equivocation' against seat {net.peers.index(adv.peer)} " \
           in err and "is recorded more often than the replay found it (a node records a split commit's proof once " \
           "per version)" in err, err


@pytest.mark.parametrize("players, turn", [(3, 0), (5, 2)])
def test_both_verifiers_agree_on_a_reveal_before_the_version_it_names(players: int, turn: int,
                                                                       tmp_path: Path) -> None:
    """tests/protocol/test_split_wait.py: seat 1 holds seat 2's reveal on version B of a split commit before B
    itself. Nobody honest is named (protocol.md 11, "A reveal naming another commit set"): every honest transcript
    verifies under both verifiers, with the same lines."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "protocol"))
    from test_split_wait import split_and_hold

    net, adv, waited = split_and_hold(players, turn, 0)
    assert waited
    for i, peer in enumerate(net.peers):
        if peer == adv.peer:
            continue
        path = tmp_path / f"wait-{i}.p2pt"
        path.write_bytes(bytes(net.transcripts[peer]))
        status, out, err = same_lines(path)
        assert status == 0 and "verified:" in out, err


def resealed(recorder, records: list, head: list | None = None, index=lambda i: i) -> bytes:
    """A transcript of `records` ((type, payload) each) linked and sealed with `recorder`'s own key, as a forger who
    holds it makes one: every link and the seal verify."""
    header = encode(head or [MAGIC, FORMAT, recorder.public_key])
    out, last = [header], link(header)
    for i, (kind, payload) in enumerate([*records, ("seal", None)], start=1):
        if kind == "seal":
            payload = recorder.sign(SEAL_TAG + last)
        raw = encode([index(i), last, kind, payload])
        out.append(raw)
        last = link(raw)
    return b"".join(frame(r) for r in out)


@cache
def crafted_records() -> dict[str, bytes]:
    """Transcripts a forger relinks and reseals with the recorder's own key (so every link and the seal verify), each
    with one record crafted where section 13's types are strict: the header's format, a fault record's code and keys,
    an index past 2^53 (session 32, redteam10)."""
    net = Net(2, settings=Settings(players=2, variant="standard", max_rounds=1, point_limit=None, deal="open"),
              bots="heuristic", seed=15)
    net.start()
    net.run()
    recorder = net.identities[0]
    wires = [raw for raw in (decode(r, MAX_RECORD) for _o, r in list(frames(bytes(net.transcripts[recorder.peer])))[1:])
             if raw[2] == "msg"]

    def relinked(records: list, head: list | None = None, index=lambda i: i) -> bytes:
        return resealed(recorder, records, head, index)

    msgs = [("msg", r[3]) for r in wires]

    def fault(**fields) -> list:
        payload = {"peer": None, "code": "malformed", "detail": "", "fatal": False, "evidence": []} | fields
        return [*msgs[:4], ("fault", payload), *msgs[4:]]

    return {
        "honest": relinked(msgs),
        "format-true": relinked(msgs, [MAGIC, True, recorder.public_key]),  # Python took true == 1 and verified it
        "format-float": relinked(msgs, [MAGIC, 1.0, recorder.public_key]),
        "code-list": relinked(fault(code=[])),  # Python: a traceback (unhashable type: 'list')
        "code-map": relinked(fault(code={})),
        "code-bin": relinked(fault(code=b"ab")),  # TypeScript said "97,98 is no fault code", Python "b'ab' ..."
        "code-nil": relinked(fault(code=None)),
        "code-bool": relinked(fault(code=True)),
        "code-float": relinked(fault(code=1.5)),
        "code-int": relinked(fault(code=5)),
        "code-long": relinked(fault(code="it's \"x\"" + "é" * 40)),
        "keys-escaped": relinked(
            [*msgs[:4], ("fault", {"peer": None, "code": "malformed", "detail": "", "fatal": False,
                                   "a'b\"\n\x00": 1, "\uffff": 2, "\U0001F600": 3}), *msgs[4:]]),
        "index-2^63": relinked(msgs, index=lambda i: 2**63 if i == 3 else i),  # TypeScript: #9223372036854776000
    }


@pytest.mark.parametrize("name", ["honest", "format-true", "format-float", "code-list", "code-map", "code-bin",
                                  "code-nil", "code-bool", "code-float", "code-int", "code-long", "keys-escaped",
                                  "index-2^63"])
def test_crafted_records_get_the_same_words_and_no_traceback(name: str, tmp_path: Path) -> None:
    """Each crafted transcript: the same exit status and lines from both verifiers, a verdict (never a traceback), and
    nothing but the honest one verifies. Before (session 32), a header's format true or 1.0 verified under Python and
    not under TypeScript, a fault record's code that is a list or a map made `p2pnimmt verify` print a traceback, and
    the TypeScript verifier's words differed for a code that is no text, for odd keys and for an index past 2^53."""
    path = tmp_path / f"{name}.p2pt"
    path.write_bytes(crafted_records()[name])
    status, out, err = same_lines(path)
    assert "Traceback" not in err
    if name == "honest":
        assert status == 0 and "verified:" in out, err
        return
    assert status == 1, (out, err)
    expected = {"format": "FAILED at record 0: not a p2pnimmt transcript (bad header)",
                "code": "FAILED at record 5: malformed fault record: ",
                "keys": "FAILED at record 5: malformed fault record: its keys are ['a\\'b\"\\n\\x00', 'code', 'detail', "
                        "'fatal', 'peer', '\\uffff', '\U0001F600'], not ['code', 'detail', 'evidence', 'fatal', 'peer']",
                "index": "FAILED at record 3: record #3 is missing (the next record is #9223372036854775808)"}
    assert expected[name.split("-")[0]] in err, err
    if name.startswith("code-") and name not in ("code-long", "code-int"):
        assert err.rstrip().endswith("its code is not a text"), err


def test_a_file_past_256_mib_is_not_read_for_ever(tmp_path: Path) -> None:
    """A file over transcript.MAX_FILE (a sparse one: no disk taken) gets exit 2 and the same words from both
    verifiers, `replay` says the same; /dev/zero is answered so too (session 32, redteam10: before, both read
    /dev/zero until the memory ran out, Python ending in a MemoryError traceback)."""
    big = tmp_path / "disk.img"
    with open(big, "wb") as f:
        f.truncate(MAX_FILE + 1)
    for path in (big, Path("/dev/zero")):
        ours, theirs = python_verify(path), node_verify(path)
        assert (theirs.returncode, theirs.stdout, theirs.stderr) == (ours.returncode, ours.stdout, ours.stderr)
        assert ours.returncode == 2 and ours.stderr == (f"p2pnimmt verify: cannot read {path}: larger than 256 MiB, "
                                                        "which no game's transcript is\n"), ours.stderr
    replay = subprocess.run([sys.executable, "-m", "p2pnimmt", "replay", str(big)], capture_output=True, text=True,
                            timeout=300)
    assert replay.returncode == 1 and "larger than 256 MiB" in replay.stderr and "Traceback" not in replay.stderr


class LowestCard(SeededBot):
    """Legal and degenerate: always its lowest card, the row with the most bull heads whenever it must take one, the
    lowest open card in a draft (session 32, redteam10)."""

    name = "lowest"

    def choose_card(self, view) -> int:
        return min(view.hand)

    def choose_row(self, view, plays) -> int:
        return max(range(len(view.rows)), key=lambda r: (sum(bull_heads(c) for c in view.rows[r]), r))

    def choose_pick(self, view) -> int:
        return min(view.open_cards)


class HighestCard(LowestCard):
    """Always its highest card, the last row, the highest open card."""

    name = "highest"

    def choose_card(self, view) -> int:
        return max(view.hand)

    def choose_row(self, view, plays) -> int:
        return len(view.rows) - 1

    def choose_pick(self, view) -> int:
        return max(view.open_cards)


@pytest.mark.parametrize("variant, deal, players, limit, rounds", [
    ("tactical", "sealed", 10, 1, 3),  # every seat past the limit in round 1
    ("standard", "open", 2, 1, None),
    ("draft", "open", 5, 8, 3),
    ("standard", "sealed", 4, None, 2),
])
def test_degenerate_play_ends_by_the_rulebook_and_both_verifiers_agree(variant: str, deal: str, players: int,
                                                                       limit: int | None, rounds: int | None,
                                                                       tmp_path: Path, monkeypatch) -> None:
    """Seats that play their lowest (or highest) card always and take the worst row: the game ends after the round in
    which someone reaches the limit (several at once included) or after its rounds, every seat with the fewest points
    wins (rulebook, "End of the Game"), and both verifiers print the same summary. Session 32's red team ran 312 such
    tables (2, 5 and 10 seats, every variant and deal, limits 1 and 8, 1 and 3 rounds): all held."""
    monkeypatch.setitem(BOTS, "lowest", LowestCard)
    monkeypatch.setitem(BOTS, "highest", HighestCard)
    net = Net(players, settings=Settings(players=players, variant=variant, deal=deal, point_limit=limit,
                                         max_rounds=rounds), bots=[("lowest", "highest")[i % 2] for i in range(players)],
              seed=players * 31)
    net.start()
    net.run()
    session = net.sessions[net.peers[0]]
    assert session.phase == "over", session.fault
    game = session.game
    totals = [0] * players
    for r, taken in enumerate(game.history):
        totals = [a + b for a, b in zip(totals, taken)]
        last = r == len(game.history) - 1
        reached = limit is not None and max(totals) >= limit
        assert reached == (last and reached), f"played on after round {r + 1}, where someone had {max(totals)}"
        assert last or rounds is None or r + 1 < rounds
    assert (limit is not None and max(totals) >= limit) or len(game.history) == rounds
    assert list(session.result.winners) == [i for i, x in enumerate(totals) if x == min(totals)]
    path = tmp_path / "degenerate.p2pt"
    path.write_bytes(bytes(net.transcripts[net.peers[-1]]))
    status, out, err = same_lines(path)
    assert status == 0 and "verified:" in out, err


@cache
def not_canonical_records() -> dict[str, bytes]:
    """Transcripts a forger holding the recorder's key relinks and reseals (every link and the seal verify), each
    with one record, or the message in one, written in a form that is not canonical (section 7, since session 39):
    the header's magic in a str 8, a record's index as a uint 16, its link in a bin 16, a fault record's map as a
    map 16, a `msg` record whose message has its signed part in a bin 32 (the outer array: no signature covers it),
    and one whose message bytes are in a bin 32 in the record."""
    net = Net(2, settings=Settings(players=2, variant="standard", max_rounds=1, point_limit=None, deal="open"),
              bots="heuristic", seed=15)
    net.start()
    net.run()
    recorder = net.identities[0]
    wires = [r[3] for r in (decode(raw, MAX_RECORD) for _o, raw in list(frames(bytes(net.transcripts[recorder.peer])))[1:])
             if r[2] == "msg"]

    def sealed(records: list, head: bytes | None = None) -> bytes:
        """`records`: (type, payload) each, or a function of (index, link) giving a record's bytes."""
        header = head or encode([MAGIC, FORMAT, recorder.public_key])
        out, last = [header], link(header)
        for i, record in enumerate([*records, ("seal", None)], start=1):
            if callable(record):
                raw = record(i, last)
            else:
                kind, payload = record
                raw = encode([i, last, kind, recorder.sign(SEAL_TAG + last) if kind == "seal" else payload])
            out.append(raw)
            last = link(raw)
        return b"".join(frame(r) for r in out)

    msgs = [("msg", w) for w in wires]
    fault = encode({"peer": None, "code": "malformed", "detail": "", "fatal": False, "evidence": []})
    signed, signature = decode(wires[3])
    return {
        "header-str8": sealed(msgs, b"\x93\xd9\x13" + MAGIC.encode() + encode(FORMAT) + encode(recorder.public_key)),
        "index-uint16": sealed([*msgs[:2], lambda i, last: b"\x94\xcd" + i.to_bytes(2, "big") + encode(last)
                                + encode("msg") + encode(wires[2]), *msgs[3:]]),
        "link-bin16": sealed([*msgs[:2], lambda i, last: b"\x94" + encode(i) + b"\xc5\x00\x20" + last
                              + encode("msg") + encode(wires[2]), *msgs[3:]]),
        "fault-map16": sealed([*msgs[:4], lambda i, last: b"\x94" + encode(i) + encode(last) + encode("fault")
                               + b"\xde\x00\x05" + fault[1:], *msgs[4:]]),
        "message-bin32": sealed([*msgs[:3], ("msg", b"\x92\xc6" + len(signed).to_bytes(4, "big") + signed
                                             + encode(signature)), *msgs[4:]]),
        "payload-bin32": sealed([*msgs[:3], lambda i, last: b"\x94" + encode(i) + encode(last) + encode("msg")
                                 + b"\xc6" + len(wires[3]).to_bytes(4, "big") + wires[3], *msgs[4:]]),
    }


@pytest.mark.parametrize("name", ["header-str8", "index-uint16", "link-bin16", "fault-map16", "message-bin32",
                                  "payload-bin32"])
def test_a_record_not_in_its_canonical_form_fails_alike_in_both_verifiers(name: str, tmp_path: Path) -> None:
    """Each transcript with a record (or the message in one) not in its canonical form: both verifiers print the same
    lines and exit status, and fail it there (before session 39 both took every form, and verified each of these)."""
    path = tmp_path / f"{name}.p2pt"
    path.write_bytes(not_canonical_records()[name])
    status, out, err = same_lines(path)
    assert status == 1 and "Traceback" not in err, (out, err)
    expected = {
        "header-str8": "FAILED at record 0: malformed header: not canonical msgpack: str 8 at byte 1, where fixstr is "
                       "canonical",
        "index-uint16": "FAILED at record 3: malformed record: not canonical msgpack: uint 16 at byte 1, where positive "
                        "fixint is canonical",
        "link-bin16": "FAILED at record 3: malformed record: not canonical msgpack: bin 16 at byte 2, where bin 8 is "
                      "canonical",
        "fault-map16": "FAILED at record 5: malformed record: not canonical msgpack: map 16 at byte 42, where fixmap is "
                       "canonical",
        "message-bin32": "FAILED at record 4: malformed: bytes from an unknown peer: not canonical msgpack: bin 32 at "
                         "byte 1, where bin 8 is canonical; peer at fault: no single peer (the transcript itself)",
        "payload-bin32": "FAILED at record 4: malformed record: not canonical msgpack: bin 32 at byte 40, where bin 8 "
                         "is canonical",
    }
    assert expected[name] in err, err


def cut_short(players: int, deal: str, limit: int, names: list[str] | None = None) -> bytes:
    """A seeded game of `players` (named `names`, else p0, p1, ...) delivered `limit` messages and left there: its
    first seat's transcript."""
    net = Net(players, settings=Settings(players=players, max_rounds=2, point_limit=None, deal=deal),
              bots="heuristic", seed=9)
    if names is None:
        net.start()
    else:
        host = net.identities[0]
        roster = [(i.public_key, name, True) for i, name in zip(net.identities, names)]
        net.handle(host.peer, net.sessions[host.peer].host(net.salt, net.settings, roster))
    net.run(limit=limit)
    return bytes(net.transcripts[net.identities[0].peer])


NAMED = ["ann", "zoë o'neil", "b\u00e9\u0301\u0301\u0301"]  # names as a player may choose them, marks and all


@pytest.mark.parametrize("players, deal, limit, names, stops", [
    (3, "open", 400, None, "round 1, turn 10, waiting for p2\n"),  # test_verify_unfinished.py's game left mid-turn
    (3, "open", 400, NAMED, "round 1, turn 10, waiting for b\u00e9\u0301\u0301\u0301\n"),
    (4, "sealed", 150, None, "the game was not finished: it stops in round 1"),
    (3, "open", 0, NAMED, "the game never started: it stops before its first deal, waiting for zoë o'neil, b\u00e9"),
])
def test_both_verifiers_say_unfinished_alike(players: int, deal: str, limit: int, names: list[str] | None, stops: str,
                                             tmp_path: Path) -> None:
    """A valid transcript of a game left mid-way, or of a START no seat acknowledged: both verifiers say UNFINISHED on
    standard output with the same lines (where it stops, whom it waits on, the replay hint) and exit status 3 (before
    session 45 node peer.js verify said 'FAILED at the transcript ends before the game does' with status 1)."""
    path = tmp_path / "it's left.p2pt"  # a name the replay hint quotes
    path.write_bytes(cut_short(players, deal, limit, names))
    status, out, err = same_lines(path)
    assert status == 3 and err == "" and "UNFINISHED: the transcript is valid as far as it goes (" in out, (out, err)
    assert stops in out, out


def test_both_verifiers_say_unfinished_of_a_lobby_alike(tmp_path: Path) -> None:
    """A transcript with its header and no message (a lobby closed before any START): UNFINISHED, 'it stops in its
    lobby', status 3, from both."""
    path = tmp_path / "lobby.p2pt"
    path.write_bytes(frame(encode([MAGIC, FORMAT, None])))
    status, out, _err = same_lines(path)
    assert status == 3 and "the game never started: it stops in its lobby" in out, out
