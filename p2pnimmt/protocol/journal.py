"""Where a session writes what it accepts (in order), the faults it sees, and its own secrets."""

from __future__ import annotations

from typing import Any

from .events import Fault


class Journal:
    """An in-memory journal; transcript.TranscriptJournal also turns every record into transcript bytes."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.faults: list[Fault] = []
        self.secrets: list[dict[str, Any]] = []

    def message(self, wire: bytes) -> None:
        self.messages.append(wire)

    def fault(self, fault: Fault) -> None:
        self.faults.append(fault)

    def secret(self, record: dict[str, Any]) -> None:
        self.secrets.append(record)

    def seal(self) -> None:
        """The game is over or aborted: nothing more will be recorded."""

    def hold(self) -> None:
        """Keep what is recorded from now on until the matching `flush` (the session holds over each input)."""

    def flush(self) -> None:
        """Write out what was held since the matching `hold`, in one piece."""

    def write_held(self) -> None:
        """Write out what is held now, in one piece, and go on holding (something is about to be sent)."""
