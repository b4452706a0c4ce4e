"""The UI model, fed by real sessions at an in-memory table (ui.local): statuses, log, round and game end."""

import re

from p2pnimmt.engine import Settings
from p2pnimmt.ui.local import LocalSeat, LocalTable
from p2pnimmt.ui.model import CHOOSING, COMMITTED, ROW, TableModel, heads


def play_through(model: TableModel, seat: LocalSeat, table: LocalTable, prefer_row: bool = False) -> dict:
    seen = {"row": 0, "card": 0}
    while model.over is None:
        assert model.aborted is None
        if model.asked == "card":
            seen["card"] += 1
            card = model.hand[0] if prefer_row else model.hand[-1]
            assert seat.play(card) is None
        elif model.asked == "row":
            seen["row"] += 1
            assert seat.choose_row(3) is None
        else:
            raise AssertionError(f"stuck: asked {model.asked}, phase {table.session.phase}")
    return seen


def test_a_whole_game_updates_the_model():
    model, tv = TableModel(), TableModel()
    table = LocalTable(Settings(players=4, point_limit=30), seed=bytes(32), spectators=1,
                       on_event=model.update, on_watch=tv.update)
    seat = LocalSeat(table)
    table.start()
    assert model.seat == 0 and model.names == ["you", "bot1", "bot2", "bot3"]
    assert model.asked == "card" and len(model.hand) == 10 and list(model.hand) == sorted(model.hand)
    assert all(len(r) == 1 for r in model.rows)
    assert [p.status for p in model.players] == [CHOOSING, COMMITTED, COMMITTED, COMMITTED]
    assert model.waiting_names() == []
    assert tv.spectator and tv.hand == () and tv.rows == model.rows
    seen = play_through(model, seat, table, prefer_row=True)
    assert seen["row"] >= 1  # the lowest card every turn forces row choices
    assert model.over.winners and model.winners()
    assert [p.score for p in model.players] == list(model.over.scores)
    assert len(model.sheet) == model.over.rounds
    assert [sum(col) for col in zip(*model.sheet)] == list(model.over.scores)
    assert any(line.startswith("You choose row 4 with ") and ": take " in line for line in model.log)
    words = "\n".join(model.log) + "\n" + "\n".join(tv.log)
    assert "you chooses" not in words.lower() and "you places" not in words.lower() and "You takes" not in words
    assert not re.search(r"\b1 (bull heads|cards|rounds)\b", words)
    assert any(line.startswith("Game over") for line in model.log)
    assert tv.over == model.over and tv.sheet == model.sheet


def test_takes_speak_of_you_and_of_one_in_the_singular() -> None:
    """'You choose row 3 ...: take 1 card, 1 bull head'; another player 'chooses' and 'places'."""
    from types import SimpleNamespace

    from p2pnimmt.protocol.events import GameStarted, RowChoiceNeeded, TurnResolved

    model = TableModel()
    session = SimpleNamespace(game=None, bots=[False, True])
    model.update(session, GameStarted(("ann", "bob"), 0))
    model.update(session, RowChoiceNeeded(round=0, turn=0, seat=0, card=2))
    rows = ((2,), (10,), (20,), (30,))
    model.update(session, TurnResolved(0, 0, ((0, 2, 2, (21,)), (1, 26, 0, (1, 3, 4, 6, 7))), rows))
    assert model.takes == ["You choose row 3 with 2: take 1 card, 1 bull head",
                           "bob places the 6th card in row 1 with 26: takes 5 cards, 5 bull heads"]
    assert model.log[0] == "Game started: ann, bob (you: seat 1)"


def test_refused_intent_is_a_message_not_an_exception():
    model = TableModel()
    table = LocalTable(Settings(players=2), seed=bytes(32), on_event=model.update)
    seat = LocalSeat(table)
    table.start()
    missing = next(c for c in range(1, 105) if c not in model.hand)
    assert "not in your hand" in seat.play(missing)
    assert "no row" in seat.choose_row(0)
    assert seat.play(model.hand[0]) is None
    assert model.players[0].status in (CHOOSING, ROW)  # resolved (a new turn), or my row to choose


def test_heads():
    assert heads([55, 10, 11, 1]) == 7 + 3 + 5 + 1


def test_the_cards_of_a_turn_are_shown_placed_one_by_one() -> None:
    """shown_rows() walks from the rows before the turn to the rows after it, one placement at a time."""
    from p2pnimmt.engine import Settings
    from p2pnimmt.protocol.events import TurnResolved
    from p2pnimmt.ui.local import LocalTable
    from p2pnimmt.ui.model import TableModel

    model = TableModel()
    turns: list[tuple] = []

    def watch(session, event) -> None:
        model.update(session, event)
        if isinstance(event, TurnResolved):
            turns.append((model.rows_before, model.placing, model.rows))

    table = LocalTable(Settings(players=3, max_rounds=1, point_limit=None), bot="heuristic", seed=bytes(32),
                       on_event=watch)
    table.start()
    while table.session.phase == "turn" or table.session.phase == "deal":
        session = table.session
        if session.seat in session.waiting_for():
            if session.step_now() % 3 == 1:  # a row choice: the cheapest row
                table.act(table.me, session.choose_row(0))
            else:
                table.act(table.me, session.play(min(session.game.round.hands[session.seat])))
        else:
            break
    assert len(turns) == 10
    for before, placing, after in turns:
        model.rows_before, model.placing, model.rows, model.placed = before, placing, after, 0
        assert model.shown_rows() == before
        steps = [model.shown_rows()]
        while model.step_placing():
            steps.append(model.shown_rows())
        assert steps[-1] == after and len(steps) == len(placing) + 1
        for (_seat, card, row, _taken), shown in zip(placing, steps[1:]):
            assert shown[row][-1] == card  # each step puts one more card at the end of its row


def sealed_table():
    """A model at a three-seat sealed game at an in-memory table, its first round dealt: (model, session)."""
    model = TableModel()
    table = LocalTable(Settings(players=3, max_rounds=1, point_limit=None, deal="sealed"), seed=bytes(32),
                       on_event=model.update)
    LocalSeat(table)
    table.start()
    return model, table.session


def test_sealed_deal_verdicts_and_void_rounds_are_told_in_words():
    """The audit's verdict (a non-fatal fault naming the cheat) and a void round reach the log as such, not as
    'ignored bad data'."""
    from p2pnimmt.protocol.events import Fault, RoundVoided

    model, session = sealed_table()
    assert type(session.deal).__name__ == "SealedDeal" and model.asked == "card" and len(model.hand) == 10
    cheat = session.roster[2]
    model.update(session, Fault(cheat, "sealed-play", "the audit of round 1 found seat 2 (bot2) at fault: "
                                "played 7 from position 23, which opens to 9", False))
    model.update(session, RoundVoided(0, "the audit of round 1 found seat 2 (bot2) at fault"))
    assert model.log[-2].startswith("bot2 is at fault: the audit of round 1 found seat 2")
    assert model.log[-1].startswith("Round 1 is void (nobody scores it)")
    model.update(session, Fault(None, "malformed", "bytes from an unknown peer: junk", False))
    assert model.log[-1].startswith("ignored bad data")


def test_a_void_round_says_who_left_from_the_event_not_from_its_words():
    """The seat whose drop voided a round comes with the event (RoundVoided.absent), never out of its English
    words: with words that name another seat, or none, a seat that said bye is still said to have left the game;
    one that vanished gets the protocol's words, whatever seat they name."""
    from p2pnimmt.protocol.events import RoundVoided

    model, session = sealed_table()
    model.left = frozenset({2})
    for words in ("seat 1 (bot1) stopped before sending its card after it shuffled: its layer cannot be removed "
                  "nor its key revealed", "bot2 went home early"):
        model.update(session, RoundVoided(0, words, absent=2))
        assert "bot2 left the game after shuffling the round's cards" in model.log[-1], model.log[-1]
        assert words not in model.log[-1]
    words = "seat 2 (bot2) stopped before sending its card after it shuffled: its layer cannot be removed nor its key "\
        "revealed"
    for absent in (1, None):  # seat 1 did not say bye; None: an audit voided it
        model.update(session, RoundVoided(0, words, absent=absent))
        assert words in model.log[-1] and "left the game" not in model.log[-1], model.log[-1]
