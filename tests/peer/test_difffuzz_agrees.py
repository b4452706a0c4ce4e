"""The differential fuzzer (issue 25: both verifiers give the same verdict, record, words and peer on any transcript,
tampered ones included): tests/peer/difffuzz.py's structural mutations of whole games, every message re-signed
with its seat's key and every file resealed with its recorder's, so each case reaches the check it is about
rather than failing at a broken link or signature. Hypothesis draws the mutations (a bounded, derandomized number
of examples: the default run's are the long sweep's first ones) and shrinks a disagreement to its fewest changes;
benchmarks/diff_fuzz.py runs many more. Each disagreement found is kept below as a minimal case, judged by both
verifiers in process and by both command lines (docs/development.md, "The differential fuzzer").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from difffuzz import (
    GAMES,
    MUTATIONS,
    Record,
    TypeScript,
    base_game,
    difference,
    plain,
    python_answer,
    written,
)
from hypothesis import HealthCheck, given, settings, strategies as st
from nodepeer import tool
from sweep import examples
from test_verify_agrees import same_lines


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


FUZZ = settings(max_examples=examples(60, 600), deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_both_verifiers_agree_on_mutated_games(mutation: str, typescript: TypeScript) -> None:
    @FUZZ
    @given(st.data())
    def agree(data: st.DataObject) -> None:
        draws = Drawn(data)
        name = draws.choice(sorted(GAMES))
        case = MUTATIONS[mutation](base_game(name), draws)
        problem = difference(case, typescript.answer(case))
        assert not problem, f"{name}, {mutation}:\n  {problem}"

    agree()


def test_the_games_verify_as_written_again(typescript: TypeScript) -> None:
    """The fuzzer's writer is faithful: every game taken apart and written again (relinked, resealed) verifies under
    both, so a case's verdict is its mutation's."""
    for name in GAMES:
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


FOUND = {
    # 1 (session 36): an unknown code and evidence that is no array of bin. Python named the code, TypeScript the
    # evidence: it checked the code against section 12 after the other fields (protocol.md 13 now gives the order).
    "unknown-code-and-bad-evidence": with_fault("open-3", {"peer": None, "code": "nope", "detail": "",
                                                           "fatal": False, "evidence": [1]}),
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_each_disagreement_found_is_settled(name: str, typescript: TypeScript, tmp_path: Path) -> None:
    case = FOUND[name]
    assert not difference(case, typescript.answer(case))
    path = tmp_path / f"{name}.p2pt"
    path.write_bytes(case)
    status, _out, err = same_lines(path)
    assert status == 1, err
    expected = {"unknown-code-and-bad-evidence": "FAILED at record 5: malformed fault record: 'nope' is no fault code"}
    assert err.startswith(expected[name]), err
