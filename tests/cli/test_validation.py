"""One meaning and one error text per option in every command (issue 13, item 6): --seed and --name."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from p2pnimmt.cli import build_parser, settings_from

SEED_ERROR = "must be a whole number 0..2**256-1 or 64 hex digits"


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", *args], input=stdin, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("seed", ["x", "-1", "12ab", "0x" + "0" * 62, "1" * 63 + "g", str(2 ** 256)])
def test_a_bad_seed_is_refused_alike_by_play_and_simulate(seed: str) -> None:
    play = run("play", "--lines", "--seed", seed)
    sim = run("simulate", "--players", "2", "--bots", "random", "--games", "1", "--seed", seed)
    assert play.returncode == sim.returncode == 2
    assert f"argument --seed: {SEED_ERROR}, got {seed!r}" in play.stderr
    assert f"argument --seed: {SEED_ERROR}, got {seed!r}" in sim.stderr


def test_a_seed_is_one_number_written_in_decimal_or_64_hex_digits() -> None:
    decimal = run("play", "--lines", "--rounds", "1", "--no-points", "--seed", "258", stdin="")
    hexa = run("play", "--lines", "--rounds", "1", "--no-points", "--seed", f"{258:064x}", stdin="")
    assert f"Seed {258:064x}" in decimal.stdout  # play prints the seed as the 64 hex digits that replay it
    assert decimal.stdout == hexa.stdout.replace("-2.p2pt", ".p2pt")  # the same game, kept a second time as -2
    sim = [json.loads(run("simulate", "--players", "3", "--bots", "heuristic", "--games", "3", "--json",
                          "--seed", seed).stdout) for seed in ("258", f"{258:064x}")]
    for data in sim:
        data.pop("seconds"), data.pop("games_per_second")
    assert sim[0] == sim[1] and sim[0]["seed"] == 258


@pytest.mark.parametrize("name,why", [("", "a name is 1 to 40 characters, this one has 0: ''"),
                                      ("x" * 41, "a name is 1 to 40 characters, this one has 41: 'xxx"),
                                      ("\u202eann", "a name holds no U+202E"),
                                      ("q" + "\u0301" * 4, "a name has at most 3 combining marks")])
def test_play_and_host_refuse_the_same_names_with_the_same_words(name: str, why: str) -> None:
    play = run("play", "--lines", "--name", name)
    host = run("host", "--headless", "--interface", "127.0.0.1", "--name", name)
    assert play.returncode == host.returncode == 2
    assert f"argument --name: {why}" in play.stderr, play.stderr
    assert f"argument --name: {why}" in host.stderr, host.stderr
    assert "\u202e" not in play.stderr + host.stderr  # the bad name is quoted escaped


def test_a_name_of_40_characters_plays() -> None:
    result = run("play", "--lines", "--rounds", "1", "--no-points", "--seed", "1", "--name", "n" * 40)
    assert result.returncode == 1 and "Input closed" in result.stdout  # it played until its input ended


@pytest.mark.parametrize("value,why", [("0", "must be 1..600 seconds, got '0'"), ("601", "must be 1..600 seconds"),
                                       ("soon", "must be a number of seconds, got 'soon'")])
def test_a_link_timeout_out_of_range_is_refused(value: str, why: str) -> None:
    result = run("join", "ABCD", "--headless", "--interface", "127.0.0.1", "--link-timeout", value)
    assert result.returncode == 2 and f"argument --link-timeout: {why}" in result.stderr, result.stderr


@pytest.mark.parametrize("value", ["0", "601", "1.5", "soon"])
def test_a_hold_of_the_seats_out_of_range_is_refused(value: str) -> None:
    """--hold-seats is what a rematch offer carries as its wait: whole seconds 1..600 (protocol.md 14)."""
    result = run("host", "--headless", "--interface", "127.0.0.1", "--hold-seats", value)
    assert result.returncode == 2 and f"argument --hold-seats: must be a whole number of seconds 1..600, got " \
        f"{value!r}" in result.stderr, result.stderr
    assert build_parser().parse_args(["host", "--hold-seats", "600"]).hold_seats == 600


def test_a_sealed_deal_asked_for_the_draft_is_refused_not_dealt_open() -> None:
    """The draft variant's cards are drafted face up, so it is always dealt open: `--deal sealed` with it is refused
    with why (before, the game was silently dealt open: the session-32 red team); left out, the draft deals open and
    every other variant sealed, as before."""
    result = run("host", "--headless", "--interface", "127.0.0.1", "--variant", "draft", "--deal", "sealed")
    assert result.returncode == 2 and "the draft variant is always dealt open" in result.stderr, result.stderr
    parser = build_parser()
    for argv, deal in ((["host", "--variant", "draft"], "open"), (["host"], "sealed"),
                       (["host", "--variant", "tactical", "--deal", "open"], "open")):
        assert settings_from(parser.parse_args(argv), 4, parser).deal == deal, argv
