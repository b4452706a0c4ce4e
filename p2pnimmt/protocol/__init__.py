"""The p2pnimmt protocol, sans I/O: what a front or a network layer may use (protocol.md is the spec).

Drive a game with `Session` (feed it wire bytes and intents; it returns
`Outgoing` messages and events); keep what it accepted with a `Journal`
(`TranscriptJournal` writes the transcript); check a transcript with
`verify_transcript`. Everything else in this package is the session's
own parts (inbox, table, slots, steps, deals) and may change.
"""

from .errors import LocalError
from .events import (
    Committed,
    Event,
    Fault,
    GameAborted,
    GameOver,
    GameStarted,
    Outgoing,
    Picked,
    PickNeeded,
    PlayNeeded,
    Revealed,
    RoundEnded,
    RoundStarted,
    RoundVoided,
    RowChoiceNeeded,
    SeatDropped,
    TurnResolved,
)
from .identity import Identity, fingerprint, game_id_for, peer_id
from .journal import Journal
from .phase import Phase, Step
from .session import Session
from .transcript import TranscriptJournal
from .verify import Verdict, verify_transcript

__all__ = [
    "Committed",
    "Event",
    "Fault",
    "GameAborted",
    "GameOver",
    "GameStarted",
    "Identity",
    "Journal",
    "LocalError",
    "Outgoing",
    "Phase",
    "Picked",
    "PickNeeded",
    "PlayNeeded",
    "Revealed",
    "RoundEnded",
    "RoundStarted",
    "RoundVoided",
    "RowChoiceNeeded",
    "SeatDropped",
    "Session",
    "Step",
    "TranscriptJournal",
    "TurnResolved",
    "Verdict",
    "fingerprint",
    "game_id_for",
    "peer_id",
    "verify_transcript",
]
