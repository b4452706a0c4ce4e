"""`p2pnimmt simulate` and `--version`, run as a real process: `python -m p2pnimmt ...`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

import p2pnimmt
from p2pnimmt.bots import BOTS

HEURISTIC_VS_RANDOM = ["--players", "5", "--bots", "heuristic,random,random,random,random"]
TIMING = ("seconds", "games_per_second")


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "p2pnimmt", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        env=full_env,
    )


def simulate(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    result = run("simulate", *args, env=env)
    assert result.returncode == 0, result.stderr
    return result


def simulate_json(*args: str, env: dict[str, str] | None = None) -> dict:
    result = simulate(*args, "--json", env=env)

    def reject(constant):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(result.stdout, parse_constant=reject)


def figures(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in TIMING}


def check_sample(sample: dict) -> None:
    mean = sample["mean"]
    low, high = sample["ci95"]
    assert low <= mean <= high
    assert high - mean == pytest.approx(mean - low)


TABLE_LINE = re.compile(
    r"^(\d+):(\w+)\s+(-?[\d.]+) ± ([\d.]+)\s+(-?[\d.]+) ± ([\d.]+)\s+([\d.]+)% ± ([\d.]+)\s*%$"
)


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"p2pnimmt {p2pnimmt.__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", p2pnimmt.__version__)


def test_table_has_one_line_per_entry_and_the_heuristic_clearly_ahead() -> None:
    result = simulate(*HEURISTIC_VS_RANDOM, "--games", "200", "--seed", "1")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("5 players, 200 games (")
    assert "variant standard" in lines[0] and "end at 66 points" in lines[0] and lines[1].startswith("seed 1, ")
    assert max(len(line) for line in lines) <= 80, result.stdout  # the header too fits 80 columns
    entries = [TABLE_LINE.match(line) for line in lines]
    rows = [m for m in entries if m]
    assert len(rows) == 5, result.stdout
    assert [(int(m[1]), m[2]) for m in rows] == [
        (1, "heuristic"), (2, "random"), (3, "random"), (4, "random"), (5, "random")
    ]
    ppg = [(float(m[3]), float(m[4])) for m in rows]
    wins = [float(m[7]) for m in rows]
    h_mean, h_half = ppg[0]
    for mean, half in ppg[1:]:
        assert h_mean + h_half < mean - half, result.stdout
    assert wins[0] > 50 > max(wins[1:])
    assert sum(wins) == pytest.approx(100, abs=0.3)
    # the table shows the same figures as --json
    data = simulate_json(*HEURISTIC_VS_RANDOM, "--games", "200", "--seed", "1")
    for m, bot in zip(rows, data["bots"]):
        assert float(m[3]) == pytest.approx(bot["points_per_game"]["mean"], abs=0.006)
        assert float(m[5]) == pytest.approx(bot["points_per_round"]["mean"], abs=0.006)
        assert float(m[7]) == pytest.approx(100 * bot["win_share"]["mean"], abs=0.06)
    assert f"({data['rounds']} rounds)" in lines[0]


def test_json_figures() -> None:
    data = simulate_json(*HEURISTIC_VS_RANDOM, "--games", "200", "--seed", "1")
    assert data["games"] == 200
    assert data["seed"] == 1
    assert data["players"] == 5
    assert data["variant"] == "standard"
    assert data["point_limit"] == 66 and data["max_rounds"] is None
    assert data["rounds"] >= 200
    assert data["seconds"] > 0 and data["games_per_second"] > 0
    bots = data["bots"]
    assert [b["entry"] for b in bots] == [1, 2, 3, 4, 5]
    assert [b["bot"] for b in bots] == ["heuristic", "random", "random", "random", "random"]
    for b in bots:
        for key in ("points_per_game", "points_per_round", "win_share"):
            check_sample(b[key])
        assert 0 <= b["win_share"]["mean"] <= 1
        # a game of at least one round: points per round never exceed points per game
        assert b["points_per_round"]["mean"] <= b["points_per_game"]["mean"]
    assert abs(sum(b["win_share"]["mean"] for b in bots) - 1) < 1e-9
    h = bots[0]["points_per_game"]
    for b in bots[1:]:
        assert h["ci95"][1] < b["points_per_game"]["ci95"][0]
    # some player reaches 66 in every game: the mean maximum is at least 66, so the sum of means is too
    assert sum(b["points_per_game"]["mean"] for b in bots) >= 66


def test_same_seed_same_figures_across_processes() -> None:
    # different hash seeds: nothing may depend on set/dict iteration order of the interpreter run
    a = simulate_json(*HEURISTIC_VS_RANDOM, "--games", "50", "--seed", "9", env={"PYTHONHASHSEED": "1"})
    b = simulate_json(*HEURISTIC_VS_RANDOM, "--games", "50", "--seed", "9", env={"PYTHONHASHSEED": "2"})
    assert figures(a) == figures(b)
    c = simulate_json(*HEURISTIC_VS_RANDOM, "--games", "50", "--seed", "10")
    assert figures(c)["bots"] != figures(a)["bots"]


def test_one_bot_name_fills_every_seat() -> None:
    data = simulate_json("--players", "3", "--bots", "random", "--games", "10")
    assert [b["bot"] for b in data["bots"]] == ["random"] * 3
    assert data["seed"] == 0


@pytest.mark.parametrize("variant", ["tactical", "draft"])
def test_variants(variant: str) -> None:
    data = simulate_json(*HEURISTIC_VS_RANDOM, "--games", "30", "--variant", variant, "--seed", "3")
    assert data["variant"] == variant
    assert data["games"] == 30
    assert data["rounds"] >= 30
    assert abs(sum(b["win_share"]["mean"] for b in data["bots"]) - 1) < 1e-9
    table = simulate(*HEURISTIC_VS_RANDOM, "--games", "30", "--variant", variant, "--seed", "3").stdout
    assert f"variant {variant}" in table.splitlines()[0]
    assert len([line for line in table.splitlines() if TABLE_LINE.match(line)]) == 5


def test_round_limit_without_points_plays_exactly_that_many_rounds() -> None:
    data = simulate_json("--players", "4", "--bots", "random", "--games", "40", "--rounds", "2", "--no-points")
    assert data["rounds"] == 2 * 40
    assert data["max_rounds"] == 2
    assert data["point_limit"] is None
    for b in data["bots"]:
        # exactly two rounds per game: points per round is half of points per game
        assert b["points_per_round"]["mean"] == pytest.approx(b["points_per_game"]["mean"] / 2)
    table = simulate("--players", "4", "--bots", "random", "--games", "40", "--rounds", "2", "--no-points").stdout
    assert "(80 rounds)" in table and "end at 2 rounds" in table


def test_round_limit_with_points_ends_at_whichever_comes_first() -> None:
    data = simulate_json("--players", "4", "--bots", "random", "--games", "40", "--rounds", "2", "--points", "10")
    assert data["max_rounds"] == 2 and data["point_limit"] == 10
    assert 40 <= data["rounds"] < 2 * 40  # someone often reaches 10 bull heads in the first round


def test_progress_bar_on_stderr() -> None:
    result = simulate(*HEURISTIC_VS_RANDOM, "--games", "50", "--progress")
    assert re.search(r"100%\s+50/50 games\n?$", result.stderr), repr(result.stderr[-80:])
    assert "[" + "#" * 30 + "]" in result.stderr
    assert result.stdout.splitlines()[0].startswith("5 players, 50 games")
    # without a terminal and without --progress: no bar
    quiet = simulate(*HEURISTIC_VS_RANDOM, "--games", "50")
    assert quiet.stderr == ""
    assert simulate(*HEURISTIC_VS_RANDOM, "--games", "50", "--no-progress").stderr == ""


@pytest.mark.parametrize(
    "args, needles",
    [
        (["--players", "11", "--bots", "random"], ["--players", "11", "2..10"]),
        (["--players", "x", "--bots", "random"], ["--players", "'x'"]),
        (["--players", "3", "--bots", "random,foo"], ["--bots", "'foo'", "known bots: " + ", ".join(sorted(BOTS))]),
        (["--players", "3", "--bots", "random,random"], ["--bots", "2 bots", "--players is 3"]),
        (["--players", "3", "--bots", "random", "--games", "0"], ["--games", "got 0"]),
        (["--players", "3", "--bots", "random", "--no-points"], ["--no-points", "--rounds"]),
        (["--bots", "random"], ["--players is required"]),
        (["--players", "3"], ["--bots", "--matrix"]),
        (["--players", "3", "--bots", "random", "--matrix", "random,heuristic"], ["--bots", "--matrix", "one of"]),
        (["--matrix", "random"], ["--matrix", "at least one other"]),
        (["--matrix", "random,foo"], ["--matrix", "'foo'"]),
        (["--matrix", "random,heuristic,random"], ["--matrix", "random is the bot measured"]),
        (["--matrix", "random,heuristic", "--rollouts", "3", "--budget", "1"], ["--rollouts and --budget"]),
    ],
    ids=["players-11", "players-x", "unknown-bot", "bot-count", "games-0", "no-points-alone", "no-players",
         "no-bots", "bots-and-matrix", "matrix-of-one", "matrix-unknown-bot", "matrix-measured-twice",
         "matrix-rollouts-and-budget"],
)
def test_errors_exit_2_with_a_message(args: list[str], needles: list[str]) -> None:
    result = run("simulate", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "error" in result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)
    assert "Traceback" not in result.stderr


def test_json_is_strict_json_even_for_one_game() -> None:
    """With one game the interval is unbounded; --json must still print standard JSON (no Infinity/NaN)."""
    result = simulate("--players", "2", "--bots", "random", "--games", "1", "--json")
    for constant in ("Infinity", "NaN"):
        assert constant not in result.stdout, f"--json printed {constant}, which is not JSON (RFC 8259)"


MATRIX = ["--matrix", "random,heuristic,easy", "--players", "3", "--games", "2", "--seed", "5"]
MATRIX_TABLES = {"heuristic": "random,heuristic,heuristic", "easy": "random,easy,easy", "mixed": "random,heuristic,easy"}


def test_matrix_figures_are_plain_simulates_for_the_same_seed() -> None:
    """`simulate --matrix A,B,C`: a table per other kind and a mixed one, each exactly `simulate --bots` with
    that seed, and A's figures there are that run's figures of A (fast bots only)."""
    data = simulate_json(*MATRIX)
    assert (data["measured"], data["players"], data["games"], data["seed"]) == ("random", 3, 2, 5)
    assert [(t["table"], ",".join(t["bots"])) for t in data["tables"]] == list(MATRIX_TABLES.items())
    for t in data["tables"]:
        plain = simulate_json("--players", "3", "--bots", ",".join(t["bots"]), "--games", "2", "--seed", "5")
        assert figures(t["simulation"]) == figures(plain)
        kinds = {k["bot"]: k for k in plain["kinds"]}
        assert t["points_per_round"] == kinds["random"]["points_per_round"]
        assert t["win_share"] == kinds["random"]["win_share"]
        assert (t["games"], t["rounds"]) == (2, plain["rounds"])
        for key in ("points_per_round", "others_points_per_round", "table_mean_points_per_round", "win_share"):
            check_sample(t[key])
        me, others = t["points_per_round"]["mean"], t["others_points_per_round"]["mean"]
        assert t["table_mean_points_per_round"]["mean"] == pytest.approx((me + 2 * others) / 3)
        assert t["ratio_to_others"]["mean"] == pytest.approx(me / others)
        if len(kinds) == 2:  # one other kind: the ratio to the others is simulate's own ratio of the two
            (r,) = plain["ratios"]
            assert (r["bot"], r["to"]) == ("random", t["bots"][1])
            assert t["ratio_to_others"]["mean"] == pytest.approx(r["points_per_round"]["mean"])
            assert t["ratio_to_others"]["ci95"] == pytest.approx(r["points_per_round"]["ci95"])
        else:
            assert t["others_points_per_round"]["mean"] == pytest.approx(
                (kinds["heuristic"]["points_per_round"]["mean"] + kinds["easy"]["points_per_round"]["mean"]) / 2)


MATRIX_ROW = re.compile(
    r"^(\w+) \((\d+) games, (\d+) rounds\)\s+(-?[\d.]+) ± ([\d.]+)\s+(-?[\d.]+) ± ([\d.]+)\s+"
    r"([\d.]+) \(([\d.]+)-([\d.]+)\)\s+([\d.]+) \(([\d.]+)-([\d.]+)\)\s+([\d.]+)% ± ([\d.]+)%$"
)


def test_matrix_table_has_a_line_per_table_with_the_json_figures() -> None:
    lines = simulate(*MATRIX).stdout.splitlines()
    assert lines[0].startswith("random against 2 of each") and "2 games per table" in lines[0]
    assert lines[1].split()[:2] == ["table", "random"]
    assert lines[-1].startswith("± is the half width")
    rows = [MATRIX_ROW.match(line) for line in lines[2:-1]]
    assert all(rows) and len(rows) == 3, lines
    data = simulate_json(*MATRIX)
    for m, t in zip(rows, data["tables"]):
        assert m is not None
        assert m.group(1) == t["table"] and int(m.group(3)) == t["rounds"]
        assert float(m.group(4)) == pytest.approx(t["points_per_round"]["mean"], abs=0.005)
        assert float(m.group(8)) == pytest.approx(t["ratio_to_others"]["mean"], abs=0.0005)
        assert float(m.group(11)) == pytest.approx(t["ratio_to_table_mean"]["mean"], abs=0.0005)
