"""What the page is sent: the TableModel (and the lobby) as JSON, the full state every time.

The page only draws what is here: bull heads, row totals, the sixth-card danger, which
cards of the turn are placed and who took which row all come from the model and the engine.
"""

from __future__ import annotations

from typing import Any

from ..engine import BULL_HEADS, HAND_SIZE
from ..i18n import language
from ..protocol.identity import fingerprint
from ..ui.lobby import DEALS, POINTS, ROUNDS, VARIANTS
from ..ui.model import DROPPED, TableModel, heads
from ..ui.words import end_text

LOG_LINES = 40


def card(number: int | None) -> list[int] | None:
    """A card as the page draws it: [number, bull heads]."""
    return None if number is None else [number, BULL_HEADS[number]]


def table_state(model: TableModel, *, tv: bool = False) -> dict[str, Any]:
    """The table as `model` holds it; `tv`: the read-only view (no hand, no intents, even from a seated node)."""
    shown = model.shown_rows()
    me = None if tv else model.seat
    placed = list(model.placing[: model.placed])
    last = placed[-1] if placed else None
    turn_cards = [{"seat": seat, "name": model.players[seat].name if seat < len(model.players) else "?",
                   "card": card(c), "row": row, "placed": i < model.placed,
                   "taken": heads(taken) if taken and i < model.placed else None}
                  for i, (seat, c, row, taken) in enumerate(model.placing)]
    over = model.over
    state: dict[str, Any] = {
        "lang": language(),  # the node's language: the page shows its own words in it (table.js: useLang)
        "kind": "table" if model.players else "waiting",
        "view": "tv" if tv or model.seat is None else "seat",
        "me": me,
        "round": model.round_no(model.round),  # the evening's number: a game that carries counts on
        "turn": min(model.turn, HAND_SIZE - 1) + 1,
        "hand_size": HAND_SIZE,
        "rows": [[card(c) for c in row] for row in shown],
        "row_heads": [heads(row) for row in shown],
        "danger": [len(row) >= 5 for row in shown],
        "last_row": last[2] if last is not None else None,
        "turn_cards": turn_cards,
        "placing": model.placed < len(model.placing),
        # `left`: whole seconds on the player's clock when this state was made (None: no clock runs for it),
        # counted down by the page itself until the next state; `away`: the stand-in plays for the seat.
        "players": [{"name": p.name, "bot": p.bot, "status": p.shown_status, "score": p.score, "card": card(p.card),
                     "me": i == me, "away": p.away, "left": model.time_left(i)} for i, p in enumerate(model.players)],
        "clock": model.clock,
        "waiting": model.waiting_names(),
        "takes": list(model.takes),
        "sheet": [list(r) for r in model.sheet],
        "sheet_from": model.round_no(0),  # the number of the sheet's first round
        # a game that carries: the rounds of the game it continues ("1-2") and each seat's total then
        "carried": {"rounds": "1" if model.before == 1 else f"1-{model.before}", "scores": list(model.carried)}
        if model.before else None,
        "round_over": None,
        "over": None,
        "verified": model.verified,
        "aborted": model.aborted,
        "message": None if tv else model.message,
        "log": list(model.log)[-LOG_LINES:],
        "evening": None,
        "rematch": model.rematch or None,
    }
    games, rows = model.evening_table()
    if games:  # the evening's table across rematches: per player games, wins and total points
        state["evening"] = {"games": games, "rows": [{"name": r.name, "games": r.games, "wins": r.wins,
                                                      "points": r.points} for r in rows]}
    if model.round_over is not None and over is None and (model.round == model.round_over[0] or model.turn == 0):
        rnd, penalties, scores = model.round_over
        state["round_over"] = {"round": model.round_no(rnd), "penalties": list(penalties), "scores": list(scores)}
    if over is not None:
        state["over"] = {"rounds": model.before + over.rounds, "scores": list(over.scores), "winners": model.winners()}
    if me is not None:
        state.update({
            "hand": [card(c) for c in model.hand],
            "asked": model.asked,
            "committed": model.committed,
            "my_row_card": card(model.my_row_card),
            "open_cards": [card(c) for c in model.open_cards],
            # `away_me`: our seat is away (the stand-in plays for it) until the person is back (the `present`
            # intent); `dropped_me`: the others dropped our seat, the stand-in plays our hand (the `back` intent).
            "away_me": not model.here,
            "dropped_me": 0 <= me < len(model.players) and model.players[me].status == DROPPED,
        })
    return state


def lobby_state(node, code: str, host_controls: bool) -> dict[str, Any]:
    """The lobby as `node` holds it (members, seats, settings), for the lobby page."""
    players = node.players()
    members = list(node.members.values())
    settings = node.settings
    return {
        "code": code,
        "state": node.lobby_state,
        "seats": node.seats,
        "host_controls": host_controls,
        "players": [{"name": m.name, "fingerprint": fingerprint(m.peer), "bot": m.bot,
                     "me": m.peer == node.identity.peer,
                     "connected": m.peer == node.identity.peer or m.peer in node.linked or node.is_host is False}
                    for m in players],
        "spectators": [m.name for m in members if m.role != "player"],
        "choices": {"variant": list(VARIANTS), "deal": list(DEALS), "points": list(POINTS), "rounds": list(ROUNDS)},
        "settings": None if settings is None else {
            "variant": settings.variant, "deal": settings.deal, "points": settings.point_limit,
            "rounds": settings.max_rounds, "ends": end_text(settings)},
    }
