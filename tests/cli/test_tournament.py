"""`p2pnimmt simulate` as a tournament: levels and search bots, pooled kinds, ratios, jobs, budgets, move times."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest

from p2pnimmt.bots.mcs import BUDGET_ENV, ROLLOUTS_ENV
from p2pnimmt.cli import build_parser

TIMING = ("seconds", "games_per_second")


def run(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in (ROLLOUTS_ENV, BUDGET_ENV)}
    return subprocess.run(
        [sys.executable, "-m", "p2pnimmt", "simulate", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env=env,
    )


def simulate_json(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.returncode == 0, result.stderr

    def reject(constant):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(result.stdout, parse_constant=reject)


def figures(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in TIMING}


LEVELS_TABLE = ["--players", "4", "--bots", "easy,medium,hard,hard", "--seed", "5", "--rounds", "2", "--no-points"]


def test_levels_pooled_kinds_and_ratios() -> None:
    data = simulate_json(*LEVELS_TABLE, "--games", "6", "--rollouts", "3")
    assert data["bot_options"] == {"rollouts": 3}
    assert [b["bot"] for b in data["bots"]] == ["easy", "medium", "hard", "hard"]
    kinds = {k["bot"]: k for k in data["kinds"]}
    assert [k["bot"] for k in data["kinds"]] == ["easy", "medium", "hard"]
    assert kinds["hard"]["entries"] == [3, 4] and kinds["easy"]["entries"] == [1]
    by_entry = {b["entry"]: b for b in data["bots"]}
    # a kind's mean points per game is the mean of its entries'; its win share is their sum
    hard_ppg = (by_entry[3]["points_per_game"]["mean"] + by_entry[4]["points_per_game"]["mean"]) / 2
    assert kinds["hard"]["points_per_game"]["mean"] == pytest.approx(hard_ppg)
    assert kinds["hard"]["win_share"]["mean"] == pytest.approx(
        by_entry[3]["win_share"]["mean"] + by_entry[4]["win_share"]["mean"]
    )
    assert sum(k["win_share"]["mean"] for k in data["kinds"]) == pytest.approx(1)
    pairs = [(r["bot"], r["to"]) for r in data["ratios"]]
    assert pairs == [("easy", "medium"), ("easy", "hard"), ("medium", "hard")]
    for r in data["ratios"]:
        ppr = r["points_per_round"]
        expected = kinds[r["bot"]]["points_per_round"]["mean"] / kinds[r["to"]]["points_per_round"]["mean"]
        assert ppr["mean"] == pytest.approx(expected)
        low, high = ppr["ci95"]
        assert low <= ppr["mean"] <= high


def test_figures_do_not_depend_on_jobs() -> None:
    one = simulate_json(*LEVELS_TABLE, "--games", "6", "--rollouts", "2", "--jobs", "1")
    two = simulate_json(*LEVELS_TABLE, "--games", "6", "--rollouts", "2", "--jobs", "2")
    assert figures(one) == figures(two)
    other_seed = simulate_json("--players", "4", "--bots", "easy,medium,hard,hard", "--seed", "6", "--rounds", "2", "--no-points",
                               "--games", "6", "--rollouts", "2")
    assert figures(other_seed)["bots"] != figures(one)["bots"]


def test_table_sections_and_move_times() -> None:
    result = run(*LEVELS_TABLE, "--games", "4", "--rollouts", "2", "--times")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "rollouts 2" in lines[1]  # the header's second line: seed and options
    assert any(line.startswith("by bot") for line in lines)
    assert any(line.startswith("hard x2 ") for line in lines)
    assert any(line.startswith("points/round of medium / hard: ") for line in lines)
    header = next(i for i, line in enumerate(lines) if line.startswith("move time"))
    timed = lines[header + 1 : header + 5]
    assert [line.split()[0] for line in timed] == ["1:easy", "2:medium", "3:hard", "4:hard"]
    data = simulate_json(*LEVELS_TABLE, "--games", "4", "--rollouts", "2", "--times")
    for b in data["bots"]:
        t = b["move_seconds"]
        assert t["moves"] >= 10 * data["rounds"]  # a card every turn, and the row choices
        assert 0 <= t["median"] <= t["p99"] <= t["max"]
    plain = simulate_json(*LEVELS_TABLE, "--games", "2", "--rollouts", "2")
    assert all("move_seconds" not in b for b in plain["bots"])


def test_a_budget_bounds_the_moves_of_hard() -> None:
    data = simulate_json("--players", "3", "--bots", "hard,medium,easy", "--games", "2", "--rounds", "1",
                         "--budget", "0.02", "--times")
    assert data["bot_options"] == {"budget": 0.02}
    hard = data["bots"][0]["move_seconds"]
    assert hard["moves"] >= 20
    assert hard["median"] < 0.02 + 0.5 and hard["max"] < 0.02 + 2.0  # generous: a busy machine


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--budget", "0"], "--budget must be a positive number of seconds"),
        (["--budget", "nan"], "--budget must be a positive number of seconds"),
        (["--budget", "0.1", "--rollouts", "5"], "--rollouts and --budget exclude each other"),
        (["--rollouts", "0"], "--rollouts"),
        (["--jobs", "0"], "--jobs"),
    ],
)
def test_bad_options_exit_2(args: list[str], needle: str) -> None:
    result = run("--players", "3", "--bots", "hard", "--games", "1", *args)
    assert result.returncode == 2
    assert needle in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_levels_are_chosen_on_the_command_line(level: str) -> None:
    parser = build_parser()
    assert parser.parse_args(["play", "--bot", level]).bot == level
    assert parser.parse_args(["host", "--bots", "2", "--bot", level]).bot == level
    assert parser.parse_args(["bot", "ABCD", "--bot", level]).bot == level
    assert parser.parse_args(["simulate", "--players", "2", "--bots", f"{level},mcs"]).bots == [level, "mcs"]


def test_one_game_keeps_strict_json_with_ratios_and_times() -> None:
    data = simulate_json("--players", "2", "--bots", "hard,easy", "--games", "1", "--rounds", "1",
                         "--rollouts", "1", "--times")
    assert data["ratios"][0]["points_per_round"]["ci95"] is None
    assert all(not math.isnan(b["move_seconds"]["median"]) for b in data["bots"])
