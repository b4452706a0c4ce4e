"""A seated member running a modified client (issue 21 item 7): `p2pnimmt` with one rule broken, for tests only.

    python tests/net/cheat_node.py CHEAT TURN <p2pnimmt arguments...>

CHEAT is one of
- `split`: at turn TURN of round 1 (played once it is linked to every other seat) the seat signs a second
  PLAY_COMMIT (the same seq and prev, another commitment) and sends the real one to its relayer (the seat
  after it, which relays it to the others), then the second one to every other peer it is linked to (who
  mostly have it before the relayed real one, but not always: protocol.md 12 lets the turn's reveals
  decide); then it plays on as if nothing happened (its next messages chain on the real one);
- `split-on`: `split`, and then it signs on above the split on one branch (protocol.md 12, *Above a split
  commit*; the in-memory reproduction is tests/protocol/test_split_fork.py): its second commit opens to the same
  card under another nonce, it reveals on each version (the real reveal to its relayer, the one on the other
  version to every other peer) and at once signs its next message, a PLAY_COMMIT of the next turn, on its real
  reveal alone, sent to every peer; then it signs nothing more (a node on the other version holds its reveal there:
  the message above is a fork to it);
- `pair-above`: at turn TURN of round 1, with its PLAY_REVEAL, it signs two different messages on top of it (its
  PLAY_COMMIT of the next turn on two states), both sent to every peer, and then signs nothing more: an
  equivocation above its commit of a turn no node has decided yet, held unjudged until the turn's reveals are in
  (protocol.md 12, *Above a split commit*), then fatal at every node;
- `hold-reveal`: no rule broken, a slow node: it signs its PLAY_REVEAL of turn TURN of round 1 only once the process
  got SIGUSR1 (the test says when) and it is linked to every other seat (a seat restarted meanwhile links to its
  host before it links here: it learns this node's address there), and then plays on as any node;
- `hold-carried`: `hold-reveal` in the first round of a new start's game (its START carries the scores of the game an
  equivocation ended, protocol.md 12), turn TURN; no hold in any other game (tests/net/test_resume_fork.py holds the
  new game there until the node it tests has seen it running);
- `again-flood`: once its game is over it sends its host TURN `["again", true]` frames at once (an honest node
  sends one per choice of its person), then plays on as any node;
- `ack-to-host`: no rule broken by the message itself: it shows its START_ACK to its host alone (never on another
  link, sent or in an answer to a `heads`), and then plays on as any node: the others must get it from the host;
  TURN is not used;
- `heads-flood`: before its move of turn 3 of round 1 it sends TURN `["heads", []]` frames at once on every link
  (an honest node sends about ten asks a second), then plays on as any node;
- `reveal`: at turn TURN of round 1 its PLAY_REVEAL names another card of its hand than the one it
  committed to, signed as its next message (its chain stays whole);
- `vanish`: when the START comes, the process ends at once in place of signing its START_ACK (as a laptop
  whose lid is shut that moment: no `bye`, the links just close); TURN is not used;
- `leave`: when the START comes, it signs no START_ACK and leaves as Ctrl-C makes it (it says `bye`);
- `host-vanish` (a host): the process ends a moment after it sent its START (no `bye`, the links just close):
  the START is out, but the host takes part in nothing after it;
- `offer-all` (a host): right after its START it offers a new start (protocol.md 14) of a game nobody hosts, holding
  every seat of the START: no seat left out, so it is none; `offer-without-last`: the same, leaving out the last
  seat of the START (the last to join); TURN is not used;
- `offer-mid-game` (a host): right after its own PLAY_COMMIT of turn TURN of round 1 (its game started: it had
  every START_ACK) it offers a new start of a game nobody hosts leaving out the last seat of the START, as if that
  seat's START_ACK had never reached it, and then plays on as any node (red team, session 39);
- `cut`: no rule broken, a network that goes away: as it signs its START_ACK (a spectator: as the START comes),
  every link of the node is cut and it neither dials, nor takes a connection, nor links one whose handshake was
  under way (the ack reaches nobody) until the process gets SIGUSR1 (the test says when its network is back); TURN is not used;
- `keep`: right after its own PLAY_COMMIT of turn TURN of round 1 it signs KEEP(0, 2+3·TURN, s) naming every other
  seat s ("ahead", before anyone voted): it says it went on from every seat's commit there, and passes none on
  (benchmarks/attacks of session 28, keep_stall; tests/net/test_keep_liar_nodes.py);
- `rejoin-flood`: right after its own PLAY_COMMIT of turn 1 of round 1 it signs TURN REJOINs (protocol.md 11.3), each
  for a round of its own far ahead, sent as any message of its own (red team, session 46: each was accepted and
  recorded by every node, nothing bounding them; tests/net/test_rejoin_flood.py);
- `stop`: no rule broken, a node gone mid-game: in place of signing its PLAY_COMMIT of turn TURN of round 1 it
  signs nothing more, and its process ends as soon as what it sent before has left (a few hops of the event loop:
  no `bye`, the links just close);
- `lie`: it signs its START_ACK with a `start` that is not the START's hash (protocol.md 12, "A refused
  START_ACK"; tests/net/test_start_ack_lie.py); TURN is not used;
- `lie-to-some`: it signs two START_ACKs with one seq: the right one goes to the host, a wrong one to every other
  peer, sent or answered to a `heads`, and sent once more to each other seat as it links (the host relays the
  right one to them): an equivocation; TURN is not used;
- `mute`: when the START comes it signs no START_ACK and stays: linked, answering pings and `heads`, relaying the
  others' messages, as a node that is there but never acknowledges (protocol.md 14, "A new start": the host's
  grace); TURN is not used;
- `slow-ack`: no rule broken, a slow honest node (a phone page at 4x CPU throttle, a loaded laptop): it signs its
  START_ACK TURN seconds after the START came, and then plays on as any node;
- `fork`: at turn TURN of round 2 the seat signs two PLAY_REVEALs with one seq, the real one to its relayer (the
  seat after it) and one marked `auto` (the same card and nonce: either one plays the same game) to every other peer:
  an equivocation that is no split commit, fatal where both are held (protocol.md 12, "An equivocation after the
  START": the host starts a new game without the seat that carries the scores; tests/net/test_fork_mid_game.py);
- `carry-host`: the host's first START carries invented scores (as only a new start after an equivocation may:
  protocol.md 12); TURN is not used;
- `silent-relay`: a node that serves the phone page (`--web`) whose relay says its hello to each page's tunnel and
  then passes nothing, either way (session 39's red team: a spectator naming such a relay in its join, listed
  first, had a phone page whose relay left stay there until the others voted it out); TURN is not used;
- `handshake-relay`: a node that serves the phone page (`--web`) whose relay passes, of each page's tunnel, the first
  connection the page dials (its host) up to the end of its handshake (the hello and the auth each way) and then
  nothing more of it, nor a byte of any other connection, and holds that link open for the page (a close from its
  peer is not passed on; session 40's red team: the page, linked to a seat, stayed for as long as the relay held that
  link open, and the others voted it out); TURN is not used;
- `msgless-relay`: the same, but its relay passes every frame (handshakes, pings, heads, probes and their answers,
  lobby frames) except the game's messages (`msg` frames), either way; TURN is not used;
- `probe-liar-relay`: a seated player's node that serves the phone page (`--web`) whose relay passes every frame but
  the `msg`s towards the page (the page's own go on), on every link, its own node's too; and its node answers a
  page's `probe` with a signed heads that lists only the prober's own messages, so the page, which judges its relay
  by the seats' signed answers, finds nothing held that it lacks (red team, session 41); TURN is not used;
- `probe-liar-relay-alone`: the same, and its relay passes the page no other seat's `probed` answer (only those its
  own node signed), so that its own seat's is the only answer the page gets (session 42);
- `probe-deaf`: a seated player's node that plays as any but answers no phone page's `probe` (a node of before
  session 40, or a cheat: session 42's review, where such a seat had a page at a table of three leave every sound
  relay each SERVE_WITHIN, round and round, all game); TURN is not used;
- `other-game-relay`: a node that serves the phone page (`--web`) whose relay's hello to each page's tunnel names
  another game (a fresh id), and passes the rest as an honest relay does (session 42's red team: a page that moved
  to it mid-game took that id for a new game, left its seat for that game's lobby, and waited there, its seat voted
  out);
- `other-host-relay`: a node that serves the phone page (`--web`) whose relay's hello to each page's tunnel names its
  own node's address as the host's, and passes the rest as an honest relay does: the page's dial for its host reaches
  a node of the game whose key is not the host's (session 42's red team: the page took it as its host, and would
  have taken its rematch and new-start offers);
- `stranger-game-relay`: a node that serves the phone page (`--web`) whose relay's hello to each page's tunnel names
  the game and host the environment gives (P2PNIMMT_CHEAT_GAME, hex; P2PNIMMT_CHEAT_HOST, address:port: a stranger's
  game), dials that host for its pages too, and passes the rest as an honest relay does (red team, session 44: two
  such relays led a page mid-game into the stranger's game, where its seat was lost);
- `garbage-relay`: a node that serves the phone page (`--web`) whose relay, right after a page's `join` (passed on
  as it came), puts 25 `["msg", b"garbage"]` frames on that connection towards the host, in the page's name: the
  link's frames are nobody's signed word, so the host blames the page's key (red team, session 41); its relay dials
  from 127.0.0.3 (GARBAGE_RELAY_SOURCE: another machine than the host's, whose own relay dials from 127.0.0.1);
  `oversize-relay`: the same, but what it puts after the join is one signed message of the game too big to be held
  before START (over a cap: the host cuts off the page's key); TURN is not used;
- `lying-lobby` (a host): the last seat to join is its victim: every lobby frame it sends the victim gives every other
  member's `port` wrong (1: nobody listens there), and every frame to any other member gives the victim's `port`
  wrong (each member's signed `where` record it forwards as it came: it cannot forge one); once its game started
  and the victim's too (the victim signed a message after its START_ACK), it cuts its link to the victim and takes
  none from it again (red team, session 40: the host as the only directory of where the players are;
  tests/net/test_lying_lobby.py); `withholding-lobby`: the same, and it leaves out the signed `where` record of each
  member it lies about, and sends no `where` frame of its own (protocol.md 14: what a host could still do in session
  40); `withholding-acks`: the same, its victim the joiner of the lowest peer id, and it never passes the other seats'
  START_ACKs to the victim (the victim's own it passes on: the others start); `withholding-bare`: as
  `withholding-lobby`, and its START carries no record of its own (session 41: a seat's record in its START_ACK must
  not hang on the host's); TURN is not used;
- `where-reflect`: a joiner whose peer id is ground to be above everyone's (every other seat dials it) and whose own
  signed `where` record (its join, its START_ACK, its `where` frames) names the port TURN, another party's (the host's
  listener in tests/net/test_where_reflect.py), at no address of its own (so at the one the host saw it at); it makes
  no reverse link, so the others dial it there again and again, each dial reaching that party under its name (red
  team, session 42: before, the party took each such dial as the dialler's link and closed the dialler's live one);
- `silent-port-relay`, `flood-port-relay`, `http-port-relay`, `junk-hello-relay`, `mute-ws-relay`: a node that
  serves the phone page (`--web`) but names as its `relay` (the lobby's, for pages whose relay left) a port of this
  process on 127.0.0.1 where no p2pnimmt relay is: one that accepts and says nothing, one that writes bytes without
  end, a web server that serves a page of its own (200), a WebSocket that opens and says a first message that is no
  relay's hello, one that opens and says nothing (red team, session 43: a page that moved to one in the lobby waited
  on it for ever); it prints "fake relay at 127.0.0.1:PORT"; TURN is not used;
- `dial-mute-relay`, `dial-refused-relay`: a node that serves the phone page (`--web`) whose relay says a right hello
  to each page's tunnel (its game, its host) and then answers none of the page's DIALs (no OPENED, no CLOSE), or
  answers each with a CLOSE that says the host refused (REFUSED, as when nothing listens there); a page's bytes on
  no channel are dropped (review, session 43: a page that moved to one in the lobby waited on it for ever, or took
  the host for gone and stopped for good); TURN is not used;
- `slow-end`: no rule broken, a busy peer: it ends its side of a link that the other side ended (after its `bye`)
  only TURN tenths of a second later, as a loaded machine may (a node that leaves waits up to BYE_READ for that).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from p2pnimmt.cli import main
from p2pnimmt.net.connection import MSG_PREFIX, Connection
from p2pnimmt.net.lobby import Lobby
from p2pnimmt.net.mesh import Mesh
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.commitments import NONCE_SIZE, card_value, commit_set_digest, commitment
from p2pnimmt.protocol.envelope import Envelope, open_envelope, seal
from p2pnimmt.protocol.events import Event, GameOver, Outgoing, PlayNeeded
from p2pnimmt.protocol.phase import turn_steps
from p2pnimmt.protocol.session import Session

GARBAGE_RELAY_SOURCE = "127.0.0.3"  # where garbage-relay's relay dials from (another machine)


def on_own_messages(handle: Callable[[Node, Session, Envelope, Outgoing], bool]) -> None:
    """Node._send (where every message of the node goes out: a session's outputs, and each message as the session
    signs it, Session.on_signed), with each message of this node's own shown to `handle` (the node, its session, the
    message and the output that carries it) before it goes out: True where `handle` dealt with it (sent it its own
    way, or not at all), False to let it go as any node's."""
    send = Node._send

    def cheat(self: Node, outputs: list) -> None:
        session = self.session
        rest = []
        for item in outputs:
            env = open_envelope(item.wire) if isinstance(item, Outgoing) else None
            if env is None or session is None or env.sender != session.me or not handle(self, session, env, item):
                rest.append(item)
        send(self, rest)

    Node._send = cheat  # type: ignore[method-assign]


def split_commit(turn: int, above: bool = False) -> None:
    move = Node._bot_move
    forged: dict = {}  # `above`: X's second commit and its nonce; once fired, X signs nothing more

    def linked_to_all(self: Node) -> bool:
        session = self.session
        return session is not None and all(peer in self.links for seat, peer in enumerate(session.roster)
                                           if seat != session.seat)

    def play_once_linked(self: Node, event: Event) -> None:
        # The card of the turn it splits is played only once this node is linked to every other seat: a version
        # sent to no seat is seen by none (on a loaded machine the mesh may still be forming at turn TURN: linked
        # to its relayer alone, it sent the other version to nobody, every seat took the real one, and the game
        # went on as if it had not cheated; CI of d159fb4).
        if isinstance(event, PlayNeeded) and (event.round, event.turn) == (0, turn) and not linked_to_all(self):
            asyncio.get_running_loop().call_later(0.05, play_once_linked, self, event)
            return
        move(self, event)

    def send_split(self: Node, real: bytes, other: bytes) -> None:
        """The real message to X's relayer first, then the other to every other peer."""
        session = self.session
        assert session is not None and session.seat is not None
        relayer = session.roster[(session.seat + 1) % session.players]
        links = list(self.links.items())
        for peer, conn in links:
            if peer == relayer:
                conn.send_message(real)
        for peer, conn in links:
            if peer != relayer:
                conn.send_message(other)

    def second_commit(session: Session, env: Envelope) -> bytes:
        if not above:
            return hashlib.sha256(b"the other commitment").digest()
        nonce = forged["nonce"] = hashlib.sha256(b"the other nonce").digest()[:NONCE_SIZE]
        card, _nonce = session.table.plays[(0, turn)]
        return commitment("play", env.game_id, 0, turn, session.seat, card_value(card), nonce)

    def reveal_on_both(self: Node, session: Session, env: Envelope) -> None:
        assert session.identity is not None and session.seat is not None
        other = forged["other"]
        commits = session.slot("PLAY_COMMIT", 0, turn)
        on_other = commit_set_digest([other.hash if seat == session.seat else commits[seat].hash
                                      for seat in range(session.players)])
        reveal = seal(session.identity, env.game_id, env.seq, other.hash, env.kind,
                      {**env.body, "nonce": forged["nonce"], "commits": on_other})
        next_commit = seal(session.identity, env.game_id, env.seq + 1, env.hash, "PLAY_COMMIT",
                           {"round": 0, "turn": turn + 1, "commit": hashlib.sha256(b"next card").digest(),
                            "state": hashlib.sha256(b"a state").digest()})
        print(f"cheat: a reveal on each version, and #{next_commit.seq} on the real one to every peer", flush=True)
        send_split(self, env.wire, reveal.wire)
        for conn in list(self.links.values()):
            conn.send_message(next_commit.wire)
        forged["fired"] = True

    def split(self: Node, session: Session, env: Envelope, item: Outgoing) -> bool:
        if forged.get("fired"):
            return True  # `above`: it signs nothing more
        if above and "other" in forged and env.kind == "PLAY_REVEAL" \
                and (env.body["round"], env.body["turn"]) == (0, turn):
            reveal_on_both(self, session, env)
            return True
        if env.kind != "PLAY_COMMIT" or (env.body["round"], env.body["turn"]) != (0, turn):
            return False
        assert session.identity is not None and session.seat is not None
        other = forged["other"] = seal(session.identity, env.game_id, env.seq, env.prev, env.kind,
                                       {**env.body, "commit": second_commit(session, env)})
        seats = sorted(session.roster.index(peer) for peer in self.links if peer in session.roster)
        print(f"cheat: two commits for turn {turn + 1}, #{env.seq}, linked to seats {seats}", flush=True)
        send_split(self, item.wire, other.wire)
        return True

    on_own_messages(split)
    Node._bot_move = play_once_linked  # type: ignore[method-assign]


def fork_a_reveal(turn: int) -> None:
    def fork(self: Node, session: Session, env: Envelope, item: Outgoing) -> bool:
        if env.kind != "PLAY_REVEAL" or (env.body["round"], env.body["turn"]) != (1, turn):
            return False
        assert session.identity is not None and session.seat is not None
        other = seal(session.identity, env.game_id, env.seq, env.prev, env.kind, {**env.body, "auto": True})
        relayer = session.roster[(session.seat + 1) % session.players]
        print(f"cheat: two reveals for round 2, turn {turn + 1}, #{env.seq}", flush=True)
        for peer, conn in list(self.links.items()):
            conn.send_message(item.wire if peer == relayer else other.wire)
        return True

    on_own_messages(fork)


def pair_above(turn: int) -> None:
    fired = [False]

    def pair(self: Node, session: Session, env: Envelope, item: Outgoing) -> bool:
        if fired[0]:
            return True  # it signs nothing more
        if env.kind != "PLAY_REVEAL" or (env.body["round"], env.body["turn"]) != (0, turn):
            return False
        assert session.identity is not None
        pair = [seal(session.identity, env.game_id, env.seq + 1, env.hash, "PLAY_COMMIT",
                     {"round": 0, "turn": turn + 1, "commit": hashlib.sha256(b"next card").digest(),
                      "state": hashlib.sha256(state).digest()}) for state in (b"a state", b"another")]
        print(f"cheat: two messages #{env.seq + 1} above its reveal of turn {turn + 1}", flush=True)
        for conn in list(self.links.values()):
            for wire in (env.wire, pair[0].wire, pair[1].wire):
                conn.send_message(wire)
        fired[0] = True
        return True

    on_own_messages(pair)


def the_node() -> list[Node]:
    """This process's node, once it has fed its first outputs: a cheat that signs later acts through it (the first;
    the nodes of the evening's later games follow it in the list, each once it has fed its first outputs)."""
    feed = Node._feed
    nodes: list[Node] = []

    def keep(self: Node, outputs: list) -> None:
        if self not in nodes:
            nodes.append(self)
        feed(self, outputs)

    Node._feed = keep  # type: ignore[method-assign]
    return nodes


def hold_reveal(turn: int, carried: bool = False) -> None:
    """`hold-reveal`; `carried`: `hold-carried`, the hold in the first round of a new start's game (its START carries
    the scores of a game an equivocation ended), none in any other game."""
    send = Session.send
    nodes = the_node()
    held = [True, False]  # the reveal is held, said so

    def release(session: Session) -> None:
        node = next(node for node in nodes if node.session is session)  # the node of the game it holds
        if not all(peer in node.links for peer in session.roster if peer != session.me):
            asyncio.get_running_loop().call_later(0.05, release, session)  # a seat restarted: once linked again
            return
        held[0] = False
        print("cheat: signs its reveal now", flush=True)
        node.act(session._run(session._advance))  # a pass of the steps: the reveal owed is signed

    def holds_in(session: Session) -> bool:
        """The hold is in this game: any, or (`carried`) one whose START carries scores (its rounds are counted
        from 0 as any game's: the carried ones are not played)."""
        return not carried or session.start is not None and "carry" in session.start.body

    def cheat(self: Session, kind: str, body: dict) -> None:
        if kind != "PLAY_REVEAL" or (body["round"], body["turn"]) != (0, turn) or not held[0] or not holds_in(self):
            send(self, kind, body)
            return
        if not held[1]:
            held[1] = True
            loop = asyncio.get_running_loop()
            signal.signal(signal.SIGUSR1, lambda _signal, _frame: loop.call_soon_threadsafe(release, self))
            print(f"cheat: holds its reveal of turn {turn + 1}", flush=True)

    Session.send = cheat  # type: ignore[method-assign]


def again_flood(times: int) -> None:
    event = Node._event

    def cheat(self: Node, what: Event) -> None:
        event(self, what)
        host = self.links.get(self.host_peer) if self.host_peer is not None else None
        if isinstance(what, GameOver) and host is not None:
            print(f"cheat: {times} again frames to the host", flush=True)
            for _ in range(times):
                host.send_nowait("again", True)

    Node._event = cheat  # type: ignore[method-assign]


def ack_to_host_alone() -> None:
    send_message = Connection.send_message
    only: dict[bytes, bytes] = {}  # our START_ACK -> the host's peer id

    def note(self: Node, session: Session, env: Envelope, item: Outgoing) -> bool:
        if env.kind == "START_ACK" and session.start is not None and env.wire not in only:
            only[env.wire] = session.start.sender
            print("cheat: shows its START_ACK to the host alone", flush=True)
        return False  # it goes out as any node's: `send` keeps it from every link but the host's

    def send(self: Connection, wire: bytes, framed: bytes | None = None, later: bool = False) -> None:  # sent, or
        if wire in only and self.peer != only[wire]:  # asked for (heads)
            return
        send_message(self, wire, framed, later)

    on_own_messages(note)
    Connection.send_message = send  # type: ignore[method-assign]


def heads_flood(times: int) -> None:
    move = Node._bot_move
    done = [False]

    def cheat(self: Node, event: Event) -> None:
        if isinstance(event, PlayNeeded) and (event.round, event.turn) == (0, 2) and not done[0]:
            done[0] = True
            print(f"cheat: {times} heads frames on each of {len(self.links)} links", flush=True)
            for conn in list(self.links.values()):
                for _ in range(times):
                    conn.send_nowait("heads", [])
        move(self, event)

    Node._bot_move = cheat  # type: ignore[method-assign]


def reveal_another_card(turn: int) -> None:
    send = Session.send

    def cheat(self: Session, kind: str, body: dict) -> None:
        if kind == "PLAY_REVEAL" and (body["round"], body["turn"]) == (0, turn) and not self.table.replaying:
            hand = sorted(self.game.round.hands[self.seat])
            body = {**body, "card": next(c for c in hand if c != body["card"])}
            print(f"cheat: revealed {body['card']} in turn {turn + 1}, not the card committed to", flush=True)
        send(self, kind, body)

    Session.send = cheat  # type: ignore[method-assign]


def keep_ahead(turn: int) -> None:
    send = Session.send

    def cheat(self: Session, kind: str, body: dict) -> None:
        send(self, kind, body)
        if kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (0, turn) and not self.table.replaying:
            for seat in range(self.players):
                if seat != self.seat:
                    send(self, "KEEP", {"round": 0, "step": turn_steps(turn)[0], "seat": seat})
            print(f"cheat: KEEP for every other seat's commit of turn {turn + 1}", flush=True)

    Session.send = cheat  # type: ignore[method-assign]


def rejoin_flood(times: int) -> None:
    send = Session.send

    def cheat(self: Session, kind: str, body: dict) -> None:
        send(self, kind, body)
        if kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (0, 0) and not self.table.replaying:
            for asked in range(times):  # each its own slot (a round far ahead), so each is a new message
                send(self, "REJOIN", {"round": 1000 + asked})
            print(f"cheat: signed {times} REJOINs", flush=True)

    Session.send = cheat  # type: ignore[method-assign]


def stop_at_commit(turn: int) -> None:
    send = Session.send
    gone = False

    def end(hops: int) -> None:
        # What the node sent before left at once (its own messages: Node._feed); a few hops of the loop let what is
        # called soon leave too before the process ends (relays waiting for their link's next write are lost with
        # it, as with any node gone).
        if hops:
            asyncio.get_running_loop().call_soon(end, hops - 1)
        else:
            os._exit(0)

    def cheat(self: Session, kind: str, body: dict) -> None:
        nonlocal gone
        if gone:
            return
        if kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (0, turn) and not self.table.replaying:
            print(f"cheat: gone before its commit of turn {turn + 1}", flush=True)
            gone = True
            end(3)
            return
        send(self, kind, body)

    Session.send = cheat  # type: ignore[method-assign]


def gone_before_start(vanish: bool) -> None:
    send = Session.send

    def cheat(self: Session, kind: str, body: dict) -> None:
        if kind != "START_ACK":
            send(self, kind, body)
            return
        print("cheat: gone before its START_ACK", flush=True)
        if vanish:
            os._exit(0)
        signal.raise_signal(signal.SIGINT)  # Ctrl-C: the node leaves, saying bye; no START_ACK signed

    Session.send = cheat  # type: ignore[method-assign]


def mute_after_start() -> None:
    send = Session.send
    said = [False]

    def cheat(self: Session, kind: str, body: dict) -> None:
        if kind != "START_ACK":
            send(self, kind, body)
            return
        if not said[0]:
            said[0] = True
            print("cheat: linked, and silent after the START", flush=True)

    Session.send = cheat  # type: ignore[method-assign]


def slow_start_ack(seconds: int) -> None:
    send = Session.send
    nodes = the_node()
    due = [False, False]  # the START_ACK may be signed now, its timer is set

    def sign_now(session: Session) -> None:
        due[0] = True
        print("cheat: signs its START_ACK now", flush=True)
        nodes[0].act(session._run(session._advance))  # a pass of the steps: the START_ACK owed is signed

    def cheat(self: Session, kind: str, body: dict) -> None:
        if kind != "START_ACK" or due[0]:
            send(self, kind, body)
            return
        if not due[1]:
            due[1] = True
            print(f"cheat: a slow node, its START_ACK comes in {seconds} s", flush=True)
            asyncio.get_running_loop().call_later(seconds, sign_now, self)

    Session.send = cheat  # type: ignore[method-assign]


def lie_in_start_ack() -> None:
    send = Session.send

    def cheat(self: Session, kind: str, body: dict) -> None:
        if kind == "START_ACK":
            body = {**body, "start": hashlib.sha256(b"another START").digest()}
            print("cheat: signed a START_ACK of another START", flush=True)
        send(self, kind, body)

    Session.send = cheat  # type: ignore[method-assign]


def lie_to_some() -> None:
    send_message = Connection.send_message
    swap: dict[bytes, tuple[bytes, bytes]] = {}  # our right START_ACK -> (the wrong one, the host's peer id)

    async def show_the_others(self: Node, right: bytes) -> None:
        # the host relays our right one to the others: each other seat is shown the wrong one too, once linked
        wrong, host = swap[right]
        shown: set[bytes] = set()
        while self.session is not None and len(shown) < len(self.session.roster) - 2:
            for peer, conn in list(self.links.items()):
                if peer not in shown and peer != host and peer in self.session.roster:
                    shown.add(peer)
                    conn.send_nowait("msg", wrong)
            await asyncio.sleep(0.01)

    def lie(self: Node, session: Session, env: Envelope, item: Outgoing) -> bool:
        if env.kind == "START_ACK":
            assert session.identity is not None and session.start is not None
            wrong = seal(session.identity, env.game_id, env.seq, env.prev, "START_ACK", {"start": bytes(32)})
            swap[env.wire] = (wrong.wire, session.start.sender)
            self.spawn(show_the_others(self, env.wire))
            print("cheat: signed a right START_ACK for the host and a wrong one for the others", flush=True)
        return False  # it goes out as any node's: `send` shows the others the wrong one

    def send(self: Connection, wire: bytes, framed: bytes | None = None, later: bool = False) -> None:  # sent, or
        if wire in swap and self.peer != swap[wire][1]:  # asked for (heads)
            wire, framed = swap[wire][0], None
        send_message(self, wire, framed, later)

    on_own_messages(lie)
    Connection.send_message = send  # type: ignore[method-assign]


def host_with_a_carry() -> None:
    """`carry-host`: the host's first START carries invented scores (another game's id, one round, 0 for itself and
    50 for every other seat), as a new start after an equivocation does (protocol.md 9, `carry`)."""
    host = Session.host

    def cheat(self: Session, salt, settings, roster, previous=None, carry=None):  # type: ignore[no-untyped-def]
        mine = self.identity.public_key if self.identity is not None else None
        carry = {"game": os.urandom(16), "rounds": 1, "scores": [0 if key == mine else 50 for key, _, _ in roster]}
        print("cheat: a START that carries invented scores", flush=True)
        return host(self, salt, settings, roster, previous, carry)

    Session.host = cheat  # type: ignore[method-assign]


def host_gone_after_start() -> None:
    start = Lobby.start

    def cheat(self: Lobby) -> None:
        start(self)  # the START and the lobby's last frame are queued on every link
        print("cheat: the host is gone after its START", flush=True)
        asyncio.get_running_loop().call_later(0.3, os._exit, 0)  # time for the queued frames to leave

    Lobby.start = cheat  # type: ignore[method-assign]


def offer_anew_at_start(leave_out_last: bool) -> None:
    start = Lobby.start

    def cheat(self: Lobby) -> None:
        start(self)
        node = self.node
        keys = [seat["key"] for seat in node.session.start.body["roster"]]
        node.rematch.offer_to_all(os.urandom(16), node.port, keys[:-1] if leave_out_last else keys, 60)
        print(f"cheat: offered a new start of {len(keys) - leave_out_last} of {len(keys)} seats", flush=True)

    Lobby.start = cheat  # type: ignore[method-assign]


def offer_mid_game(turn: int) -> None:
    send = Session.send
    nodes = the_node()

    def cheat(self: Session, kind: str, body: dict) -> None:
        send(self, kind, body)
        if kind == "PLAY_COMMIT" and (body["round"], body["turn"]) == (0, turn) and not self.table.replaying:
            keys = [seat["key"] for seat in self.start.body["roster"]]
            node = nodes[0]
            node.rematch.offer_to_all(os.urandom(16), node.port, keys[:-1], 60)
            print(f"cheat: offered a new start without the last seat at its commit of turn {turn + 1}", flush=True)

    Session.send = cheat  # type: ignore[method-assign]


def cut_at_start_ack() -> None:
    send, dial, accepted, link = Node._send, Mesh.dial, Mesh.accepted, Mesh.link
    cut = [False, False]  # cut now, cut once already

    def back(_signal: int, _frame: object) -> None:
        cut[0] = False
        print("cheat: its network is back", flush=True)

    signal.signal(signal.SIGUSR1, back)

    def cheat(self: Node, outputs: list) -> None:
        session = self.session
        watching = session is not None and session.seat is None and session.start is not None  # a spectator's START
        if not cut[1] and (watching or any(isinstance(item, Outgoing) and open_envelope(item.wire).kind == "START_ACK"
                                           and open_envelope(item.wire).sender == self.identity.peer
                                           for item in outputs)):
            cut[0] = cut[1] = True
            print("cheat: cut off as the START came" if watching else "cheat: cut off as it signed its START_ACK",
                  flush=True)
            for conn in list(self.links.values()):
                conn.writer.transport.abort()  # the ack below goes nowhere
        send(self, outputs)

    async def dial_when_back(self: Mesh, host: str, port: int, expect: bytes | None = None):
        while cut[0]:
            await asyncio.sleep(0.05)
        return await dial(self, host, port, expect)

    async def accept_when_back(self: Mesh, reader, writer) -> None:
        if cut[0]:
            writer.transport.abort()
            return
        await accepted(self, reader, writer)

    def link_when_back(self: Mesh, conn: Connection) -> None:
        if cut[0]:  # a handshake under way as the cut came (a dial or an accept begun before it): cut too, never
            conn.writer.transport.abort()  # given our heads (which would bring the peer to ask for the ack)
            return
        link(self, conn)

    Node._send = cheat  # type: ignore[method-assign]  (every message goes out there: Node._feed, Session.on_signed)
    Mesh.dial = dial_when_back  # type: ignore[method-assign]
    Mesh.accepted = accept_when_back  # type: ignore[method-assign]
    Mesh.link = link_when_back  # type: ignore[method-assign]


def slow_end(tenths: int) -> None:
    close = Connection.close
    slowed: set[int] = set()

    def cheat(self: Connection) -> None:
        if self.peer_ended and not self.closed and id(self) not in slowed:
            slowed.add(id(self))
            asyncio.get_running_loop().call_later(tenths / 10, close, self)
            return
        close(self)

    Connection.close = cheat  # type: ignore[method-assign]


def port_relay(kind: str) -> None:
    """`kind`'s service on a port of 127.0.0.1 (the module's doc: `silent-port-relay` and the others), named as this
    node's relay; each connection served by a thread of its own (the node's loop is not involved)."""
    import base64
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def upgraded(conn: socket.socket) -> None:  # the WebSocket handshake answered (RFC 6455, 4.2.2)
        request = b""
        while b"\r\n\r\n" not in request and len(request) < 65536:
            got = conn.recv(4096)
            if not got:
                return
            request += got
        key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
                   if line.lower().startswith(b"sec-websocket-key:"))
        accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                if kind == "flood-port-relay":
                    chunk = b"x" * 65536
                    while True:
                        conn.sendall(chunk)
                if kind == "http-port-relay":
                    conn.recv(65536)
                    page = b"<html><body>printer ready</body></html>"
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s"
                                 % (len(page), page))
                if kind in ("junk-hello-relay", "mute-ws-relay"):
                    upgraded(conn)
                if kind == "junk-hello-relay":
                    text = b'{"hello": "world"}'
                    conn.sendall(bytes([0x81, len(text)]) + text)
                while conn.recv(65536):  # (silent: whatever comes is read and dropped, until the page goes)
                    pass
            except OSError:
                pass

    def accept() -> None:
        while True:
            conn, _ = server.accept()
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    print(f"fake relay at 127.0.0.1:{port}", flush=True)
    offer = Node.offer_relay

    def fake(self: Node, relay: tuple[str, int, str]) -> None:
        offer(self, (relay[0], port, relay[2]))

    Node.offer_relay = fake  # type: ignore[method-assign]


def silent_relay() -> None:
    from p2pnimmt.web.relay import Tunnel

    async def nothing_on(self: Tunnel, data: bytes) -> None:  # the page's dials and bytes: dropped
        return None

    async def nothing_in(self: Tunnel, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.transport.abort()  # a peer dialling the page's port here: never passed on

    Tunnel.on_message = nothing_on  # type: ignore[method-assign]
    Tunnel.accepted = nothing_in  # type: ignore[method-assign]


def dial_relay(refused: bool) -> None:
    from p2pnimmt.web.relay import CLOSE, REFUSED, Tunnel

    async def dial(self: Tunnel, channel: int, rest: bytes) -> None:
        if refused:
            await self.tell(CLOSE, channel, f"{REFUSED} nothing listens there (a lie)".encode())

    Tunnel.dial = dial  # type: ignore[method-assign]


def filtering_relay(keep: Callable[[object, int, bool, int, bytes], bool]) -> None:
    """The phone relay (web/relay.py: Tunnel), passing of each connection only the whole frames `keep(tunnel,
    channel, up, index, frame)` is true for: `up` the page's way out, `index` the frame's place on that way (0: the
    hello, 1: the auth), `frame` its msgpack bytes."""
    from p2pnimmt.web.relay import DATA, Tunnel

    on_message, tell = Tunnel.on_message, Tunnel.tell
    streams: dict[tuple[int, int, bool], list] = {}  # (tunnel, channel, way): [bytes of a frame to come, frames]

    def kept(tunnel: Tunnel, channel: int, up: bool, data: bytes) -> bytes:
        stream = streams.setdefault((id(tunnel), channel, up), [b"", 0])
        stream[0] += data
        out = b""
        while len(stream[0]) >= 4 and len(stream[0]) >= 4 + (size := int.from_bytes(stream[0][:4], "big")):
            whole, stream[0] = stream[0][:4 + size], stream[0][4 + size:]
            if keep(tunnel, channel, up, stream[1], whole[4:]):
                out += whole
            stream[1] += 1
        return out

    async def from_page(self: Tunnel, data: bytes) -> None:
        if data[:1] == bytes([DATA]) and len(data) >= 5:
            rest = kept(self, int.from_bytes(data[1:5], "big"), True, data[5:])
            if not rest:
                return
            data = data[:5] + rest
        await on_message(self, data)

    async def to_page(self: Tunnel, op: int, channel: int, rest: bytes = b"") -> None:
        if op == DATA:
            rest = kept(self, channel, False, rest)
            if not rest:
                return
        await tell(self, op, channel, rest)

    Tunnel.on_message = from_page  # type: ignore[method-assign]
    Tunnel.tell = to_page  # type: ignore[method-assign]


def handshake_relay() -> None:
    from p2pnimmt.web.relay import CLOSE, Tunnel

    first: dict[int, int] = {}  # each tunnel's first connection with bytes on it, either way (the host's hello)

    def keep(tunnel: object, channel: int, up: bool, index: int, data: bytes) -> bool:
        return first.setdefault(id(tunnel), channel) == channel and index < 2

    filtering_relay(keep)
    tell = Tunnel.tell

    async def held_open(self: Tunnel, op: int, channel: int, rest: bytes = b"") -> None:
        if op == CLOSE and first.get(id(self)) == channel:
            return  # the peer closed that link (it heard nothing more from the page): the page is not told
        await tell(self, op, channel, rest)

    Tunnel.tell = held_open  # type: ignore[method-assign]


def msgless_relay() -> None:
    filtering_relay(lambda _tunnel, _channel, _up, _index, data: not data.startswith(MSG_PREFIX))


PROBED_PREFIX = b"\x92\xa6probed"  # msgpack of a 2-array and the str "probed": how a probe's answer begins


def probe_liar_relay(alone: bool = False) -> None:
    """A seat whose relay withholds the game from its page and whose node's signed probe answers say it holds
    nothing the page lacks: only the prober's own messages (their true count, so the page sees none of its own
    lost). `alone`: its relay passes the page no other seat's answer either (only those its own node signed)."""
    from p2pnimmt.net import frames, mesh
    from p2pnimmt.protocol.codec import decode

    signed: set[bytes] = set()  # the probe nonces our own node answered

    def keep(_tunnel: object, _channel: int, up: bool, _index: int, data: bytes) -> bool:
        if up:
            return True
        if alone and data.startswith(PROBED_PREFIX):
            payload = decode(data)[1]
            return isinstance(payload, list) and bool(payload) and payload[0] in signed
        return not data.startswith(MSG_PREFIX)

    filtering_relay(keep)
    answer, on_frame = frames.probe_answer, frames.on_frame
    prober: list[bytes] = []  # the peer whose probe is being answered

    def lying(identity, game_id, nonces, nonce, heads):  # (net.frames answers each probe with it)
        signed.add(nonce)
        return answer(identity, game_id, nonces, nonce, [h for h in heads if prober and h[0] == prober[0]])

    def noting(node, conn, kind, payload):  # (net.mesh hands each frame of a link to it)
        prober[:] = [conn.peer] if kind == "probe" else []
        return on_frame(node, conn, kind, payload)

    frames.probe_answer = lying  # type: ignore[assignment]
    mesh.on_frame = noting  # type: ignore[assignment]


def probe_deaf() -> None:
    """A node that answers no `probe` (every other frame handled as any node does)."""
    from p2pnimmt.net import mesh

    on_frame = mesh.on_frame

    unanswered = [0]

    def deaf(node, conn, kind, payload):  # (net.mesh hands each frame of a link to it)
        if kind != "probe":
            return on_frame(node, conn, kind, payload)
        unanswered[0] += 1
        if unanswered[0] == 1:
            print("cheat: a probe unanswered (and every one after it)", flush=True)
        return None

    mesh.on_frame = deaf  # type: ignore[assignment]


def garbage_relay(oversize: bool = False) -> None:
    from p2pnimmt.net.connection import frame
    from p2pnimmt.protocol.envelope import NO_PREVIOUS
    from p2pnimmt.protocol.identity import Identity
    from p2pnimmt.protocol.inbox import MAX_HELD_WIRE
    from p2pnimmt.web import relay
    from p2pnimmt.web.relay import DATA, Tunnel

    class Elsewhere:  # the relay's asyncio, whose dials leave from another address: the relay is another machine
        def __getattr__(self, name: str) -> Any:
            return getattr(asyncio, name)

        @staticmethod
        def open_connection(host: str, port: int, **kwargs: Any) -> Any:
            return asyncio.open_connection(host, port, local_addr=(GARBAGE_RELAY_SOURCE, 0), **kwargs)

    relay.asyncio = Elsewhere()  # type: ignore[assignment]

    on_message = Tunnel.on_message
    join = frame(["join", {}])[4:6]  # a join frame's msgpack begins [, "join" (fixarray 2, fixstr 4)

    def garbage(tunnel: Tunnel) -> bytes:
        node = tunnel.relay.node()
        if not oversize or node is None or node.game_id is None:
            return frame(["msg", b"garbage"]) * 25
        big = seal(Identity.generate(), node.game_id, 0, NO_PREVIOUS, "PLAY_COMMIT", {"pad": bytes(MAX_HELD_WIRE)})
        return frame(["msg", big.wire])  # signed, of this game, one too big to hold before START: a cap

    async def after_joins(self: Tunnel, data: bytes) -> None:
        if data[:1] == bytes([DATA]) and join + b"join" in data[5:]:
            data += garbage(self)
            print("cheat: garbage after a page's join", flush=True)
        await on_message(self, data)

    Tunnel.on_message = after_joins  # type: ignore[method-assign]


def other_game_relay() -> None:
    """A relay whose hello to each page's tunnel names another game (a fresh id each time), and passes the rest."""
    import json
    import os

    from p2pnimmt.web import relay

    dumps = json.dumps

    def lying(value: object, **kwargs) -> str:
        if isinstance(value, dict) and "game" in value:
            value = {**value, "game": os.urandom(16).hex()}
            print("cheat: a hello naming another game", flush=True)
        return dumps(value, **kwargs)

    relay.json = type("LyingJson", (), {"dumps": staticmethod(lying), "loads": staticmethod(json.loads)})  # type: ignore[assignment]


def stranger_game_relay() -> None:
    """A relay whose hello names the stranger's game and host (P2PNIMMT_CHEAT_GAME, P2PNIMMT_CHEAT_HOST), which it
    dials for its pages too, and passes the rest."""
    import json
    import os

    from p2pnimmt.web import relay

    dumps, allowed = json.dumps, relay.Relay.allowed
    address, port = os.environ["P2PNIMMT_CHEAT_HOST"].rsplit(":", 1)
    stranger = (address, int(port))

    def lying(value: object, **kwargs) -> str:
        if isinstance(value, dict) and "game" in value:
            value = {**value, "game": os.environ["P2PNIMMT_CHEAT_GAME"], "host": list(stranger)}
            print("cheat: a hello naming the stranger's game", flush=True)
        return dumps(value, **kwargs)

    def dialable(self: relay.Relay) -> set[tuple[str, int]]:
        return allowed(self) | {stranger}

    relay.json = type("LyingJson", (), {"dumps": staticmethod(lying), "loads": staticmethod(json.loads)})  # type: ignore[assignment]
    relay.Relay.allowed = dialable  # type: ignore[method-assign]


def other_host_relay() -> None:
    """A relay whose hello to each page's tunnel names, as where the game's host listens, this node's own address (a
    node of the same game, its key another than the host's), and passes the rest: the page's dial for its host reaches
    this node, which answers the handshake with the game's id (session 42's red team)."""
    import json

    from p2pnimmt.web import relay

    dumps, host_address = json.dumps, relay.Relay.host_address
    own: list[list] = []  # this node's address, as the last hello's host_address call worked it out

    def ours(self: relay.Relay, node: Node) -> tuple[str, int]:
        interface = self.interface if self.interface not in ("", "0.0.0.0", "::") else "127.0.0.1"
        own[:] = [[node.interface or interface, node.port]]
        return host_address(self, node)

    def lying(value: object, **kwargs) -> str:
        if isinstance(value, dict) and "host" in value and own:
            value = {**value, "host": own[0]}
            print("cheat: a hello naming this node as the host", flush=True)
        return dumps(value, **kwargs)

    allowed = relay.Relay.allowed

    def dialable(self: relay.Relay) -> set[tuple[str, int]]:  # its own node too, where the page dials its "host"
        return allowed(self) | {(str(own[0][0]), int(own[0][1]))} if own else allowed(self)

    relay.Relay.host_address = ours  # type: ignore[method-assign]
    relay.Relay.allowed = dialable  # type: ignore[method-assign]
    relay.json = type("LyingJson", (), {"dumps": staticmethod(lying), "loads": staticmethod(json.loads)})  # type: ignore[assignment]


def lying_lobby(withhold: bool = False, acks: bool = False, bare: bool = False) -> None:
    announce, link = Lobby.announce, Mesh.link
    if bare:  # its START carries no record of its own: were the seats' records to hang on the host's, none would come
        Node._own_record = lambda self: None  # type: ignore[method-assign]
    WRONG = 1  # a port nobody listens on

    def victim_of(node: Node) -> bytes | None:
        players = node.players()
        if not (len(players) == node.seats and len(players) > 1):
            return None
        if acks:  # the joiner of the lowest peer id: only a seat's dial against the usual order reaches it
            return min(p.peer for p in players if p.peer != node.identity.peer)
        return players[-1].peer

    def lie(member: dict) -> dict:
        lied = {**member, "port": WRONG}
        if withhold:
            lied.pop("where", None)
        return lied

    def cheat(self: Lobby, at_once: bool = False, joiner: Connection | None = None) -> None:
        node = self.node
        victim = victim_of(node)
        if victim is None:
            announce(self, at_once, joiner)
            return
        body = self.body()
        for peer, conn in node.links.items():
            lied = [lie(m) if (peer == victim) != (m["key"] == node.members[victim].key)
                    and m["key"] != node.identity.public_key else m for m in body["members"]]
            conn.send_nowait("lobby", {**body, "members": lied})
        node.mesh.members_updated()
        self.changed()
        if not said:
            said.append(True)
            print("cheat: lobby frames with wrong ports for the victim and to it", flush=True)

    said: list[bool] = []
    cut: list[bytes] = []

    def started(node: Node, victim: bytes) -> bool:
        """Its game started, and the victim's too: it signed a message after its START_ACK (a commit)."""
        session = node.session
        return (session is not None and session.start is not None and session.game is not None
                and dict((p, n) for p, n in session.heads()).get(victim, 0) >= 2)

    def watch(node: Node) -> None:
        victim = victim_of(node)
        if not cut and victim is not None and started(node, victim):
            cut.append(victim)
            print("cheat: its game started: the victim's link cut", flush=True)
            conn = node.links.get(victim)
            if conn is not None:
                conn.writer.transport.abort()
        if not node.done.is_set():
            asyncio.get_running_loop().call_later(0.05, watch, node)

    def link_not_victim(self: Mesh, conn: Connection) -> None:
        if cut and conn.peer == cut[0]:
            conn.writer.transport.abort()  # never linked again
            return
        link(self, conn)

    def first(self: Lobby, at_once: bool = False, joiner: Connection | None = None) -> None:
        cheat(self, at_once, joiner)
        if not watching:
            watching.append(True)
            watch(self.node)

    watching: list[bool] = []
    if acks:  # and the other seats' START_ACKs (their records in them) never go to the victim through us
        from p2pnimmt.net.connection import Connection as Link
        from p2pnimmt.protocol.envelope import open_envelope
        send_message = Link.send_message

        def withheld(self: Link, wire: bytes, framed: bytes | None = None, later: bool = False) -> None:
            if cut_from and self.peer == cut_from[0]:
                env = open_envelope(wire)
                if env.kind == "START_ACK" and env.sender != self.peer:
                    if not told:
                        told.append(True)
                        print("cheat: the other seats' START_ACKs withheld from the victim", self.peer.hex()[:8], flush=True)
                    return
            send_message(self, wire, framed, later)

        told: list[bool] = []
        cut_from: list[bytes] = []
        Link.send_message = withheld  # type: ignore[method-assign]
        start_lobby = first

        def first_and_victim(self: Lobby, at_once: bool = False, joiner: Connection | None = None) -> None:
            victim = victim_of(self.node)
            if victim is not None and not cut_from:
                cut_from.append(victim)
            start_lobby(self, at_once, joiner)

        Lobby.announce = first_and_victim  # type: ignore[method-assign]
    if withhold:  # nor does it pass the records on itself, as a seat does (protocol.md 14, the `where` frame)
        from p2pnimmt.net.where import Book
        Book.tell = lambda self, conn=None: None  # type: ignore[method-assign]
    if not acks:
        Lobby.announce = first  # type: ignore[method-assign]
    Mesh.link = link_not_victim  # type: ignore[method-assign]


def where_reflect(port: int) -> None:
    from p2pnimmt.net.where import sign_where
    from p2pnimmt.protocol.identity import Identity

    def high(cls) -> Identity:  # a peer id above everyone's: every other seat is the one that dials it
        while (identity := Identity(os.urandom(32))).peer[0] != 0xFF:
            pass
        return identity

    def reflected(self: Node):
        if self.game_id is None:
            return None
        if self._own_where is None or self._own_where.game != self.game_id:
            self._own_where = sign_where(self.identity, self.game_id, port, [])
            print(f"cheat: its where record names port {port}", flush=True)
        return self._own_where

    async def no_reverse(self: Mesh) -> None:
        return None

    Identity.generate = classmethod(high)  # type: ignore[method-assign,assignment]
    Node.own_where = reflected  # type: ignore[method-assign]
    Mesh._reverse_watch = no_reverse  # type: ignore[method-assign]


if __name__ == "__main__":
    cheats = {"split": split_commit, "split-on": lambda turn: split_commit(turn, True), "pair-above": pair_above,
              "hold-reveal": hold_reveal, "hold-carried": lambda turn: hold_reveal(turn, True), "again-flood": again_flood,
              "ack-to-host": lambda _turn: ack_to_host_alone(), "heads-flood": heads_flood,
              "reveal": reveal_another_card, "fork": fork_a_reveal,
              "vanish": lambda _turn: gone_before_start(True), "leave": lambda _turn: gone_before_start(False),
              "host-vanish": lambda _turn: host_gone_after_start(), "slow-end": slow_end,
              "silent-relay": lambda _turn: silent_relay(),
              "dial-mute-relay": lambda _turn: dial_relay(False), "dial-refused-relay": lambda _turn: dial_relay(True),
              **{kind: lambda _turn, kind=kind: port_relay(kind) for kind in (  # type: ignore[misc]
                  "silent-port-relay", "flood-port-relay", "http-port-relay", "junk-hello-relay", "mute-ws-relay")},
              "handshake-relay": lambda _turn: handshake_relay(), "msgless-relay": lambda _turn: msgless_relay(),
              "probe-liar-relay": lambda _turn: probe_liar_relay(),
              "probe-liar-relay-alone": lambda _turn: probe_liar_relay(True),
              "probe-deaf": lambda _turn: probe_deaf(),
              "garbage-relay": lambda _turn: garbage_relay(),
              "oversize-relay": lambda _turn: garbage_relay(oversize=True),
              "other-game-relay": lambda _turn: other_game_relay(),
              "other-host-relay": lambda _turn: other_host_relay(),
              "stranger-game-relay": lambda _turn: stranger_game_relay(),
              "lying-lobby": lambda _turn: lying_lobby(),
              "withholding-lobby": lambda _turn: lying_lobby(True),
              "withholding-acks": lambda _turn: lying_lobby(True, True),
              "withholding-bare": lambda _turn: lying_lobby(True, bare=True),
              "cut": lambda _turn: cut_at_start_ack(), "offer-all": lambda _turn: offer_anew_at_start(False),
              "offer-without-last": lambda _turn: offer_anew_at_start(True), "offer-mid-game": offer_mid_game,
              "keep": keep_ahead, "stop": stop_at_commit, "rejoin-flood": rejoin_flood,
              "lie": lambda _turn: lie_in_start_ack(), "lie-to-some": lambda _turn: lie_to_some(),
              "mute": lambda _turn: mute_after_start(), "slow-ack": slow_start_ack,
              "carry-host": lambda _turn: host_with_a_carry(), "where-reflect": where_reflect}
    cheats[sys.argv[1]](int(sys.argv[2]))
    sys.exit(main(sys.argv[3:]))
