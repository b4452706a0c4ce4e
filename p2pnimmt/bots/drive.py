"""One adapter from what a session asks of its seat (the "needed" events) to a bot's move on that session."""

from __future__ import annotations

from ..protocol.events import Event, PickNeeded, PlayNeeded, RowChoiceNeeded
from .base import Bot

NEEDED = (PlayNeeded, PickNeeded, RowChoiceNeeded)  # the events that may ask a seat for a move


def bot_move(session, bot: Bot, event: Event) -> list:
    """The session's outputs after `bot` answers what `event` asks of the session's seat; [] if it asks nothing.

    Nothing is asked of a spectator, a dropped seat or an aborted game. The
    session's LocalError (a move it refuses) reaches the caller.
    """
    if session.seat is None or session.phase == "aborted" or session.seat in session.dropped:
        return []
    if isinstance(event, (PlayNeeded, RowChoiceNeeded)) and \
            (session.phase != "turn" or (event.round, event.turn) != (session.round, session.turn)):
        return []  # asked before the game moved on (the seat was dropped then, or a rebuild passed it)
    if isinstance(event, PickNeeded) and (session.game.draft is None or event.round != session.round
                                          or event.pick != session.game.draft.picks):
        return []
    if isinstance(event, PlayNeeded):
        return session.play(bot.choose_card(session.view()))
    if isinstance(event, PickNeeded):
        return session.pick(bot.choose_pick(session.view()))
    if isinstance(event, RowChoiceNeeded) and event.seat == session.seat:
        return session.choose_row(bot.choose_row(session.view(), event.cards))
    return []
