"""The protocol layer's texts that number a round of their own game (`round 1`: the game's first), each the whole of a
fault's detail or a void round's reason: the one source of their words. The layer writes each from its template here
(str.format: slots.py, steps.py, deal.py, sealed.py, sealed_deal.py), and the fronts, which say the evening's rounds
(engine Game.round_no), renumber exactly these words, never a player's name ("round 2" is a name):
i18n.round_patterns makes its patterns from TEXTS, and the phone page's (web/peer/src/round_texts.ts) are written from
those (web/peer/scripts/gen_round_texts.py). The records and the verifier's report keep the game's own numbers. A
text that says a round and is not here fails tests/peer/test_evening_rounds.py (NOT_RENUMBERED lists the others).

The fields: {who} the seat a text blames (Table.who, who_seat: "seat 1 (NAME)"); {kind} a message's kind; ROUNDS, the
rounds (from 1); {why} the words a check says after a text's own; any other field a whole number. What the session
adds after a detail ("; it loses its seat ...", session.py) may follow any text. carry.out_for_proof's "forfeited in
round N", the evening's number already, is none of them; nor is any line of the verifier's report.
"""

from __future__ import annotations

from typing import Final

ROUNDS: Final = ("round", "last_round")  # the fields that hold a round: the fronts renumber them

# A message out of its sender's order (slots.out_of_place), what a DROP or KEEP names (slots.against_own_word, where),
# each the {problem} of SENT.
SENT: Final = "{who} sent {kind} {problem}"
BEHIND: Final = "for round {round}, turn {turn}, after its message for round {last_round}, turn {last_turn}"
AHEAD: Final = "for round {round}, turn {turn}, skipping ahead of its message for round {last_round}, turn {last_turn}"
WENT_ON: Final = "naming seat {seat} at {where}, after it went on from that seat's message there"
OWN_DROP: Final = "naming seat {seat} at {where}, after its own DROP of that seat there"
WHERE: Final = "round {round}, step {step}"
PLACE: Final = ", place {place}"  # after WHERE, where the step has places

PICK: Final = "{who} sent pick {pick} of round {round}, which is seat {picker}'s"  # slots.check
ROW_OVER: Final = "{who} chose a row for turn {turn} of round {round}, which is over"  # slots.place
SEED_REVEAL: Final = "{who}'s seed reveal for round {round} does not match its commitment"  # deal.py
STATE: Final = "{who} committed on a different game state (round {round}, turn {turn})"  # steps.py

# The sealed deal's (sealed_deal.py): a fault is SEALED of its seat; a shuffle's and an unlock's {why} is what
# sealed.check_shuffle and sealed.after_unlock found, which begins with what they checked.
SEALED: Final = "{who}: {detail}"
SHUFFLE: Final = "its shuffle for round {round}: {why}"
UNLOCK: Final = "its unlock for round {round}: {why}"
SHUFFLE_OUTPUT: Final = "shuffle output"
UNLOCK_OF: Final = "seat {seat}'s unlock"
AUDIT: Final = "the audit of round {round} found {who} at fault: {why}"


def fill(template: str, **parts: str) -> str:
    """`template` with the fields `parts` names replaced by their text (other templates: their fields stay fields)."""
    for name, part in parts.items():
        template = template.replace("{" + name + "}", part)
    return template


# Every text that numbers a round, whole, in the order the fronts try them (the first that matches the whole text).
TEXTS: Final = (
    fill(SENT, problem=BEHIND),
    fill(SENT, problem=AHEAD),
    *(fill(SENT, problem=fill(vote, where=at)) for vote in (WENT_ON, OWN_DROP) for at in (WHERE, WHERE + PLACE)),
    PICK,
    ROW_OVER,
    SEED_REVEAL,
    STATE,
    fill(SEALED, detail=fill(SHUFFLE, why=SHUFFLE_OUTPUT + "{why}")),
    fill(SEALED, detail=fill(UNLOCK, why=UNLOCK_OF + "{why}")),
    AUDIT,
)
