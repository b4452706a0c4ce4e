/**
 * A page's node (issue 26): a player with its own key and session that reaches the mesh through a tunnel
 * (tunnel.ts) and speaks the mesh's protocol itself, as p2pnimmt/net/node.py does: it dials the game's host and
 * sends ["join", {name, role, bot, port, addresses, proof}] (proof: the seat key's, bound to that link's handshake,
 * protocol.md 14), mirrors the host's ["lobby", ...] frames, and once the game
 * is playing dials every player with a higher peer id (the lower dials; the others dial the page's port at the
 * relay). Frames: ["msg", wire] to its session and what the session returns to the links it is meant for;
 * ["heads", ...] on every new link, answered with what the other side lacks; ["ping", nil]; ["bye", nil] at the
 * end. A page whose tunnel closes opens a new one and goes on with the same seat (`stop`, then a new PageNode).
 * While the game waits, it pulls what it lacks and votes out a seat that is absent (page_waiting.ts, as
 * net/waiting.py); its own seat's clock, away and "I'm back" are page_clock.ts (as net/clock.py); a seat of ours
 * that the others dropped asks back with `takeSeatBack` (REJOIN, 11.3). After the game, the host's rematch
 * (protocol.md 14, net/rematch.py): the person's "Play again" tells the host ["again", true]; the host's
 * ["rematch", {game, port, seats, wait}] names the new game, where the host listens for it and the keys of its
 * seats; a page whose key has a seat follows (`onRematch`: a new node for the new game, on the same tunnel).
 */
import type { Encodable, Value } from "./codec.js";
import type { Identity } from "./identity.js";
import { askVerdict, asksExceeded, FRAME_KINDS, Link, MAX_ASKS_OVER, MAX_LINK_FAULTS, wireKey } from "./link.js";
import { bytes, envelope, identity as identities, seatKey as seatKeys } from "./main.js";
import { MoveClock } from "./page_clock.js";
import { Held } from "./page_held.js";
import { type LobbyMember, lobbyMembers } from "./page_members.js";
import { carriesNothing, hostProblem } from "./page_host.js";
import { PageSeat } from "./page_seat.js";
import { PROBE_NONCE, probeAnswer, Probes } from "./page_probe.js";
import { PING_EVERY, PROBE_EVERY, REDIAL_AFTER } from "./page_timings.js";
import { watchWaiting } from "./page_waiting.js";
import type { Entropy, Outgoing } from "./seat.js";
import { type Channel, DIAL_WITHIN, DialUnanswered, type Hello, type Tunnel } from "./tunnel.js";
import { _, fmt } from "./page_words.js";
import { Book, record, signWhere, type Where } from "./where.js";

const { compare, equal, hex } = bytes;
const { peerId } = identities;
const { joinProof, linkProof, seatSecret } = seatKeys;

/** Why a dial of a seat failed where another peer answers at its address (meshLink). */
const ELSEWHERE = "answers as another peer";
/** How the relay's CLOSE of a dial begins when nothing listens at the address (web/relay.py: REFUSED). */
export const REFUSED = "refused:";

/** The host's offer of a rematch (net/rematch.py: Offer). */
export interface Offer {
  readonly game: Uint8Array;
  readonly port: number;
  readonly seats: readonly Uint8Array[];
  readonly wait: number;
}

/** A rematch offer's payload, or null where it is none (net/rematch.py: offer_problem). */
export function offerOf(payload: Value, game: Uint8Array): Offer | null {
  if (!(payload instanceof Map) || payload.size !== 4) return null;
  const [id, port, seats, wait] = ["game", "port", "seats", "wait"].map((k) => payload.get(k));
  if (!(id instanceof Uint8Array) || id.length !== 16 || equal(id, game)) return null;
  if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  if (!Array.isArray(seats) || seats.length < 1 || seats.length > 10) return null;
  if (!seats.every((k) => k instanceof Uint8Array && k.length === 32)) return null;
  if (typeof wait !== "number" || !Number.isInteger(wait) || wait < 0) return null;
  return { game: id, port, seats: seats as Uint8Array[], wait };
}

/** Keys remembered as spent (PageNode.badMessages; the reference remembers 1,024 and the seats'). */
const MAX_SPENT = 1024;

export class PageNode {
  readonly seat: PageSeat;
  readonly links = new Map<string, Link>();
  members: LobbyMember[] = [];
  /** The peer ids (hex) of the lobby's players, once per lobby frame (`maySit` asks it of every held message). */
  private players = new Set<string>();
  /** Where the players listen, each in its own signed word (protocol.md 14, "Where a member listens"). */
  readonly book = new Book();
  private ownWhere: Where | null = null;
  lobbyState = "lobby";
  seats = 0;
  refused: string | null = null;
  /** Our host left the lobby before the START: it said `bye` ("bye"), or the relay found nothing listening where it
   * was ("refused", the relay's CLOSE: REFUSED). No game to wait for: the join loop ends (net/spectator.py:
   * host_gone_before_start, the terminal's rule). */
  hostGone: "bye" | "refused" | null = null;
  /** Whether this relay's word that the host is gone is taken (page.ts: the page's own relay's, or a second relay's
   * of the game; review, session 43: one hostile spectator's relay said REFUSED and the page stopped for good);
   * when not, the join loop ends with wrongHost and the page leaves this relay for the next. */
  believeGone: () => boolean = () => true;
  /** What went wrong on the links (shown small; the session's faults are the verdict). */
  readonly notes: string[] = [];
  onChange: () => void = () => {};
  /** Peers that said `bye` before the end and have no link to us now (voted out at once, net/waiting.py: left). */
  readonly byes = new Set<string>();
  /** The host's rematch offer, once it came (after the game); what our person wants (null: not said yet). */
  offer: Offer | null = null;
  wish: boolean | null = null;
  /** Follow the rematch: a new node for the offer's game (set by the page). */
  onRematch: (offer: Offer) => void = () => {};
  /** Our seat's clock, away and "I'm back". */
  readonly clock: MoveClock;
  private hostPeer: Uint8Array | null = null;
  private readonly dialing = new Set<string>();
  private byeSent = false;
  /** This node's tunnel is gone (the page opened a new one): its loops end. */
  private stopped = false;
  private readonly pinger: ReturnType<typeof setInterval>;
  private readonly prober: ReturnType<typeof setInterval>;
  /** Our probes of the seats we are linked to, and when an answer last showed the game reaching us (page_probe.ts;
   * page.ts leaves a relay through which none did for SERVE_WITHIN). */
  readonly probes: Probes;
  private readonly watcher: () => void;

  /** `host`: the key of the host we expect at hello.host (a rematch: the finished game's host; the same game through
   * another relay: the host we joined), or null; after the START, its signer too (page_host.ts). */
  constructor(readonly identity: Identity, readonly name: string, private readonly tunnel: Tunnel,
    readonly hello: Hello, entropy: Entropy, seat: PageSeat | null = null, private readonly host: Uint8Array | null = null) {
    this.seat = seat ?? new PageSeat(identity, entropy, hello.game);
    // a seat that follows no new start (its first game, a rematch) refuses a START that carries scores; a new start
    // after an equivocation puts its own check in place (page.ts; protocol.md 12, the reference's app.anew)
    if (seat === null) this.seat.inbox.startCheck = carriesNothing;
    // over what is held before the START, a peer that cannot be a seat goes first (protocol.md 14, "Held before START")
    this.seat.inbox.maySit = (peer) => (this.hostPeer !== null && equal(peer, this.hostPeer)) || this.isPlayer(peer);
    // our START_ACK carries our record whatever the START carries (protocol.md 14, "In the START and the
    // START_ACKs"): our port at this node's relay
    this.seat.ownWhere = () => record(this.own());
    this.held.carrier = this;
    tunnel.onAccept = (channel) => void this.accepted(channel);
    this.pinger = setInterval(() => {
      for (const link of this.links.values()) {
        link.send("ping", null);
        if (this.seat.start !== null && this.isPlayer(link.peer)) link.send("where", this.whereFrame());
      }
    }, PING_EVERY);
    this.clock = new MoveClock(this);
    this.watcher = watchWaiting(this, hello.dropAfter * 1000);
    this.probes = new Probes({
      game: hello.game, seats: () => this.seat.peers, held: (peer) => this.seat.heard(peer),
      others: () => this.seat.peers.filter((_, s) => s !== this.seat.seat && !this.seat.dropped.has(s)),
      oursOut: () => this.held.waiting !== null ? null : this.seat.heard(this.identity.peer),
    }, entropy);
    this.prober = setInterval(() => {
      for (const link of this.links.values()) this.probe(link);
    }, PROBE_EVERY);
  }

  /** Probe `link` (protocol.md 14, "A probe"), while a game is on and where its peer is another seat of it. */
  private probe(link: Link): void {
    if (this.seat.start === null || this.over() || equal(link.peer, this.identity.peer)) return;
    if (this.seat.peers.some((peer) => equal(peer, link.peer))) this.probes.probe(link);
  }

  /** Something changed: our clock looks at what we owe, then the screen — once for all the changes of this task
   * (a frame, a tap, a timer: at its end), not once for each (a message comes in up to one copy per link). */
  changed(): void {
    if (this.looking) return;
    this.looking = true;
    queueMicrotask(() => {
      this.looking = false;
      this.refuseStart();
      this.takeEarly();
      this.clock.look();
      this.onChange();
    });
  }

  private looking = false;

  /** Ask every peer for what we lack: our heads (each answers with the messages we have not). */
  pull(): void {
    const heads = this.heads();
    for (const link of this.links.values()) link.send("heads", heads);
  }

  /** `peer` left the game on purpose: it said `bye` before the end and has no link to us (net/waiting.py: left). */
  left(peer: Uint8Array): boolean {
    return this.byes.has(hex(peer)) && !this.linked(peer);
  }

  /** Whether we have a link to `peer` now. */
  linked(peer: Uint8Array): boolean {
    return this.links.has(hex(peer));
  }

  /** Since when (performance.now()) the seats' signed answers to our probes show the game reaching us through our
   * links: two other seats' where two or more are in play, else the one's (page.ts: a relay serves the page while
   * they do; page_probe.ts). A handshake alone, or pings, do not: after the handshake a relay may drop whatever it
   * likes; nor one seat's word where another is in play: the relay's node may hold that seat. `spared`: seats (peer ids
   * in hex) left out of those that must serve (page_probe.ts: Unheard), but never so as to leave only seats of `own`,
   * those whose node this relay may be. */
  servedAt(spared: ReadonlySet<string> = new Set(), own: ReadonlySet<string> = new Set()): number {
    return this.probes.servedAt(spared, own);
  }

  /** Our person's moves: they are at the keys (an away seat is back). */
  play(card: number): void {
    this.clock.present();
    this.send(this.seat.play(card));
  }

  /** A draft pick of our person's (the open card tapped). */
  pick(card: number): void {
    this.clock.present();
    this.send(this.seat.pick(card));
  }

  chooseRow(row: number): void {
    this.clock.present();
    this.send(this.seat.chooseRow(row));
  }

  /** Our person wants to play again (the host offers it, or is asked to) or leaves: ["again", yes] to the host. */
  again(yes: boolean): void {
    if (!this.over() || this.wish !== null) return;
    this.wish = yes;
    const host = this.hostPeer ? this.links.get(hex(this.hostPeer)) : undefined;
    host?.send("again", yes);
    if (yes && this.offer) this.follow();
    this.changed();
  }

  /** Whether the rematch offered has a seat for our key. */
  seatedInOffer(): boolean {
    return this.offer !== null && this.offer.seats.some((k) => equal(k, this.identity.publicKey));
  }

  /** The host's offer while our game is still starting: a new start (protocol.md 14), the game abandoned because a
   * seat left before its START_ACK. A seat held for our key says so and follows at once, as the reference's node
   * does (app/anew.py): nobody is asked, the players wanted to play. */
  private startAnew(): void {
    if (this.offer === null) return;
    const gone = this.leftOutBy(this.offer);
    // a proof against a seat left out that we hold unjudged, above its commit of a turn not decided here yet (section
    // 12, "Above a split commit": it comes with the host's offer, the turn's reveals we lack after it): the new start
    // is for that seat's equivocation, as where it aborted our game (session-32 review: the words said "before it
    // started")
    const held = this.seat.heldAgainst().filter((s) => gone.includes(s));
    const refused = [...new Set([...this.seat.refusedAcks(), ...held])].sort((a, b) => a - b);
    // a seat's equivocation after the START ended our game (protocol.md 12): the new game carries the scores
    // (a START_ACK's equivocation keeps its own words: "signed a START_ACK that the checks refuse")
    const fault = this.seat.fault;
    const forked = held.length > 0 || this.seat.phase === "aborted" && refused.length > 0 && fault !== null
      && !fault.evidence.some((w) => envelope.open(w).kind === "START_ACK");
    const rounds = Math.max(0, ...this.seat.roundEnds().keys());
    // the seats out of the game for a proof here (protocol.md 12, "Who G' leaves out"): a forfeit up to the last round
    // end completed here (one in the round the new start loses counts for nothing)
    const proven = this.seat.outForProof(rounds);
    if (!this.seatedInOffer()) { // left out (it had no link to the host as it chose): abandoned all the same, nothing to follow
      // the words name our own reason, whatever the others' (the reference's app/anew.py: offered_anew)
      const own = this.seat.seat ?? -1;
      const ours = refused.includes(own); // (our START_ACK was refused, or our key equivocated)
      // our link to the host stayed up from the START to the offer: it did not have our START_ACK in time (its grace)
      const host = this.hostPeer ? this.links.get(hex(this.hostPeer)) : undefined;
      const unbroken = host !== undefined && host === this.hostLinkAtStart;
      this.leftOut = fmt(forked && ours ? _("{host} left game {code} for a new game without this seat (this seat's key signed two different messages at one place)")
        : proven.has(own) && this.seat.expelled.has(own) ? _("{host} left game {code} for a new game without this seat (this seat lost its seat in it for a proven rule break)")
          : proven.has(own) ? _("{host} left game {code} for a new game without this seat (this seat forfeited it: it made a round void)")
            : forked ? _("{host} left game {code} for a new game without this seat (by its host's word: this node holds no proof against this seat)")
              : ours ? _("{host} abandoned game {code} before it started and starts a new game without this seat (it refused this seat's START_ACK)")
                : unbroken ? _("{host} abandoned game {code} before it started and starts a new game without this seat (it did not have this seat's START_ACK in time)")
                  : _("{host} abandoned game {code} before it started and starts a new game without this seat (it had no link to it)"),
      { host: this.hostName(), code: identities.gameCode(this.hello.game) });
      this.note(this.leftOut);
      this.leave();
      return;
    }
    // of the seats left out: those out for a proof here, and (after an equivocation) any other but the equivocator,
    // left out by the host's word; the reason is about the rest (the reference's app/anew.py: NewStart)
    const outSeats = gone.filter((s) => proven.has(s) && !refused.includes(s));
    const word = gone.filter((s) => forked && !refused.includes(s) && !outSeats.includes(s));
    const rest = gone.filter((s) => !outSeats.includes(s) && !word.includes(s));
    const out = rest.length ? rest : gone;
    const nameOf = (seats: number[]) => seats.map((s) => this.seat.names[s] ?? "").join(", ");
    const names = nameOf(out);
    // a seat left out that is linked to us and said no `bye` was there, silent: the host's grace ran out (its word,
    // protocol.md 14); one we have no link to left (the reference's app/anew.py: offered_anew)
    const late = gone.some((s) => {
      const key = this.seat.keys[s] ? hex(peerId(this.seat.keys[s] as Uint8Array)) : "";
      return s !== this.seat.seat && this.links.has(key) && !this.byes.has(key);
    });
    let why = fmt(forked ? _("{names} signed two different messages at one place (an equivocation); the round in play is lost")
      : out.some((s) => refused.includes(s)) ? _("{names} signed a START_ACK that the checks refuse")
        : late ? _("{names} did not acknowledge its START in time")
          : _("{names} left before acknowledging its START"), { names });
    if (outSeats.length) why += fmt(_(" ({names} left out too: out of it for a proven rule break or a forfeit)"), { names: nameOf(outSeats) });
    if (word.length) why += fmt(_(" ({names} left out too, by its host's word)"), { names: nameOf(word) });
    if (forked && rounds > 0) why += fmt(_(" (the new game carries the scores after round {round} and plays the rounds left)"), { round: rounds });
    const said = _("game {code} is abandoned: {why}; {host} starts a new game at once with the others");
    this.anew = fmt(said, { code: identities.gameCode(this.hello.game), why, host: this.hostName() });
    this.wish = true;
    const host = this.hostPeer ? this.links.get(hex(this.hostPeer)) : undefined;
    host?.send("again", true);
    this.follow();
  }

  /** Our link to the host as our START came (undefined before): an offer leaving our seat out over that same link
   * came with no cut between (startAnew). */
  private hostLinkAtStart: Link | null | undefined = undefined;

  /** A new start whose carry is not our record of the game we played (the session's inbox refused its START,
   * protocol.md 14): not signed, not played; said, and the node leaves (`bye`: its host starts anew without it). */
  private refuseStart(): void {
    const why = this.seat.inbox.refusedStart;
    if (why === null || this.seat.start !== null || this.leftOut !== null || this.stopped) return;
    this.leftOut = fmt(_("refused the new game: {why}"), { why });
    this.note(this.leftOut);
    this.leave();
  }

  /** What a new start says (startAnew), for the page to show on with the new game. */
  anew: string | null = null;
  /** A new start left our seat out: why (the page's status and notes); the node has left the game it abandoned. */
  leftOut: string | null = null;

  /** The seats of our START whose keys an offer leaves out (net/rematch.py: left_out). */
  private leftOutBy(offer: Offer): number[] {
    return this.seat.keys.flatMap((key, s) => offer.seats.some((k) => equal(k, key)) ? [] : [s]);
  }

  /** Our game is abandoned and there is nothing to follow: `bye` on every link, which are closed, and the node stops
   * (its join, mesh and clock end). */
  private leave(): void {
    this.byeSent = true;
    for (const link of [...this.links.values()]) {
      link.send("bye", null);
      link.close("left: the game was abandoned");
    }
    this.stop();
  }

  private follow(): void {
    if (!this.offer || !this.seatedInOffer()) return;
    this.onRematch(this.offer);
  }

  /** The public key of the host we joined (null before a link to it). */
  hostKey: Uint8Array | null = null;
  /** What answered at the host's address as another key than the host's (page_host.ts), or null: this relay's. */
  wrongHost: string | null = null;

  /** The key a node after this one on another relay must reach as its host: the one we expected, else joined. */
  trustedHost(): Uint8Array | null {
    return this.host ?? this.hostKey;
  }

  /** Ask the stand-in for every other seat this turn waits on (the terminal's `a`: ui/local.py, ask_stand_in); the
   * seats asked. Once every other seat asked, that seat's node makes its move, marked auto (protocol.md 11.2). */
  askStandIn(): number[] {
    const asked: number[] = [];
    const outs: Outgoing[] = [];
    for (const x of this.seat.standInFor()) {
      try {
        outs.push(...this.seat.askStandIn(x));
        asked.push(x);
      } catch {
        // the turn moved on meanwhile: nothing to ask for that seat
      }
    }
    this.send(outs);
    return asked;
  }

  /** Our seat was dropped: ask for it back (REJOIN); we play again from the round after a round end at which more
   * than half of the other seats had our ask (protocol.md 11.3). */
  takeSeatBack(): void {
    this.clock.present();
    this.send(this.seat.rejoin());
  }

  /** The tunnel is lost: stop dialling and pinging (a new node goes on with the same seat). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.pinger);
    clearInterval(this.prober);
    this.watcher();
    this.clock.cancel();
  }

  /** The evening's seat key (protocol.md 14, "The seat key": the 4 characters after `#` in the page's link), or
   * null where the link has none: each join proves it on its own link (`proof`), never shows it. */
  seatKey: string | null = null;

  /** The evening's link secret (protocol.md 14, "The link secret": after the seat key in the page's link), or null:
   * each join proves it too (`link_proof`), which the host always checks (no stranger's wrong keys keep it out). */
  linkSecret: Uint8Array | null = null;

  /** The `join` frame for a link to the host: with the seat key's proof bound to this link's handshake (its nonces
   * and our key) where we hold a key. */
  private joinFrame(link: Link, secret: Uint8Array | null): Record<string, Encodable> {
    const join: Record<string, Encodable> = { name: this.name, role: "player", bot: false, port: this.hello.port, addresses: [] };
    join["where"] = record(this.own());  // where we listen (our port at the relay), in our own signed word
    if (secret !== null) join["proof"] = joinProof(secret, this.hello.game, link.nonces[0], link.nonces[1], this.identity.publicKey);
    if (secret !== null && this.linkSecret !== null) {
      join["link_proof"] = linkProof(this.linkSecret, this.hello.game, link.nonces[0], link.nonces[1], this.identity.publicKey);
    }
    return join;
  }

  /** Our own `where` record for this game: our port at the relay, signed once per port. */
  private own(): Where {
    if (this.ownWhere === null || this.ownWhere.port !== this.hello.port) {
      // the wall clock's now, past any of ours a seat holds (Book.ownPast) and the one before: the clock may step back
      const serial = Math.max(Date.now(), this.book.ownPast + 1, (this.ownWhere?.serial ?? 0) + 1);
      this.ownWhere = signWhere(this.identity, this.hello.game, this.hello.port, [], serial);
    }
    return this.ownWhere;
  }

  /** A player of the lobby or a seat of the START: the only ones whose records we keep. */
  private isPlayer(peer: Uint8Array): boolean {
    return this.players.has(hex(peer)) || (this.seat.start !== null && this.seat.peers.some((p) => equal(p, peer)));
  }

  /** Our `where` frame: every record of a seat of the START we hold, our own too (no more than the seats). */
  private whereFrame(): Encodable {
    const seats = new Set(this.seat.keys.map((k) => hex(k)));
    return [...this.book.records.values(), this.own()].filter((w) => seats.has(hex(w.key))).map((w) => [w.key, record(w)]);
  }

  /** Dial the host and ask for a seat (again after every break, as a joiner redials). */
  async join(): Promise<void> {
    while (this.refused === null && this.hostGone === null && this.wrongHost === null && !this.over() && !this.stopped) {
      try {
        // K, once per game (a rematch's new game id draws its own; page.ts began it at the relay's hello, in the
        // page's worker), drawn while we dial: the join waits for it, as the reference's joiner's does (net/node.py)
        const drawing = this.seatKey === null ? null : seatSecret(this.hello.game, this.seatKey);
        drawing?.catch(() => {}); // (awaited below, once the link is open)
        const [address, port] = this.hello.host;
        const link = await Link.open(await this.tunnel.dial(address, port), this.identity, this.hello.game, true);
        const wrong = hostProblem(`${address}:${port}`, link.key, this.host, this.seat.start?.sender ?? null);
        if (wrong !== null) { // another node at the host's address through this relay: no host of ours (page.ts leaves it)
          link.close("not the host of this game");
          this.wrongHost = wrong;
          this.changed();
          return;
        }
        let secret: Uint8Array | null;
        try {
          secret = await drawing;
        } catch (error) {
          link.close("no seat key proof");
          throw error;
        }
        if (this.stopped) {
          link.close("this node has stopped");
          return;
        }
        this.hostPeer = link.peer;
        this.hostKey = link.key;
        link.send("join", this.joinFrame(link, secret));
        await this.serve(link);
      } catch (error) {
        const why = (error as Error).message;
        if (error instanceof DialUnanswered && !this.stopped) { // a relay that answers no dial: no relay (page.ts leaves it)
          this.wrongHost = fmt(_("it did not answer the dial for the host within {seconds} s"),
            { seconds: DIAL_WITHIN / 1000 });
          this.changed();
          return;
        }
        if (why.startsWith(REFUSED) && this.seat.start === null && !this.stopped) {
          if (this.believeGone()) this.hostGone ??= "refused";
          else this.wrongHost = fmt(_("it says nothing listens at the host's address, and no other relay says so ({why})"),
            { why });
          this.changed();
          return;
        }
        this.note(fmt(_("the host: {why}"), { why: _(why) })); // (the relay's own words too: web/dialbound.py)
      }
      if (this.hostGone !== null) return;
      await new Promise((ok) => setTimeout(ok, REDIAL_AFTER));
    }
  }

  over(): boolean {
    // (aborted on a START_ACK equivocation after our start: not over, the host's new start is due, protocol.md 14)
    return this.seat.phase === "over" || (this.seat.phase === "aborted" && !this.seat.refusedAcks().length);
  }

  note(text: string): void {
    this.notes.push(text);
    if (this.notes.length > 20) this.notes.shift();
    this.changed();
  }

  /** Serve a link until it closes. */
  private serve(link: Link): Promise<void> {
    if (this.stopped) { // a link that came as this node stopped (left, or its tunnel gone): not ours to serve
      link.close("this node has stopped");
      return Promise.resolve();
    }
    const key = hex(link.peer);
    const old = this.links.get(key);
    if (old !== undefined && !old.closed && old.dialer && !link.dialer && compare(this.identity.peer, link.peer) < 0) {
      // a node's reverse link beside the one we dialled (protocol.md 14): of a pair's two links both ends keep the one
      // the lower peer id dialled, as the node does (review, session 41: the page kept the newer, the node the other,
      // and the pair was left with neither)
      link.close("a reverse link beside ours");
      return Promise.resolve();
    }
    old?.close("a newer link");
    this.links.set(key, link);
    this.byes.delete(key);
    return new Promise((done) => {
      link.onClose = (why) => {
        if (this.links.get(key) === link) this.links.delete(key);
        if (!this.over()) this.note(fmt(_("link to {name} ended: {why}"), { name: this.nameOf(link.peer), why }));
        done();
      };
      link.send("heads", this.heads());
      this.probe(link);
      if (this.seat.start !== null && this.isPlayer(link.peer)) link.send("where", this.whereFrame());
      link.start((kind, payload) => {
        try {
          this.frame(link, kind, payload);
        } catch (error) {  // a part of the protocol this peer lacks (Unsupported): said, and the link goes on
          this.note(fmt(_("{kind} from {name}: {why}"), { kind, name: this.nameOf(link.peer), why: (error as Error).message }));
        }
      });
      if (this.byeSent) link.send("bye", null);
      this.changed();
    });
  }

  /** The host's name in the lobby (its key's start before the lobby frame came). */
  hostName(): string {
    return this.hostPeer ? this.nameOf(this.hostPeer) : "?";
  }

  private nameOf(peer: Uint8Array): string {
    const member = this.members.find((m) => equal(m.peer, peer));
    return member ? member.name : hex(peer).slice(0, 8);
  }

  private heads(): [Uint8Array, number][] {
    const counts = new Map<string, [Uint8Array, number]>();
    for (const env of this.seat.accepted) {
      const got = counts.get(hex(env.sender));
      counts.set(hex(env.sender), [env.sender, Math.max(got ? got[1] : 0, env.seq + 1)]);
    }
    return [...counts.values()];
  }

  private frame(link: Link, kind: string, payload: Value): void {
    const asked = askVerdict(link.asks, kind, performance.now());
    if (asked === "excused" || asked === "bad") {
      // not answered (a heads costs a look over the whole game, every frame a render); a flood of them is cut
      if (link.asks.over > MAX_ASKS_OVER) link.close(asksExceeded(kind));
      return;
    }
    if (!FRAME_KINDS.has(kind)) return; // a later version's, within the budget: ignored (protocol.md 14), no render
    if (kind === "msg" && payload instanceof Uint8Array) {
      link.remember(wireKey(payload));
      const key = hex(link.peer);
      const was = this.seat.badFrom.get(key) ?? 0;
      this.send(this.seat.deliver(payload, link.peer));
      this.badMessages(link, (this.seat.badFrom.get(key) ?? 0) - was);
      // a peer over a cap of what is held for it is cut off (protocol.md 14, "Bounds"; net/frames.py)
      for (const [peerKey, over] of this.seat.inbox.overflowed()) this.links.get(peerKey)?.close(`cut off: it sent ${over.what}`);
      if (this.hostLinkAtStart === undefined && this.seat.start !== null) {
        this.hostLinkAtStart = this.hostPeer ? this.links.get(hex(this.hostPeer)) ?? null : null;
      }
    } else if (kind === "msg") {
      this.badMessages(link, 1); // a msg frame without bytes
      return;
    } else if (kind === "probe" && payload instanceof Uint8Array && payload.length === PROBE_NONCE) {
      link.send("probed", probeAnswer(this.identity, this.hello.game, link.nonces, payload, this.heads()));
      return;
    } else if (kind === "probed") {
      if (this.probes.answered(link, payload, this.identity.peer)) link.send("heads", this.heads());
      return;
    } else if (kind === "heads" && Array.isArray(payload)) {
      const have = new Map<string, number>();
      for (const item of payload) {
        if (Array.isArray(item) && item[0] instanceof Uint8Array && typeof item[1] === "number") have.set(hex(item[0]), item[1]);
      }
      for (const wire of this.seat.missingFor(have)) if (!this.held.has(wire)) link.sendMessage(wire);
    } else if (kind === "where" && this.seat.start !== null) {
      // only a seat of the START tells where the players are, and a frame with an entry that is not one is ignored
      // whole (protocol.md 14, "Where a member listens")
      let news = false;
      const found = this.book.frame(payload, link.peer, this.seat.keys, this.hello.game, this.identity.publicKey, this.own()) ?? [];
      if (this.book.ownPast >= this.own().serial) { // a record of ours from before the clock stepped back: past it
        this.ownWhere = null;
        news = true;
      }
      for (const where of found) news = this.book.take(where, (p) => this.isPlayer(p)) || news;
      if (news) for (const other of this.links.values()) if (this.isPlayer(other.peer)) other.send("where", this.whereFrame());
    } else if (kind === "lobby" && this.hostPeer && equal(link.peer, this.hostPeer)) {
      this.mirror(payload);
    } else if (kind === "refuse" && this.hostPeer && equal(link.peer, this.hostPeer) && this.seat.start === null) {
      this.refused = typeof payload === "string" ? payload.slice(0, 200) : "refused";
      link.close("refused");
    } else if (kind === "bye" && !this.over()) {
      this.byes.add(hex(link.peer));
      if (this.hostPeer && equal(link.peer, this.hostPeer) && this.seat.start === null) this.hostGone = "bye";
    } else if (kind === "rematch" && this.hostPeer && equal(link.peer, this.hostPeer) && this.offer === null
      && this.seat.start !== null) {
      this.offered(payload);
    }
    this.changed();
  }

  /** Keys whose link was closed for bad messages (the reference's spent keys, net/trouble.py): each later link of
   * one is closed at its first. At most MAX_SPENT, the oldest forgotten. */
  private readonly spent = new Set<string>();

  /** `link` carried `count` more bad messages (bytes nobody can be held to, blamed on its peer: BAD_MESSAGE_CODES, or a
   * msg frame without bytes): past MAX_LINK_FAULTS (none for a spent key) it is closed, as the reference closes one
   * (net/frames.py). Red team, session 44: the page closed none, and a seat's junk frames held its main thread busy
   * (every fault prepared for the transcript, the page's own record of it kept) for as long as the seat sent them. */
  private badMessages(link: Link, count: number): void {
    if (count <= 0 || link.closed) return;
    link.bad += count;
    const key = hex(link.peer);
    if (link.bad <= (this.spent.has(key) ? 0 : MAX_LINK_FAULTS)) return;
    this.spent.delete(key);
    this.spent.add(key);
    if (this.spent.size > MAX_SPENT) this.spent.delete(this.spent.values().next().value as string);
    link.close(`${link.bad} bad messages`);
  }

  /** The host's rematch offer (from its link, our game STARTed, none taken yet). */
  private offered(payload: Value): void {
    const offer = offerOf(payload, this.hello.game);
    // aborted on a START_ACK equivocation of a seat the offer leaves out: a new start, as while starting (protocol.md
    // 14; the reference's net/rematch.py); any other abort takes no offer
    const refused = this.seat.refusedAcks();
    if (this.seat.phase === "aborted" && !(offer && refused.length && refused.every((s) => this.leftOutBy(offer).includes(s)))) return;
    const phase = this.seat.phase === "aborted" ? "starting" : this.seat.phase;
    // An offer while starting is a new start; one without our seat while our game is on is too (a rematch holds
    // every seat: our game started here, our START_ACK never reached the host). Any other before our game is over
    // is kept, and taken if our game aborts on a START_ACK equivocation (the host offers a rematch after its own
    // game's end, which is ours too).
    const withoutUs = offer !== null && phase !== "over" && !offer.seats.some((k) => equal(k, this.identity.publicKey));
    const start = this.seat.start;
    if (withoutUs && phase !== "starting" && !this.seat.heldAgainst().length && start !== null
      && this.seat.inbox.chain(start.sender).length > 1) {
      // the host signed on after its START (its game started: it had our START_ACK), so no new start leaves us out
      // (protocol.md 14; red team, session 39: a host pushed an honest seat out of a game under way, at any turn)
      this.note(fmt(_("ignored {host}'s new start of game {code} without this seat: its offer (game {game} on port {port}) came after it signed messages of the game after its START, so it had this seat's START_ACK"),
        { host: this.hostName(), code: identities.gameCode(this.hello.game), game: identities.gameCode(offer.game), port: offer.port }));
    } else if (offer && phase === "starting" && this.leftOutBy(offer).length === 0) { // no new start (protocol.md 14)
      this.note(fmt(_("ignored {host}'s new start of game {code}: its offer (game {game} on port {port}) leaves out no seat of it, so it is none"),
        { host: this.hostName(), code: identities.gameCode(this.hello.game), game: identities.gameCode(offer.game), port: offer.port }));
    } else if (offer && (phase === "over" || phase === "starting" || withoutUs)) {
      this.early = null;
      this.offer = offer;
      if (phase !== "over") this.startAnew();
      else if (this.wish) this.follow();
    } else if (offer) {
      this.early = payload;
    }
  }

  /** An offer that came while our game was on (offered): looked at again once it aborts (a START_ACK equivocation). */
  private early: Value = null;

  /** Our game aborted on a START_ACK equivocation after our start: an offer kept is taken now (offered). */
  takeEarly(): void {
    if (this.early !== null && this.offer === null && this.seat.phase === "aborted") this.offered(this.early);
  }

  /** Carry out what the session returned: each message to the links it is meant for, once ours are kept (`held`). */
  send(outs: readonly Outgoing[]): void {
    this.held.send(outs);
    this.fromStart();
    this.changed();
  }

  /** The START and START_ACKs whose records we looked at (by message hash in hex; fromStart), and of which START. */
  private looked = new Set<string>();
  private lookedStart: envelope.Envelope | null = null;

  /** The records the START and the START_ACKs we took carry (protocol.md 14, "In the START and the START_ACKs";
   * session 41): each its signer's, checked as a lobby frame's are (one that is not its signer's signed word is not
   * taken, in one note; the message stands), and dialled by. Each message is looked at once; nothing once every
   * seat's is in (the reference's net/where.py: Book.from_start). */
  private fromStart(): void {
    const start = this.seat.start;
    if (start === null) return;
    if (start !== this.lookedStart) {
      this.lookedStart = start;
      this.looked = new Set();
    }
    if (this.looked.size === this.seat.keys.length) return;
    let news = false;
    for (const env of this.seat.startMessages()) {
      const key = hex(env.hash);
      if (this.looked.has(key)) continue;
      this.looked.add(key);
      const value = env.body.get("where");
      const seat = this.seat.seatOf(env.sender);
      if (value === undefined || seat < 0 || equal(env.sender, this.identity.peer)) continue;
      const where = this.book.check(value, this.seat.keys[seat], this.hello.game);
      if (where === null) {
        this.note(fmt(_("ignored the where record in {name}'s {kind}: it is not its signed word for this game"),
          { name: this.seat.names[seat] ?? "?", kind: env.kind }));
      } else if (where !== "stale") {
        news = this.book.take(where, (p) => this.isPlayer(p)) || news;
      }
    }
    if (news) {
      for (const other of this.links.values()) if (this.isPlayer(other.peer)) other.send("where", this.whereFrame());
      this.dialMesh();
    }
  }

  /** What waits for our own messages and secrets to be kept (protocol.md 13, "Kept before sent"): the seat's, shared
   * with every node of it (page.ts gives each the seat's: `keepWith`), so that what a node before this one held goes
   * out through our links once kept, and our heads answers skip it meanwhile. Unset: sent at once. */
  held = new Held();

  /** Send what our seat's `held` releases through our links from now on (this node is the seat's newest). */
  keepWith(held: Held): void {
    this.held = held;
    held.carrier = this;
  }

  /** Each message to the links it is meant for (net: delivery.meant_for), now. */
  write(outs: readonly Outgoing[]): void {
    const seated = this.seat.peers;
    for (const out of outs) {
      const key = wireKey(out.wire); // once a message, not once a link
      for (const link of this.links.values()) {
        const peer = link.peer;
        if (out.to !== null && !equal(out.to, peer)) continue;
        if (out.skip.some((p) => equal(p, peer))) continue;
        if (out.watchersOnly && seated.some((p) => equal(p, peer))) continue;
        link.sendMessage(out.wire, key);
      }
    }
    if (this.over() && !this.byeSent) {
      this.byeSent = true;
      for (const link of this.links.values()) link.send("bye", null);
    }
  }

  private mirror(payload: Value): void {
    if (!(payload instanceof Map)) return;
    const members = payload.get("members");
    if (Array.isArray(members)) {
      const read = lobbyMembers(members);
      this.members = read.members;
      this.players = new Set(read.members.filter((m) => m.role === "player").map((m) => hex(m.peer)));
      // each player's own signed word on where it listens, kept whatever later frames say
      for (const where of this.book.lobby(read.entries, this.hello.game, this.identity.publicKey)) this.book.take(where, (p) => this.isPlayer(p));
    }
    const seats = payload.get("seats");
    if (typeof seats === "number") this.seats = seats;
    const state = payload.get("state");
    if (state === "lobby" || state === "playing") this.lobbyState = state;
    if (this.lobbyState === "playing") this.dialMesh();
  }

  /** Dial every player with a higher peer id we have no link to (the lower peer id dials). */
  private dialMesh(): void {
    for (const member of this.members) {
      const peer = member.peer;
      const key = hex(peer);
      if (member.role !== "player" || compare(peer, this.identity.peer) <= 0 || this.links.has(key) || this.dialing.has(key)) continue;
      this.dialing.add(key);
      void this.meshLink(member, peer);
    }
    // a seat of the START a lobby frame leaves out is dialled all the same, by its own signed record
    for (const seatKey of this.seat.start !== null ? this.seat.keys : []) {
      const peer = peerId(seatKey);
      const key = hex(peer);
      const where = this.book.of(peer);
      if (where === undefined || compare(peer, this.identity.peer) <= 0 || this.links.has(key) || this.dialing.has(key)) continue;
      if (this.players.has(key)) continue;
      this.dialing.add(key);
      void this.meshLink({ key: seatKey, peer, name: identities.fingerprint(peer), role: "player", bot: false, host: "", port: where.port,
        addresses: [], relay: null }, peer);
    }
  }

  private async meshLink(member: LobbyMember, peer: Uint8Array): Promise<void> {
    const key = hex(peer);
    while (!this.over() && !this.stopped) {
      // a player whose own signed record we hold: at the record's port and addresses (and where the host saw it),
      // never at a port the host's word alone gives (protocol.md 14, "Where a member listens")
      const now = this.members.find((m) => equal(m.peer, peer)) ?? member;
      const where = this.book.of(peer);
      const port = where ? where.port : now.port;
      const addresses = [now.host, ...(where ? where.addresses : now.addresses).filter((a) => !thisMachine(a))];
      for (const address of [...new Set(addresses.filter((a) => a))]) {
        if (this.links.has(key)) break;
        try {
          // whoever answers there with another key is refused before we sign the handshake: it never takes the dial
          // for a link of ours (a member's record can name another's port; protocol.md 14, "Where a member listens")
          const asExpected = (k: Uint8Array): string | null => (equal(peerId(k), peer) ? null : ELSEWHERE);
          const link = await Link.open(await this.tunnel.dial(address, port), this.identity, this.hello.game, true,
            asExpected);
          await this.serve(link);
        } catch (error) {
          if ((error as Error).message === ELSEWHERE) continue; // (as before: no note each dial, a member can repeat it)
          this.note(fmt(_("dialling {name}: {why}"), { name: member.name, why: _((error as Error).message) }));
        }
      }
      await new Promise((ok) => setTimeout(ok, REDIAL_AFTER));
    }
    this.dialing.delete(key);
  }

  /** A peer dialled our port at the relay: a member's link once the handshake is done. */
  private async accepted(channel: Channel): Promise<void> {
    const admit = (key: Uint8Array): string | null =>
      this.members.some((m) => equal(m.key, key)) || this.seat.keys.some((k) => equal(k, key)) ? null : "not a member of this game";
    try {
      await this.serve(await Link.open(channel, this.identity, this.hello.game, false, admit));
    } catch (error) {
      this.note(fmt(_("a connection to us: {why}"), { why: (error as Error).message }));
    }
  }
}

/** A loopback or unspecified address (IPv4-mapped too): a member's `addresses` never name one (protocol.md 14),
 * and one named anyway is not dialled (it is the relay's own machine; p2pnimmt/net/members.py: this_machine). */
export function thisMachine(address: string): boolean {
  const a = address.toLowerCase().replace(/^::ffff:(?=\d+\.)/, "");
  return /^127\./.test(a) || a === "0.0.0.0" || /^(0*:)*:?0*1$/.test(a) && a.includes(":") || /^[0:]+$/.test(a) && a.includes(":");
}
