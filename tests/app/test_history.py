"""`p2pnimmt history`: transcripts in the data directory, listed and re-checked; --stats per player."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "protocol"))

from harness import Net  # noqa: E402

from p2pnimmt.app.history import games, history_lines, read_game, stats_lines  # noqa: E402
from p2pnimmt.engine import Settings  # noqa: E402


def write_games(folder: Path, count: int) -> list[Net]:
    folder.mkdir(parents=True, exist_ok=True)
    nets = []
    for seed in range(count):
        net = Net(3, settings=Settings(players=3, max_rounds=2, point_limit=None, deal="open"), bots="heuristic",
                  seed=seed)
        net.start()
        net.run()
        for i, ident in enumerate(net.identities[:1]):  # the first seat's transcript: this machine's
            (folder / f"game{seed}-{i}.p2pt").write_bytes(bytes(net.transcripts[ident.peer]))
        nets.append(net)
    return nets


def test_history_lists_each_game_verified_with_its_winner(tmp_path: Path) -> None:
    nets = write_games(tmp_path, 3)
    records = games(tmp_path)
    assert len(records) == 3 and all(r.verified for r in records)
    text = "\n".join(history_lines(records))
    for net in nets:
        session = net.sessions[net.identities[0].peer]
        winners = [session.names[s] for s in session.game.winners]
        assert f"won by {', '.join(winners)}" in text
        assert ", ".join(f"{n}{' (you)' if i == 0 else ''} {s}"
                         for i, (n, s) in enumerate(zip(session.names, session.game.scores))) in text
    assert text.count("[verified]") == 3 and "standard, open deal, 2 rounds" in text


def test_a_damaged_transcript_is_listed_as_not_verified(tmp_path: Path) -> None:
    write_games(tmp_path, 1)
    path = next(tmp_path.glob("*.p2pt"))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    (record,) = games(tmp_path)
    assert not record.verified and record.problem
    assert "NOT verified" in "\n".join(history_lines([record])) or record.status == "damaged"


def test_stats_add_up_games_wins_and_points_per_round(tmp_path: Path) -> None:
    nets = write_games(tmp_path, 3)
    lines = stats_lines(games(tmp_path))
    assert lines[0].split() == ["player", "games", "wins", "points/round"]
    rows = {line[:28].strip(): line[28:].split() for line in lines[1:]}
    mine = rows["you"]
    wins = sum(0 in n.sessions[n.identities[0].peer].game.winners for n in nets)
    points = sum(n.sessions[n.identities[0].peer].game.scores[0] for n in nets)
    assert mine == ["3", str(wins), f"{points / 6:.2f}"]
    # the harness seats bots named p1 and p2 at every table: one row each, over the three games
    assert set(rows) == {"you", "p1 (bot)", "p2 (bot)"} and rows["p1 (bot)"][0] == "3"
    assert sum(int(row[1]) for row in rows.values()) >= 3  # every game has a winner (ties: several)


def test_history_command_reads_the_xdg_data_dir(tmp_path: Path) -> None:
    write_games(tmp_path / "data" / "p2pnimmt" / "transcripts", 2)
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "p2pnimmt", "history"], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("[verified]") == 2
    out = subprocess.run([sys.executable, "-m", "p2pnimmt", "history", "--stats"], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.splitlines()[1].startswith("you "), out.stdout + out.stderr


def test_an_unfinished_game_is_listed_with_its_players_and_a_lobby_is_not(tmp_path: Path) -> None:
    """Issue 23 item 8: a game cut short is listed with its players and scores so far and where it stops
    (not as 'FAILED at the transcript ends before the game does'); a lobby that never started a game (or a
    join the host refused) is not listed as a game, only counted."""
    tmp_path.mkdir(exist_ok=True)
    net = Net(3, settings=Settings(players=3, max_rounds=2, point_limit=None, deal="open"), bots="heuristic", seed=9)
    net.start()
    net.run(limit=400)  # well into the game, not over
    me = net.identities[0].peer
    assert net.sessions[me].phase != "over"
    (tmp_path / "cut.p2pt").write_bytes(bytes(net.transcripts[me]))
    lobby = Net(3, seed=10)  # its transcript holds the header only: nobody hosted
    (tmp_path / "lobby.p2pt").write_bytes(bytes(lobby.transcripts[lobby.identities[1].peer]))
    records = games(tmp_path)
    assert sorted(r.status for r in records) == ["not started", "unfinished"]
    text = "\n".join(history_lines(records))
    assert "FAILED" not in text and "ends before the game does" not in text, text
    session = net.sessions[me]
    assert ", ".join(f"{n}{' (you)' if i == 0 else ''} {s}"
                     for i, (n, s) in enumerate(zip(session.names, session.game.scores))) in text
    assert f"stops in round {session.round + 1}, turn {session.turn + 1}\n    [NOT verified: unfinished]" in text, text
    assert text.endswith("(and 1 lobby or refused join that never started a game, not listed)")
    assert history_lines([r for r in records if r.status == "not started"])[0].startswith("No games yet")


def test_each_game_listed_says_how_to_replay_it(tmp_path: Path) -> None:
    """`p2pnimmt replay FILE` (its --help: "see `p2pnimmt history`") needs the file, and history named none: each
    finished game's block ends with the command that replays it, a game left unfinished with the command that
    replays it up to where it stops, a damaged one (replay refuses it) with its file."""
    import shlex

    from p2pnimmt.ui.replay import frames

    write_games(tmp_path / "a b", 1)  # a folder with a space: the command is quoted for the shell
    net = Net(3, settings=Settings(players=3, max_rounds=2, point_limit=None, deal="open"), bots="heuristic", seed=9)
    net.start()
    net.run(limit=400)
    (tmp_path / "a b" / "cut.p2pt").write_bytes(bytes(net.transcripts[net.identities[0].peer]))
    records = {r.path.name: r for r in games(tmp_path / "a b")}
    lines = history_lines([records["game0-0.p2pt"]])  # a whole path past 80 columns: the command under its label
    assert len(lines) == 4 and lines[2] == "    to watch it again:" and lines[3].startswith("      p2pnimmt replay "), \
        lines
    command = shlex.split(lines[3])
    assert command[:2] == ["p2pnimmt", "replay"] and Path(command[2]) == tmp_path / "a b" / "game0-0.p2pt"
    assert frames(Path(command[2]).read_bytes())  # the file it names replays
    cut = history_lines([records["cut.p2pt"]])  # left before its end: replayed up to where it stops
    assert cut[-2:] == ["    watch it up to where it stops:", "      p2pnimmt replay " + shlex.quote(
        str(tmp_path / "a b" / "cut.p2pt"))], cut  # on main: its file only (replay refused it)
    assert frames((tmp_path / "a b" / "cut.p2pt").read_bytes())[-1].kind == "unfinished"
    broken = bytearray((tmp_path / "a b" / "cut.p2pt").read_bytes())
    broken[len(broken) // 2] ^= 1
    (tmp_path / "a b" / "broken.p2pt").write_bytes(bytes(broken))
    damaged = history_lines([read_game(tmp_path / "a b" / "broken.p2pt")])
    assert "broken.p2pt: damaged (FAILED at record" in damaged[0], damaged  # no replay line
    assert all(len(line) <= 80 for line in damaged) and all(line.startswith("    ") for line in damaged[1:]), damaged


def test_the_history_fits_80_columns_and_names_files_replay_finds(tmp_path: Path) -> None:
    """`p2pnimmt history` in a real process, the data directory deep in a long folder: each line fits 80 columns (a
    replay line named its transcript by its whole path, past 80; an unfinished game's head line said why beside it,
    past 80: now under it), in English and German; the file a
    line names is its name in the transcripts folder, which `p2pnimmt replay NAME` finds there from any folder."""
    import os
    import shlex

    data = tmp_path / ("a-long-folder-name-" * 4) / "data"
    folder = data / "p2pnimmt" / "transcripts"
    write_games(folder, 1)
    net = Net(3, settings=Settings(players=3, max_rounds=2, point_limit=None, deal="open"), bots="heuristic", seed=9)
    net.start()
    net.run(limit=400)  # left before its end: its line says "up to where it stops", the longer one
    name = "EBYM-d342eda0-QWXN-3FH2.p2pt"  # as app/nodes.py names a game's transcript: code, game id, fingerprint
    (folder / name).write_bytes(bytes(net.transcripts[net.identities[0].peer]))
    os.utime(folder / name, (2e9, 2e9))  # listed last
    env = {"XDG_DATA_HOME": str(data), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    for lang in ("en", "de"):
        out = subprocess.run([sys.executable, "-m", "p2pnimmt", "--lang", lang, "history"], env=env,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        files = [line for line in lines if "p2pnimmt replay" in line]
        assert len(files) == 2 and all(len(line) <= 80 for line in lines), out.stdout
        assert files[-1] == lines[-1] and lines[-1].endswith(f": p2pnimmt replay {name}") and "replay game0-0.p2pt" in files[0], lines
    # replay finds the name in the transcripts folder (from another folder), and a path as given
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = ("import sys; from p2pnimmt.app.history import transcript_file; print(transcript_file(sys.argv[1]))")
    for given, found in ((name, folder / name), (str(folder / name), folder / name), ("nothing.p2pt", "nothing.p2pt")):
        out = subprocess.run([sys.executable, "-c", probe, given], env=env, cwd=elsewhere, capture_output=True,
                             text=True, timeout=60)
        assert out.stdout.strip() == str(found), out.stdout + out.stderr
    assert shlex.split(lines[-1].split(": ", 1)[1])[2] == name


def test_damaged_abandoned_and_long_named_games_fit_80_columns_in_german(tmp_path: Path) -> None:
    """`p2pnimmt --lang de history` in a real process: a damaged transcript's line said `beschädigt (FAILED at record
    172: ...)` in English and ran on past 80 columns, a game abandoned before it started ran past 80 too (English and
    German), and the replay line of a transcript named `NAME-2.p2pt` (a second copy, `play --seed` again) reached 82.
    Now the reason is German (`FEHLGESCHLAGEN bei Eintrag N`), every line fits 80 columns, broken between words with
    the further lines indented, and a replay command too long beside its label stands whole under it."""
    import os

    from p2pnimmt import i18n
    from p2pnimmt.app.history import GameRecord, Player

    data = tmp_path / "data"
    folder = data / "p2pnimmt" / "transcripts"
    write_games(folder, 1)
    broken = bytearray((folder / "game0-0.p2pt").read_bytes())
    broken[len(broken) // 2] ^= 1
    (folder / "game0-0.p2pt").write_bytes(bytes(broken))
    net = Net(3, settings=Settings(players=3, max_rounds=2, point_limit=None, deal="open"), bots="heuristic", seed=9)
    net.start()
    net.run(limit=400)  # left before its end
    name = "EBYM-d342eda0-QWXN-3FH2-2.p2pt"  # app/nodes.py's name for a game's transcript, the second of its name
    (folder / name).write_bytes(bytes(net.transcripts[net.identities[0].peer]))
    env = {"XDG_DATA_HOME": str(data), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-m", "p2pnimmt", "--lang", "de", "history"], env=env, capture_output=True,
                         text=True, timeout=60)
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and all(len(line) <= 80 for line in lines), out.stdout
    assert "FAILED" not in out.stdout and "beschädigt (FEHLGESCHLAGEN bei Eintrag " in out.stdout, out.stdout
    assert f"      p2pnimmt replay {name}" in lines, out.stdout  # the command whole, on a line of its own
    abandoned = GameRecord(folder / "X.p2pt", 2e9, "abandoned", players=tuple(
        Player(n, "bot", 0, False, False) for n in ("ann", "bot1", "maximiliane")),
        problem="maximiliane left before acknowledging its START")  # app.anew's why, as its secrets file keeps it
    for lang in ("en", "de"):
        i18n.use(lang)
        try:
            shown = history_lines([abandoned])
        finally:
            i18n.use("en")
        assert all(len(line) <= 80 for line in shown) and all(line.startswith("    ") for line in shown[1:]), shown
        assert ("maximiliane ist gegangen, bevor der START bestätigt war" if lang == "de" else
                "maximiliane left before acknowledging its START") in " ".join(" ".join(shown).split()), shown


def test_the_stats_numbers_stand_under_their_headings_in_german(tmp_path: Path) -> None:
    """`history --stats` in German: "Spiele" has six letters, the games' column five, so every count stood a column
    left of its heading. Now each column is as wide as its heading; each number ends where its heading ends."""
    from p2pnimmt import i18n

    write_games(tmp_path, 2)
    for lang in ("en", "de"):
        i18n.use(lang)
        try:
            lines = stats_lines(games(tmp_path))
        finally:
            i18n.use("en")
        heading = lines[0]
        ends = [m.end() for m in re.finditer(r"\S+", heading)][1:]  # where "games", "wins", "points/round" end
        for line in lines[1:]:
            numbers = [m.end() for m in re.finditer(r"\d+(?:\.\d+)?", line[28:])]
            assert [28 + end for end in numbers[-3:]] == ends, (heading, line)


def test_an_unfinished_game_says_where_it_stops_as_verify_does(tmp_path: Path) -> None:
    """A game left in its first round was listed as "standard, open deal, 0 rounds" (German "0 Runden"): its head now
    says where it stops, in the words of `verify`'s UNFINISHED line ("it stops in round 1, turn 3"), in English and
    German, a real `p2pnimmt history` and `p2pnimmt verify` on the same transcript (fails on main)."""
    import os

    net = Net(3, settings=Settings(players=3, max_rounds=2, point_limit=None, deal="open"), bots="heuristic", seed=9)
    net.start()
    net.run(limit=60)  # into the first round's turns, not over
    session = net.sessions[net.identities[0].peer]
    assert session.phase != "over" and session.game.rounds_played == 0
    folder = tmp_path / "data" / "p2pnimmt" / "transcripts"
    folder.mkdir(parents=True)
    (folder / "cut.p2pt").write_bytes(bytes(net.transcripts[net.identities[0].peer]))
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    for lang, where, stops, rounds in (("en", r"round 1, turn \d+", "stops in ", "0 rounds"),
                                       ("de", r"Runde 1, Zug \d+", "bricht in ", "0 Runden")):
        run = [sys.executable, "-m", "p2pnimmt", "--lang", lang]
        listed = subprocess.run([*run, "history"], env=env, capture_output=True, text=True, timeout=60).stdout
        checked = subprocess.run([*run, "verify", str(folder / "cut.p2pt")], env=env, capture_output=True,
                                 text=True, timeout=60).stdout
        told = re.search(where, checked)
        assert told is not None, checked
        assert f"{stops}{told.group(0)}" in listed and rounds not in listed, listed
        assert all(len(line) <= 80 for line in listed.splitlines()), listed
