"""The differential fuzzer (issue 25: both verifiers give the same verdict, record, words and peer on any transcript,
tampered ones included, and since session 37 the same whole report: every fault their replays found on the way, in
order, with its record, code, peer, detail and fatality, and the scores reached): tests/peer/difffuzz.py's
structural mutations of whole games, every message re-signed with its seat's key and every file resealed with its
recorder's, so each case reaches the check it is about rather than failing at a broken link or signature.
Hypothesis draws the mutations (a bounded, derandomized number of examples: the default run's are the long sweep's
first ones) and shrinks a disagreement to its fewest changes; benchmarks/diff_fuzz.py runs many more. Each disagreement found is kept below as a minimal case, judged by both
verifiers in process and by both command lines (docs/development.md, "The differential fuzzer").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from difffuzz import (
    GAMES,
    MUTATIONS,
    QUICK,
    Edit,
    Record,
    TypeScript,
    base_game,
    body_case,
    codec_case,
    difference,
    edits_of,
    envelope_case,
    game_started,
    layer_difference,
    plain,
    python_answer,
    resigned,
    seats_of,
    settled,
    written,
)
from hypothesis import HealthCheck, given, settings, strategies as st
from nodepeer import tool
from sweep import SWEEP, examples
from test_verify_agrees import same_lines

from p2pnimmt.protocol.identity import peer_id


class Drawn:
    """A mutation's choices drawn from hypothesis's data (so it shrinks them)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def choice(self, items: list[Any]) -> Any:
        return items[self.data.draw(st.integers(0, len(items) - 1))]

    def below(self, n: int) -> int:
        return self.data.draw(st.integers(0, n - 1))


@pytest.fixture(scope="module")
def typescript(compiled: Path) -> Iterator[TypeScript]:
    probe = TypeScript(tool("node"), compiled)
    yield probe
    probe.close()


FUZZ = settings(max_examples=examples(30, 400), deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))
DRAWN = sorted(GAMES) if SWEEP else QUICK  # every game in the long sweeps (and benchmarks/diff_fuzz.py)


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_both_verifiers_agree_on_mutated_games(mutation: str, typescript: TypeScript) -> None:
    @FUZZ
    @given(st.data())
    def agree(data: st.DataObject) -> None:
        draws = Drawn(data)
        name = draws.choice(DRAWN)
        case = MUTATIONS[mutation](base_game(name), draws)
        problem = difference(case, typescript.answer(case))
        assert not problem, f"{name}, {mutation}:\n  {problem}"

    agree()


@pytest.mark.parametrize("layer", ["c", "e", "b"], ids=["codec", "envelope", "body"])
def test_both_decoders_and_envelope_readers_agree(layer: str, typescript: TypeScript) -> None:
    """Section 7's decoder ("c": values at every limit, written in their shortest forms or wider ones, perhaps
    damaged), section 8's envelope reader ("e": the games' messages with a field, the body, the signed part or
    the wire changed) and section 9's body check ("b": the games' bodies changed, under their kind or another):
    both take the same bytes, to the same value, or refuse them in the same words."""
    @FUZZ
    @given(st.data())
    def agree(data: st.DataObject) -> None:
        draws = Drawn(data)
        case = {"c": codec_case, "e": envelope_case, "b": body_case}[layer](draws)
        problem = layer_difference(layer, case, typescript)
        assert not problem, problem

    agree()


def test_the_games_verify_as_written_again(typescript: TypeScript) -> None:
    """The fuzzer's writer is faithful: every game taken apart and written again (relinked, resealed) verifies under
    both, so a case's verdict is its mutation's."""
    for name in DRAWN:
        case = written(base_game(name).recorder, plain(base_game(name)))
        assert python_answer(case)["ok"], name
        assert not difference(case, typescript.answer(case)), name


# ------------------------------------------------------------------ the disagreements found, each its minimal case


def with_fault(name: str, payload: Any, at: int = 4) -> bytes:
    """Game `name`'s transcript with a fault record of `payload` inserted before record `at` + 1, resealed."""
    game = base_game(name)
    records = plain(game)
    records.insert(at, Record("fault", payload))
    return written(game.recorder, records)


def with_type(text: str) -> bytes:
    """A transcript whose first record has the type `text` (no type of section 13: its words quote it)."""
    game = base_game("open-3")
    return written(game.recorder, [Record(text, b"")])


def game_end_for_a_reveal() -> bytes:
    """The sealed 2-seat game in which the host signs its GAME_END's kind and body in place of its first PLAY_REVEAL
    (same seq and prev), its later messages chained on, re-signed: it is expelled there, its drop voids the round,
    and the other seat's ROUND_END (its scores, not the void round's) expels that one too at the round's end."""
    game = base_game("sealed-2")
    records = plain(game)
    host = next(m.sender for m in game.messages.values() if m.kind == "START")
    at = min(p for p, m in game.messages.items() if m.kind == "PLAY_REVEAL" and m.sender == host)
    end = next(m for m in game.messages.values() if m.kind == "GAME_END" and m.sender == host)
    fields = [*game.messages[at].fields]
    fields[5], fields[6] = "GAME_END", end.fields[6]
    resigned(game, records, at, fields)
    return written(game.recorder, records)


FOUND = {  # name: (the case, the start of both verifiers' standard error)
    # 1 (session 36): an unknown code and evidence that is no array of bin. Python named the code, TypeScript the
    # evidence: it checked the code against section 12 after the other fields (protocol.md 13 now gives the order).
    "unknown-code-and-bad-evidence": (
        with_fault("open-3", {"peer": None, "code": "nope", "detail": "", "fatal": False, "evidence": [1]}),
        "FAILED at record 5: malformed fault record: 'nope' is no fault code"),
    # 2: an unknown code of emoji, quoted cut to 40 characters: TypeScript cut 40 UTF-16 units, ending on half a pair
    "unknown-code-of-emoji": (
        with_fault("open-3", {"peer": None, "code": "\U0001F600" * 45, "detail": "", "fatal": False, "evidence": []}),
        "FAILED at record 5: malformed fault record: '" + "\U0001F600" * 39 + " is no fault code"),
    # 3: a text quoted as Python's repr writes it: U+034F (and the other 267 printable code points no name may hold)
    # TypeScript escaped, taking the names' rule for printable (protocol.md 13, "The words of the report")
    "repr-of-an-ignorable": (with_type("a\u034f"), "FAILED at record 1: unknown record type 'a\u034f'"),
    # 4: the command line prints its report made neutral: Python escaped a fourth combining mark in a row, TypeScript
    # printed the report raw
    "four-marks-in-a-row": (with_type("a" + "\u0300" * 4),
                            "FAILED at record 1: unknown record type 'a" + "\u0300" * 3 + "\\u0300'"),
}


def verified_alike(case: bytes, typescript: TypeScript, tmp_path: Path, name: str) -> tuple[int, str, str]:
    """The two sessions agree on `case` (difffuzz's difference), and so do both verifiers' command lines on it as
    the file NAME.p2pt (status, output and errors): Python's result."""
    assert not difference(case, typescript.answer(case))
    path = tmp_path / f"{name}.p2pt"
    path.write_bytes(case)
    return same_lines(path)


def test_an_expulsion_at_a_void_rounds_end_is_judged(typescript: TypeScript, tmp_path: Path) -> None:
    """5 (session 36): a drop that voids the round checks the ROUND_ENDs already in, and one expels its signer
    (result-mismatch): the TypeScript session let that expulsion escape its loop, so `node peer.js verify` threw
    (exit 1, a stack trace) where `p2pnimmt verify` verifies the game."""
    case = game_end_for_a_reveal()
    status, out, err = verified_alike(case, typescript, tmp_path, "void-round-end")
    assert status == 0, err
    assert "round 1: void, nobody scores it" in out and "(result-mismatch, the stand-in played it from round 1, " \
        "step 32)" in out, out


def two_expelled_at_the_seed() -> bytes:
    """The open 3-seat game in which seat 0 signs its first PLAY_REVEAL's kind and body in place of its SEED_COMMIT
    (so the game waits on it at round 1's step 0, and its real PLAY_REVEAL later is a `duplicate`) and seat 2 its
    SEED_REVEAL for round 2 (so its PLAY_COMMIT for round 1 is `unexpected`), each seat's later messages chained on,
    re-signed: both are expelled while the game waits at step 0 on seat 0 alone."""
    game = base_game("open-3")
    records = plain(game)
    start = next(m for m in game.messages.values() if m.kind == "START")
    first, third = (peer_id(start.fields[6]["roster"][seat]["key"]) for seat in (0, 2))
    at = min(p for p, m in game.messages.items() if m.kind == "SEED_COMMIT" and m.sender == first)
    reveal = min((m for m in game.messages.values() if m.kind == "PLAY_REVEAL" and m.sender == first),
                 key=lambda m: m.fields[3])
    fields = [*game.messages[at].fields]
    fields[5], fields[6] = "PLAY_REVEAL", reveal.fields[6]
    resigned(game, records, at, fields)
    at = min(p for p, m in game.messages.items() if m.kind == "SEED_REVEAL" and m.sender == third)
    fields = [*game.messages[at].fields]
    fields[6] = {**fields[6], "round": 1}
    resigned(game, records, at, fields)
    return written(game.recorder, records)


def test_two_expelled_seats_are_dropped_where_the_game_first_waits_on_each(typescript: TypeScript,
                                                                            tmp_path: Path) -> None:
    """6 (session 37, the first disagreement the whole report showed: 20,000 cases, seed 404498, tactical-3, twist;
    the verdict, the words of the first line and every fault agreed, the summary's step did not): two expelled seats
    waited on at one pass, the first's drop completing the step. The reference dropped both at that step (its
    count_votes asked each seat whether the game waited on it after the other's drop, but dropped it at the step
    taken before); the TypeScript peer dropped the second where the game then first waits on it, as protocol.md 12
    says (`at the first step the game then waits on it`): round 1, step 1, its SEED_REVEAL, since its SEED_COMMIT
    was in."""
    case = two_expelled_at_the_seed()
    status, out, err = verified_alike(case, typescript, tmp_path, "two-expelled")
    assert status == 0, err
    assert "lost its seat for a proven rule break: p0 (duplicate, the stand-in played it from round 1, step 0)\n" \
        "lost its seat for a proven rule break: p1 (state-mismatch, the stand-in played it from round 1, step 2)\n" \
        "lost its seat for a proven rule break: p2 (unexpected, the stand-in played it from round 1, step 1)" in out, out


@pytest.mark.parametrize("name", sorted(FOUND))
def test_each_disagreement_found_is_settled(name: str, typescript: TypeScript, tmp_path: Path) -> None:
    case, expected = FOUND[name]
    status, _out, err = verified_alike(case, typescript, tmp_path, name)
    assert status == 1, err
    assert err.partition(".p2pt: ")[2].startswith(expected), err


def test_every_code_point_is_quoted_alike(typescript: TypeScript) -> None:
    """Every code point (surrogates aside) in a record's type, 250 to a transcript: both verifiers quote it alike
    (Python's repr: the 268 printable code points no name may hold were the disagreement 3 above)."""
    points = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
    differ = []
    for i in range(0, len(points), 250):
        case = with_type("".join(map(chr, points[i:i + 250])))
        if difference(case, typescript.answer(case)):
            differ.append(f"U+{points[i]:04X}..U+{points[min(i + 249, len(points) - 1)]:04X}")
    assert not differ, differ


def test_typescripts_printable_table_is_the_references() -> None:
    """web/peer/src/name_ranges.ts's PRINTABLE_BEYOND_NAMES (what names.ts's isPrintable and pyRepr read beyond the
    names' table) is p2pnimmt/protocol/name_ranges.py's, the one table protocol.md 13 pins."""
    import re

    from nodepeer import PEER

    from p2pnimmt.protocol.name_ranges import PRINTABLE_BEYOND_NAMES

    found = re.search(r"PRINTABLE_BEYOND_NAMES[^=]*= (\[.*?\]);\n", (PEER / "src" / "name_ranges.ts").read_text())
    assert found, "web/peer/src/name_ranges.ts has no PRINTABLE_BEYOND_NAMES of the form this reader knows"
    theirs = json.loads(re.sub(r"0x[0-9a-f]+", lambda m: str(int(m[0], 16)), found[1]))
    assert [tuple(r) for r in theirs] == list(PRINTABLE_BEYOND_NAMES)


def test_the_printable_table_is_unicode_14s() -> None:
    """The pinned table (protocol/printable.py: a code point a name may hold, or one of PRINTABLE_BEYOND_NAMES) is
    exactly Unicode 14.0.0's printable code points, each a combining mark where its category is M: where Python 3.11
    runs (Unicode 14.0.0), against its unicodedata; on any Python, against the digest protocol.md quotes (vector
    `printable`: SHA-256 of one byte a code point, 0..U+10FFFF: 0 not printable, 1 printable, 3 a printable mark)."""
    import hashlib
    import unicodedata

    from p2pnimmt.protocol.name_ranges import PRINTABLE_DIGEST, UNICODE_VERSION
    from p2pnimmt.protocol.printable import is_printable, is_printable_mark

    table = bytes(is_printable(cp) + 2 * is_printable_mark(cp) for cp in range(0x110000))
    assert hashlib.sha256(table).hexdigest() == PRINTABLE_DIGEST
    if unicodedata.unidata_version != UNICODE_VERSION:
        pytest.skip(f"this Python's Unicode is {unicodedata.unidata_version}: the digest above is all it can check")
    ours = {cp for cp in range(0x110000) if is_printable(cp)}
    assert ours == {cp for cp in range(0x110000) if chr(cp).isprintable()}
    assert {cp for cp in ours if is_printable_mark(cp)} == {
        cp for cp in ours if unicodedata.category(chr(cp)).startswith("M")}


def test_the_words_are_python_311s_repr_on_any_python() -> None:
    """Every code point (surrogates included) and the values a body may hold: text_repr and value_repr write them as
    Python 3.11's repr does (the words of the report on 3.11 are as they were; on a later Python they still are), and
    neutral keeps what 3.11's str.isprintable keeps."""
    import unicodedata

    from p2pnimmt.neutral import neutral
    from p2pnimmt.protocol.name_ranges import UNICODE_VERSION
    from p2pnimmt.protocol.printable import text_repr, value_repr

    if unicodedata.unidata_version != UNICODE_VERSION:
        pytest.skip(f"this Python's repr is Unicode {unicodedata.unidata_version}'s, not {UNICODE_VERSION}'s")
    points = [chr(cp) for cp in range(0x110000)]
    for i in range(0, len(points), 1000):
        text = "".join(points[i:i + 1000])
        assert text_repr(text) == repr(text), f"U+{i:04X}.."
    for text in ["a'b", 'a"b', "a'\"b", "\\", "\n\t\r\x00\x7f", "", "é\u0378\u034f\u2800\U000e0100"]:
        assert text_repr(text) == repr(text)
    value = [1, "é\u0378", {"a\x00": [b"\xff", None, True, 1.5, -0.0, float("nan")]}, (1,), ("x", "y"), [], {}]
    assert value_repr(value) == repr(value)
    def neutral_as_it_was(text: str) -> str:  # p2pnimmt/neutral.py until session 37: this Python's own table
        out, marks = [], 0
        for ch in text:
            escaped = f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 \
                else f"\\U{ord(ch):08x}"
            if not ch.isprintable():
                out.append(escaped)
                marks = 0
            elif unicodedata.category(ch).startswith("M"):
                marks += 1
                out.append(ch if marks <= 3 else escaped)
            else:
                marks = 0
                out.append(ch)
        return "".join(out)

    for i in range(0, len(points), 1000):
        text = "".join(points[i:i + 1000])
        assert neutral(text) == neutral_as_it_was(text), f"U+{i:04X}.."
    marks = "a" + "".join(chr(cp) for cp in range(0x110000) if unicodedata.category(chr(cp)).startswith("M"))
    assert neutral(marks) == neutral_as_it_was(marks)


# ------------------------------------------------------------------ session 39's disagreements


def every_seat_expelled() -> bytes:
    """A sealed 2-seat game of 2 rounds in which each seat signs its first PLAY_COMMIT for round 2 (skipping ahead,
    `unexpected`), every chain after re-signed: both are expelled in round 1, which one's drop after its shuffle
    makes void, so round 2 has no shuffling seat (protocol.md 17.5, k = 0) and the stand-in plays both seats."""
    game = game_started("sealed-2x2", 2, "sealed", 2)
    items = edits_of(game)
    for seat in seats_of(game):
        commit = next(i for i in items if isinstance(i, Edit) and i.fields[2] == seat and i.fields[5] == "PLAY_COMMIT")
        commit.fields[6] = {**commit.fields[6], "round": 1}
    return settled(game, items)


def test_a_round_nobody_shuffles_is_dealt_and_scored_alike(typescript: TypeScript, tmp_path: Path) -> None:
    """7 (session 39, found by the chain mutation on the stand-in's sealed game, then made minimal): a sealed round
    with no shuffling seat. `p2pnimmt verify` threw a ValueError (its audit refused an empty list of shuffling seats)
    and `node peer.js verify` a TypeError (its audit read the last shuffler's deck; and its round never dealt D_0, so
    the rows opened to no card). protocol.md 17.5 now says that D_0 is then the deal and the audit checks nothing."""
    case = every_seat_expelled()
    status, out, err = verified_alike(case, typescript, tmp_path, "nobody-shuffles")
    assert status == 0, err
    assert "round 1: void, nobody scores it" in out and "round 2: p0 8, p1 15\n" in out, out
    assert "lost its seat for a proven rule break: p0 (unexpected, " in out and \
        "lost its seat for a proven rule break: p1 (unexpected, " in out, out


def refound_in_a_rebuild() -> bytes:
    """The sealed 4-seat golden game with a drop (seat 3 voted out at round 1, step 18), seat 0's PLAY_COMMIT of
    turn 2 with a `turn` of [] (`bad-body`: expelled, and, dropped after its shuffle, it voids the round as
    `absent`), re-signed and chained on. The vote on seat 3 completes at a step the spectator's replay went past, so
    it rebuilds, and the rebuild finds seat 0's expulsion again."""
    game = base_game("golden-sealed-drop-4")
    records = plain(game)
    seat = seats_of(game)[0]
    at = next(p for p, m in sorted(game.messages.items())
              if m.sender == seat and m.kind == "PLAY_COMMIT" and m.fields[6]["turn"] == 1)
    fields = [*game.messages[at].fields]
    fields[6] = {**fields[6], "turn": []}
    resigned(game, records, at, fields)
    return written(game.recorder, records)


def test_a_rebuild_returns_no_fault(typescript: TypeScript) -> None:
    """8 (session 39, seed 1000066 of benchmarks/diff_fuzz.py): what a rebuild finds again (section 11.1: nothing is
    recorded during a rebuild) was returned by the TypeScript session's `receive` (so its verifier's list of what the
    replay found had seat 0's `bad-body` and `absent` twice, once at the vote's record), where the reference's
    rebuild returns nothing; both still count it as found (13, "a rebuild's included")."""
    case = refound_in_a_rebuild()
    ours = python_answer(case)
    assert [(code, record) for record, code, *_ in ours["found"]] == [("bad-body", 22), ("absent", 22)], ours
    assert not difference(case, typescript.answer(case))


def _moved(game_name: str, moves: list[tuple[int, str, dict[str, int], str, tuple[str, dict[str, int]] | None]]
           ) -> bytes:
    """Game `game_name` with messages of seats left out or moved, each seat's chain re-signed after: (seat, kind,
    body fields to match, how, where): how "out" (left out), "after" (moved after the seat's message `where`,
    (kind, body fields to match)) or "swap" (swapped with it)."""
    game = base_game(game_name)
    items = edits_of(game)
    seats = seats_of(game)

    def find(seat: int, kind: str, fields: dict[str, int]) -> int:
        return next(i for i, e in enumerate(items) if isinstance(e, Edit) and e.fields[2] == seats[seat]
                    and e.fields[5] == kind and all(e.fields[6].get(k) == v for k, v in fields.items()))

    for seat, kind, fields, how, where in moves:
        i = find(seat, kind, fields)
        if where is None:
            del items[i]
        elif how == "swap":
            j = find(seat, *where)
            items[i], items[j] = items[j], items[i]
        else:
            item = items.pop(i)
            items.insert(find(seat, *where) + 1, item)
    return settled(game, items, commits=True)


def test_a_message_at_the_seq_the_round_ends_list_is_no_ask_and_does_not_count(typescript: TypeScript) -> None:
    """9 (session 39, case 272 of the chain mutation, back-open-3): seat 1, voted out in round 1, never signs its
    REJOIN, so the seq every ROUND_END lists for its return is its SEED_COMMIT of round 2. Of a returning seat's
    messages only those with a seq above the one listed count (protocol.md 11.3): the TypeScript peer left that
    SEED_COMMIT out and waited for it at round 2's deal; the reference counted it (`env.seq < back_seq`) and went on
    to the first turn. Both now stop in the deal."""
    case = _moved("back-open-3", [(1, "REJOIN", {}, "out", None)])
    ours = python_answer(case)
    assert ours["text"] == "the transcript ends before the game does (phase deal, round 2, turn 1)", ours
    assert not difference(case, typescript.answer(case))


def test_a_vote_completed_by_an_expelled_seats_drop_is_made_before_the_game_goes_on(typescript: TypeScript) -> None:
    """10 (session 39, case 97 of the chain mutation, back-open-3, made minimal): seat 0's SEED_COMMIT of round 1
    signed last of its messages (so the game waits at (0, 0) on it throughout, and it is expelled, `unexpected`,
    when it comes), and seat 2's reveals of turns 3 and 4 swapped (expelled on arrival). Seat 0's drop at (0, 0)
    completes the vote on seat 1 at (0, 1) (seat 2's DROP, seat 0 no longer active there), where seat 1's SEED_REVEAL
    is in. The TypeScript peer went on from (0, 1) with it and dropped seat 1 as expelled at (0, 2), so the vote was
    moot; it now rebuilds first, as protocol.md 11.1 says (a drop is made before the game goes on). The reference,
    rebuilding, dropped seat 2 at (0, 3) before the state check of turn 1 expelled it from its commit (0, 2), and
    stopped: `the transcript ends before the game does (phase turn, round 1, turn 1)`, where the TypeScript peer
    dropped seat 2 at (0, 2) and verified the game. Since session 40 the reference too runs a turn's state check
    before it counts votes (steps.check_commits: the commit step is done only once its check ran, protocol.md 11.1,
    12): both drop seat 2 at (0, 2) and verify the game."""
    case = _moved("back-open-3", [(0, "SEED_COMMIT", {"round": 0}, "after", ("PLAY_REVEAL", {"round": 1, "turn": 4})),
                                  (2, "PLAY_REVEAL", {"round": 0, "turn": 2}, "swap",
                                   ("PLAY_REVEAL", {"round": 0, "turn": 3}))])
    assert not difference(case, typescript.answer(case))
    ours = python_answer(case)
    assert ours["ok"], ours["text"]
    assert "p2 (state-mismatch, the stand-in played it from round 1, step 2)" in ours["text"]
