"""A game that carries the scores of the game an equivocation ended (protocol.md 9, START's `carry`; 12) shows the
evening's round numbers on the full-screen table: "round 3" after 2 carried rounds, as its totals count them, and
says once at its start which game it continues. Real Sessions in memory (ui.local), the app fed keys through a
pipe, the screen rendered to text. Before session 32 the screens numbered its rounds from 1 while the totals
included the carried ones."""

import asyncio
import re
import time

from fullscreen import seated
from prompt_toolkit.input import create_pipe_input
from screens import SizedOutput, until

from p2pnimmt import i18n
from p2pnimmt.engine import Settings
from p2pnimmt.net.discovery import game_code
from p2pnimmt.ui.app import TYPED_AHEAD, TableApp, screen_text
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import TableModel
from p2pnimmt.ui.widgets import scoresheet
from p2pnimmt.web.state import table_state

ENTER = "\r"
CONTINUED = bytes(range(16))  # the id of the game this one continues
CARRY = {"game": CONTINUED, "rounds": 2, "scores": [5, 0, 12, 3]}


class CarriedTable(LocalTable):
    """A local table whose host's START carries CARRY (as a new start after an equivocation)."""

    def start(self) -> None:
        roster = [(ident.public_key, self.names[s], s > 0) for s, ident in enumerate(self.identities)]
        self.act(self.me, self.session.host(self.salt, self.settings, roster, carry=CARRY))


def test_a_game_that_carries_two_rounds_shows_round_3_on_the_table_the_round_end_and_the_scoresheet():
    async def main():
        model, tv = TableModel(), TableModel()
        t = CarriedTable(Settings(players=4, max_rounds=4, point_limit=None), seed=bytes(32), spectators=1,
                         on_event=model.update, on_watch=tv.update)
        with seated(model, t, tv) as (ui, watch, inp, task):
            await until(lambda: ui.app.is_running, "the app")
            screen = screen_text(ui)
            assert "round 3  turn 1/10" in screen, screen
            assert "round 1 " not in screen, screen
            said = f"It continues game {game_code(CONTINUED)} after 2 rounds, from the scores then: you 5, "
            assert sum(said in line for line in model.log) == 1, list(model.log)
            assert any(line == "Round 3 begins" for line in model.log), list(model.log)
            assert "round 3  turn 1/10" in screen_text(watch)  # the TV view too
            assert table_state(model)["round"] == 3 and table_state(tv, tv=True)["round"] == 3  # the pages' state
            ends = []
            while model.over is None:
                if ui.round_screen:
                    screen = screen_text(ui)
                    ends.append(re.search(r"End of round (\d+)", screen).group(1))
                    if len(ends) == 1:  # the scoresheet: the carried totals after rounds 1-2, then round 3
                        assert re.search(r"^\s*1-2\s+5\s+0\s+12\s+3\s*$", "\n".join(scoresheet(model)), re.M), \
                            scoresheet(model)
                        assert re.search(r"^\s*3\s+\+\d+", "\n".join(scoresheet(model)), re.M), scoresheet(model)
                        state = table_state(model)
                        assert state["round_over"]["round"] == 3 and state["sheet_from"] == 3
                        assert state["carried"] == {"rounds": "1-2", "scores": [5, 0, 12, 3]}
                    inp.send_text(ENTER)
                    await until(lambda: not ui.round_screen, "the round screen to close")
                elif model.asked == "row":
                    inp.send_text("1")
                    await until(lambda: model.asked != "row", "the row taken")
                elif model.asked == "card":
                    turn, rnd, hand = model.turn, model.round, model.hand
                    inp.send_text(str(hand[0]) + ENTER)
                    await until(lambda: (model.turn, model.round, model.hand) != (turn, rnd, hand)
                                or model.asked == "row" or model.over is not None, "the turn to move on")
                    if model.round == 1 and model.turn == 0 and not ui.round_screen:
                        assert "round 4  turn 1/10" in screen_text(ui)
                else:
                    await asyncio.sleep(0.01)
            assert ends == ["3"], ends  # the last round's end is the game over screen
            assert [line.split(":")[0] for line in model.log if " over:" in line] == ["Round 3 over", "Round 4 over"]
            assert any(line.startswith("Game over after 4 rounds.") for line in model.log), list(model.log)
            assert table_state(model)["over"]["rounds"] == 4
            assert [p.score for p in model.players] == [c + sum(r[i] for r in model.sheet)
                                                        for i, c in enumerate(CARRY["scores"])]
            inp.send_text(ENTER)
            await until(lambda: ui.results and time.monotonic() - ui.results_at >= TYPED_AHEAD, "the results")
            assert "GAME OVER" in screen_text(ui)
            inp.send_text(ENTER)
            assert await asyncio.wait_for(task, 30) == "over"
    asyncio.run(main())


def test_a_game_that_carries_nothing_numbers_its_rounds_from_1():
    model = TableModel()
    t = LocalTable(Settings(players=3, max_rounds=2, point_limit=None), seed=bytes(32), on_event=model.update)
    t.start()
    assert model.before == 0 and model.round_no(0) == 1
    assert not any("continues game" in line for line in model.log)
    assert table_state(model)["carried"] is None and table_state(model)["round"] == 1


def test_in_german_the_table_says_runde_3_and_which_game_it_continues():
    i18n.use("de")
    try:
        model = TableModel()
        t = CarriedTable(Settings(players=4, max_rounds=4, point_limit=None), seed=bytes(32), on_event=model.update)
        t.start()
        with create_pipe_input() as inp:
            screen = screen_text(TableApp(model, LocalSeat(t), input=inp, output=SizedOutput()))
        assert "Runde 3" in screen.splitlines()[0], screen
        assert any(line == "Runde 3 beginnt" for line in model.log), list(model.log)
        said = f"Es setzt Spiel {game_code(CONTINUED)} nach 2 Runden fort, mit den Punkten von damals: "
        assert sum(line.startswith(said) for line in model.log) == 1, list(model.log)
        assert re.search(r"^\s*1-2\s+5\s+0\s+12\s+3\s*$", "\n".join(scoresheet(model)), re.M), scoresheet(model)
    finally:
        i18n.use("en")


def carried_fault() -> tuple[TableModel, list[str]]:
    """A carried game (2 rounds before it) where seat 1 signs a PLAY_COMMIT for the game's round 2, turn 4 in its
    round 1, turn 1: the protocol layer's fault names the game's rounds 2 and 1 (the evening's 4 and 3). The table's
    model, and the lines of its log that tell the fault."""
    model = TableModel()
    t = CarriedTable(Settings(players=4, max_rounds=4, point_limit=None), seed=bytes(32), on_event=model.update)
    t.start()
    bob = t.sessions[t.identities[1].peer]
    t.act(t.identities[1].peer, bob._run(lambda: bob.send("PLAY_COMMIT", {"round": 1, "turn": 3,
                                                                            "commit": bytes(32), "state": bytes(32)})))
    return model, [line for line in model.log if "skipping ahead" in line]


def test_a_fault_in_a_carried_game_names_the_evenings_rounds_on_the_table_and_the_pages():
    """Session 33: the protocol layer writes a fault's detail with the game's own round numbers (the record and the
    verifier keep them); what a person reads says the evening's, as the table's status line does."""
    model, said = carried_fault()
    assert said == ["ignored bad data: unexpected: seat 1 (bot1) sent PLAY_COMMIT for round 4, turn 4, skipping ahead of "
                    "its message for round 3, turn 1; it loses its seat (the stand-in plays it from the next step it "
                    "owes) (peer at fault: bot1)"], list(model.log)
    assert "round 4, turn 4" in " ".join(table_state(model)["log"])  # the pages draw the same model


def test_a_fault_in_a_carried_game_names_the_evenings_rounds_in_german_too():
    i18n.use("de")
    try:
        model, said = carried_fault()
        # the frame in German; the protocol layer's detail stays English (i18n.said: a text it does not know), its
        # rounds the evening's
        assert said == ["fehlerhafte Daten ignoriert: unexpected: Platz 1 (bot1) sent PLAY_COMMIT for round 4, turn 4, "
                        "skipping ahead of its message for round 3, turn 1; it loses its seat (the stand-in plays it "
                        "from the next step it owes) (schuld: bot1)"], list(model.log)
    finally:
        i18n.use("en")


def test_the_line_terminal_says_an_aborted_carried_games_fault_with_the_evenings_rounds(capsys):
    """app.output.reporter (the line terminal, headless nodes): a game aborted on a fault that names a round."""
    from dataclasses import dataclass

    from p2pnimmt.app.output import reporter
    from p2pnimmt.protocol.events import Fault, GameAborted

    t = CarriedTable(Settings(players=4, max_rounds=4, point_limit=None), seed=bytes(32))
    t.start()

    @dataclass
    class Seat:  # what the reporter reads of a node: its session (a real one, in its carried game)
        session: object

    fault = Fault(t.identities[2].peer, "state-mismatch", "seat 2 (bot2) committed on a different game state "
                  "(round 1, turn 5)", True)
    reporter()(Seat(t.session), GameAborted(fault))
    out = capsys.readouterr().out
    assert "game aborted: state-mismatch: seat 2 (bot2) committed on a different game state (round 3, turn 5) " \
           "(peer at fault: bot2)" in out, out


def test_verify_says_that_its_report_numbers_a_carried_games_rounds_as_its_record_does(tmp_path, capsys):
    """The verifier's report keeps the game's own round numbers (the TypeScript verifier prints the same lines):
    `p2pnimmt verify` of a carried game's transcript cut short says so, with the evening's number of its round 1."""
    from p2pnimmt.cli import main

    chunks: list[bytes] = []
    t = CarriedTable(Settings(players=4, max_rounds=4, point_limit=None), seed=bytes(32),
                     keep=lambda game_id, identity: chunks.append)
    t.start()
    path = tmp_path / "carried.p2pt"
    path.write_bytes(b"".join(chunks))
    altered = bytearray(b"".join(chunks))
    altered[-10] ^= 1  # the last record altered: FAILED, the report in the game's own round numbers, said so
    path.write_bytes(bytes(altered))
    assert main(["verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert "FAILED at record" in err, err
    assert "(the rounds named here are this game's own, as its record numbers them: it continues a game after 2 " \
           "rounds, so its round 1 is the evening's round 3)" in err, err
    path.write_bytes(b"".join(chunks))  # whole but unfinished: where it stops, in the evening's round numbers
    assert main(["verify", str(path)]) == 3
    out = capsys.readouterr().out
    assert "the game was not finished: it stops in round 3, turn 1" in out, out
