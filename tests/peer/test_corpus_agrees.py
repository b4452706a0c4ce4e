"""Both verifiers on transcripts of real processes (issue 25): tests/peer/corpus/ holds the transcripts that
benchmarks/peer_corpus.py made with separate p2pnimmt processes on 127.0.0.1 (every variant and deal, 2 to 10
seats, a player killed and voted out, killed and resumed, dropped and taken back, a rematch, the clock's stand-in,
and the cut-short files of the killed processes); `node peer.js verify` prints what `p2pnimmt verify` prints for
each, byte for byte, with the same exit status. A tamper sweep over some of them (byte flips, records dropped,
swapped, repeated, cuts) gets the same verdict, record, kind of problem and peer from both. And a small live
sample: a sealed game of real processes played here, its every transcript judged alike.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_verify_agrees import mutations, node_verify, python_verify, typescript_verdicts, verdicts_differ

CORPUS = Path(__file__).resolve().parent / "corpus"
FILES = sorted(CORPUS.glob("*.p2pt"))
SCENARIOS = ["open-2", "sealed-2", "open-4", "sealed-4", "tactical-open-3", "tactical-sealed-5", "draft-4",
             "points-sealed-3", "sealed-10", "open-10", "drop-open", "drop-sealed", "drop-draft", "resume-open",
             "resume-sealed", "back-sealed", "rematch-sealed", "clock-open"]
LO = ["--interface", "127.0.0.1"]


def both(path: Path) -> tuple[str, tuple, tuple]:
    ours, theirs = python_verify(path), node_verify(path)
    return path.name, (ours.returncode, ours.stdout, ours.stderr), (theirs.returncode, theirs.stdout, theirs.stderr)


def judged_alike(paths: list[Path]) -> list[tuple]:
    """Both command-line verifiers on every file (two at a time): the same status and lines. Python's results."""
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(both, paths))
    differ = [f"{name}:\n  Python {ours}\n  TypeScript {theirs}" for name, ours, theirs in results if ours != theirs]
    assert not differ, f"{len(differ)} of {len(paths)} differ:\n" + "\n".join(differ[:5])
    return [ours for _name, ours, _theirs in results]


def test_the_corpus_has_every_scenario() -> None:
    assert len(FILES) >= 50, len(FILES)
    for name in SCENARIOS:
        assert any(p.name.startswith(f"{name}-") for p in FILES), name


def test_both_verifiers_agree_on_the_corpus() -> None:
    results = judged_alike(FILES)
    verified = sum(code == 0 for code, _out, _err in results)
    assert verified >= len(FILES) - 8, [err for code, _out, err in results if code]  # the killed ones are cut short
    summaries = "".join(out for _code, out, _err in results)
    for words in ("variant tactical", "variant draft", "sealed deal", "open deal", "10 players", "rematch of game",
                  "2 players"):
        assert words in summaries, words


@pytest.mark.parametrize("name", ["sealed-4-host", "drop-sealed-tv", "resume-sealed-j", "rematch-sealed-host-2",
                                  "clock-open-sam"])
def test_tamper_sweep_on_corpus_transcripts(name: str, compiled: Path) -> None:
    data = (CORPUS / f"{name}.p2pt").read_bytes()
    rng = random.Random(name)
    cases = rng.sample(mutations(data, rng), 24)
    theirs = typescript_verdicts(compiled, cases)
    differ, unsupported = verdicts_differ(cases, theirs)
    assert not unsupported, unsupported
    assert not differ, f"{len(differ)} of {len(cases)} verdicts differ:\n" + "\n".join(differ[:10])
    assert sum(not a["ok"] for a in theirs) >= len(cases) // 2  # most tampering is caught (a flip may hit slack)


def test_a_live_sealed_game_of_real_processes(tmp_path: Path, procs) -> None:
    """A sealed game played here by a host with a bot, a joiner and a spectator (separate processes on
    127.0.0.1): each of the three transcripts gets the same lines from both verifiers, and verifies."""
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--transcript", str(tmp_path / "host.p2pt"), "--name", "ann"], tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    tv = procs(["watch", code, "--headless", *LO, "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out")
    tv.wait_for("joined")
    joiner = procs(["join", code, "--headless", *LO, "--name", "bo", "--transcript", str(tmp_path / "bo.p2pt")],
                   tmp_path / "bo.out")
    for proc in (host, tv, joiner):
        assert proc.finish(120) == 0, proc.text()
    results = judged_alike([tmp_path / f"{name}.p2pt" for name in ("host", "tv", "bo")])
    assert all(code == 0 and "3 players, variant standard, sealed deal" in out for code, out, _err in results), results
