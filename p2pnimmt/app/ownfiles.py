"""What `resume` checks in a peer's own secrets file against its transcript, before anything is replayed or sent.

The secrets file holds what only this seat knows: the card and nonce of each play commitment, its seed
contribution (open deal) or its key and seed (sealed deal) of each round, where it listens (`node`), and a
host's members and its own bots' keys (`lobby`). Each secret is written before the message that commits to it,
so a whole pair of files has a secret for every commitment of ours in the transcript.

- A record that does not decode, or decodes to the wrong shape, is damage: refused, naming the record.
- A secret the transcript can tell again is taken from it: a commitment of ours that we already opened
  (our PLAY_REVEAL, SEED_REVEAL or SEALED_KEYS is in the transcript) needs nothing from the secrets file,
  whatever happened to it. So a file cut short, or damaged in a record of an opened commitment, loses
  nothing.
- A commitment of ours that is still closed needs its secret, and the secret must open it: without it the
  seat cannot play on where it stands (it could only send something else under the same commitment, which
  the others would take for a cheat). Refused, saying which commitment, and that nothing was sent.
- Two or more secrets ahead of the transcript (for steps the transcript has not reached, with no message
  of ours for them) mean the transcript lost messages this seat had sent (a crash leaves at most one: the
  secret written just before its message): resuming would sign other messages under the same sequence
  numbers, so it is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..bots import BOTS
from ..i18n import _, ngettext
from ..protocol.codec import DecodeError
from ..protocol.commitments import NONCE_SIZE, card_value, commitment
from ..protocol.envelope import open_envelope
from ..protocol.messages import is_count, is_hash
from ..protocol.names import is_name
from ..protocol.sealed_deal import sealed_value
from ..protocol.sealed_group import key_pair_from

COMMITS = {"PLAY_COMMIT": "play", "SEED_COMMIT": "seed", "SEALED_SHUFFLE": "sealed"}  # message -> secret kind
OPENS = {"PLAY_REVEAL": "play", "SEED_REVEAL": "seed", "SEALED_KEYS": "sealed"}


class SecretsProblem(ValueError):
    """What is wrong with the secrets file, for a person (the caller names the file)."""


def _host_bot(value: Any) -> bool:
    """One of a host's bots in its `lobby` record (app.host.remember_lobby): its secret key, name and kind."""
    return (isinstance(value, dict) and is_hash(value.get("secret")) and isinstance(value.get("name"), str)
            and is_name(value["name"]) and value.get("kind") in BOTS)


def shape_problem(record: Any) -> str | None:
    """Why one record of a secrets file is not a secret this version writes (None: it is one, or of a kind it
    does not know, which it passes on untouched)."""
    if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
        return "it is not a secrets record (a map with a kind)"
    kind = record["kind"]
    ok = True
    if kind == "play":
        ok = (is_count(record.get("round")) and is_count(record.get("turn")) and is_count(record.get("card"))
              and isinstance(record.get("nonce"), bytes) and len(record["nonce"]) == NONCE_SIZE
              and record.get("auto", True) is True)
    elif kind == "seed":
        ok = is_count(record.get("round")) and is_hash(record.get("contribution")) and is_hash(record.get("nonce"))
    elif kind == "sealed":
        ok = is_count(record.get("round")) and is_hash(record.get("key")) and is_hash(record.get("seed")) \
            and is_hash(record.get("nonce"))
        if ok:
            try:
                key_pair_from(record["key"])
            except ValueError:
                ok = False
    elif kind == "node":
        ok = (record.get("role") in ("player", "spectator") and isinstance(record.get("name"), str)
              and is_count(record.get("listen")) and record.get("listen", 0) < 65536
              and isinstance(record.get("is_host"), bool) and isinstance(record.get("host"), str)
              and is_count(record.get("host_port")) and record.get("host_port", 0) < 65536
              and (record.get("bot") is None or isinstance(record.get("bot"), str)))
    elif kind == "lobby":  # `bots`: the host's own at the table (since session 34; an older lobby has none)
        ok = isinstance(record.get("members"), list) and isinstance(record.get("bots", []), list) \
            and all(_host_bot(bot) for bot in record.get("bots", []))
    return None if ok else f"its {kind!r} record has missing or malformed fields"


def _key(kind: str, body: dict[str, Any]) -> tuple[str, int, int]:
    """The step a secret or a message of ours belongs to: (kind, round, turn; 0 for a round's secret)."""
    return kind, body["round"], body.get("turn", 0) if kind == "play" else 0


def _what(key: tuple[str, int, int]) -> str:
    kind, r, t = key
    if kind == "play":
        return _("the card committed to in round {round}, turn {turn}").format(round=r + 1, turn=t + 1)
    if kind == "seed":
        return _("the seed contribution committed to for round {round}").format(round=r + 1)
    return _("the sealed deal's key and seed committed to for round {round}").format(round=r + 1)


def opens(record: dict[str, Any], commit: bytes, game_id: bytes, seat: int) -> bool:
    """True if the secret `record` opens the commitment `commit` of this seat."""
    kind, r, t = _key(record["kind"], record)
    if kind == "play":
        card, nonce = record["card"], record["nonce"]
        values = [card_value(card)] + [sealed_value(card, p) for p in range(256)] if card < 256 else []
        return any(commitment("play", game_id, r, t, seat, v, nonce) == commit for v in values)
    if kind == "seed":
        return commitment("seed", game_id, r, 0, seat, record["contribution"], record["nonce"]) == commit
    return commitment("sealed", game_id, r, 0, seat, record["key"] + record["seed"], record["nonce"]) == commit


def _told(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """The secret an opening message of ours tells again."""
    if kind == "play":
        told = {"kind": "play", "round": body["round"], "turn": body["turn"], "card": body["card"],
                "nonce": body["nonce"]}
        if body.get("auto") is True:
            told["auto"] = True
        return told
    if kind == "seed":
        return {"kind": "seed", "round": body["round"], "contribution": body["contribution"], "nonce": body["nonce"]}
    return {"kind": "sealed", "round": body["round"], "key": body["key"], "seed": body["seed"], "nonce": body["nonce"]}


@dataclass
class Checked:
    """The secrets to replay with (the file's, then those our transcript tells again), and what was noted."""

    secrets: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)


def check_secrets(records: list[Any], wires: Iterable[bytes], me: bytes, seat: int | None, game_id: bytes | None,
                  position: tuple[int, int]) -> Checked:
    """Check a secrets file's records against our own messages in our transcript (`wires`: every message it
    accepted, in order); SecretsProblem naming what is wrong. `position`: where the transcript stands,
    (round, 0 in its deal or 1 + turn in its turns; 99 past its turns)."""
    for index, record in enumerate(records):
        problem = shape_problem(record)
        if problem:
            raise SecretsProblem(_("has a damaged record {index} (of {n}, from 0): {why}").format(
                index=index, n=len(records), why=problem))
    last: dict[tuple[str, int, int], tuple[int, dict[str, Any]]] = {}  # step -> (record index, its last secret)
    for index, record in enumerate(records):
        if record["kind"] in ("play", "seed", "sealed"):
            last[_key(record["kind"], record)] = (index, record)
    committed: dict[tuple[str, int, int], bytes] = {}
    opened: dict[tuple[str, int, int], dict[str, Any]] = {}
    for wire in wires:
        try:
            env = open_envelope(wire)
        except DecodeError:
            continue  # the transcript was checked: every message in it opens
        if env.sender != me:
            continue
        if env.kind in COMMITS:
            committed[_key(COMMITS[env.kind], env.body)] = env.body["commit"]
        elif env.kind in OPENS:
            opened[_key(OPENS[env.kind], env.body)] = _told(OPENS[env.kind], env.body)
    told = [opened[key] for key in committed if key in opened]
    for key, commit in committed.items():
        if key in opened:
            continue
        assert game_id is not None and seat is not None  # a message of ours in a started game
        found = last.get(key)
        if found is None:
            raise SecretsProblem(_("lacks {what}, which this seat has not opened yet (the file was cut short or "
                                   "damaged)").format(what=_what(key)))
        if not opens(found[1], commit, game_id, seat):
            raise SecretsProblem(_("has a record {index} that does not open {what} (this seat's commitment in the "
                                   "transcript): the file is damaged").format(index=found[0], what=_what(key)))
    ahead = sorted((index, key) for key, (index, _record) in last.items()
                   if key not in committed and _position(key) >= position)
    if len(ahead) >= 2:
        raise SecretsProblem(_("holds secrets for {n} steps the transcript has not reached ({what} the first): the "
                               "transcript lost messages this seat had sent (resuming would sign others in their "
                               "place)").format(n=len(ahead), what=_what(ahead[0][1])))
    notes = []
    lost = sorted(key for key in opened if key in committed and key not in last)
    if lost:
        notes.append(ngettext("lacks {n} secret of commitments this seat had opened: it was taken again from its "
                              "messages in the transcript",
                              "lacks {n} secrets of commitments this seat had opened: they were taken again from its "
                              "messages in the transcript", len(lost)).format(n=len(lost)))
    return Checked(list(records) + told, notes)


def _position(key: tuple[str, int, int]) -> tuple[int, int]:
    kind, r, t = key
    return (r, 1 + t) if kind == "play" else (r, 0)
