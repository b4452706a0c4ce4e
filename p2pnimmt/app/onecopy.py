"""One seat, one process: a resumed seat stops at the first message signed with its key that it did not sign.

A seat's files copied to a second machine and resumed there (a lock on one machine cannot see the other)
make two processes sign as one seat: each signs its own next messages (its own card, nonce, shuffle, vote)
under the same sequence numbers, which the table takes for an equivocation by that seat (protocol.md 8, 12).
A resumed seat knows every message it may hold under its own key: those of its transcript, and those it
signs from now on. Any other message under its key means another process plays this seat (or its transcript
lost messages it had sent, which `resume` otherwise refuses: app.ownfiles). From then on this process takes
nothing more in and signs nothing more: the other copy, if the table took its messages, plays on (the seat
is the table's, not the process's), and this one stops, in one line saying why (app.nodes.finish). Before
this guard a copy that took in the other's commitment crashed when the turn asked it to reveal a card it
never chose (`KeyError` in the turn's step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..protocol.codec import DecodeError
from ..protocol.envelope import Envelope, open_envelope
from ..protocol.events import Event
from ..protocol.session import LocalError, Output, Session


class OneCopySession(Session):
    """A resumed seat's session (see the module's docstring): `other_copy` is the first message under our
    key that we neither replayed nor signed; `on_other_copy()` is called once, when it arrives."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ours: set[bytes] = set()  # every message we replayed or signed (the others' too: a set is cheap)
        self.other_copy: Envelope | None = None
        self.on_other_copy: Callable[[], None] = lambda: None

    def replay(self, wires: Sequence[bytes], secrets: Sequence[dict[str, Any]] = (),
               seen: Callable[[Event], None] | None = None) -> list[Output]:
        self.ours.update(wires)
        return super().replay(wires, secrets, seen)

    def send(self, kind: str, body: dict[str, Any]) -> None:
        if self.other_copy is not None:
            raise LocalError("another process plays this seat: nothing more is signed here")
        before = len(self.journal.messages)
        super().send(kind, body)
        self.ours.update(self.journal.messages[before:])

    def receive(self, wire: bytes, via: bytes | None = None) -> list[Output]:
        if self.other_copy is None and wire not in self.ours:
            try:
                env = open_envelope(wire)
            except DecodeError:
                env = None  # the session's own gates name what is wrong with it
            if env is not None and env.sender == self.me:
                self.other_copy = env
                self.on_other_copy()
        if self.other_copy is not None:
            return []
        return super().receive(wire, via)

    def why_stopped(self) -> str | None:
        """The line a stopped copy ends with, or None while no other copy was seen."""
        env = self.other_copy
        if env is None:
            return None
        return (f"stopped: the table holds a message signed with this seat's key that this process did not sign "
                f"(#{env.seq}, {env.kind}): another process plays this seat from a copy of its files (on another "
                "machine?), or its transcript lost messages it had sent; nothing more is signed here (one seat, "
                "one process: keep a seat's files in one place)")
