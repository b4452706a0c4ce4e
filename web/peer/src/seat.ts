/**
 * A node that signs (section 11): the session of session.ts, plus an identity, entropy injected and a transcript
 * of its own. Fed bytes (`deliver`) and a seat's moves (`hostGame`, `play`, `chooseRow`, `pick`, `voteOut`), it
 * returns what to send: its own messages, signed, and the relays of section 8 (every message accepted, to the
 * spectators; the seat after the sender also to the other seats). At each fixed point of the game it signs the one
 * message it owes there (the KEEPs of 11.1, never a DROP: a vote is the page's policy's, 11.1; START_ACK;
 * SEED_COMMIT then
 * SEED_REVEAL, or SEALED_SHUFFLE then SEALED_UNLOCK; PLAY_REVEAL; SEALED_KEYS, ROUND_END; GAME_END); the moves
 * a person or a bot makes come in as intents. Entropy is drawn where section 10.1's commitments need it, in the
 * order of section 11 ("Entropy"): sans-I/O, so the same keys, entropy and arrivals give the same bytes as the
 * reference. `Seat.restart` goes on from a transcript and secrets (section 13). With no seat (a spectator with a
 * key) it relays and records only. A seat dropped asks back with `rejoin` (REJOIN), and every ROUND_END lists the
 * asks it holds (`back`, 11.3). The stand-in's moves (11.2): `standIn` makes the move owed by its rule, marked
 * auto (the clock that calls it is the front's), `askStandIn` signs STANDIN, and a move every other seat asked the
 * stand-in for is made at once. A seat raises a sealed deal's alarm itself (17.8). Dropping (11.1) as the reference:
 * `voteOut` also names a seat gone while the game waits on another (several seats gone together: the quorum rule is
 * the session's, quorum.ts); while its own vote at a position is undecided the seat holds back there (the session's
 * heldBack); it signs KEEP where 11.1 says (it holds X's message and waits on a voter of X, or it holds back on its
 * own votes while X voted there or went past: "KEEP when every seat voted").
 */
import { concat, equal, hex } from "./bytes.js";
import { type Card, deck as deckOf } from "./cards.js";
import { type Encodable, encode, type MsgMap } from "./codec.js";
import { type Envelope, NO_PREVIOUS, open, seal } from "./envelope.js";
import { betweenRounds, commitment, playValue, stateHash } from "./hashes.js";
import { handPositions, unlockValues } from "./sealed_deal.js";
import { cardOf, drawKeyPair, inverseKey, type KeyPair, shuffleStep, X } from "./sealed_group.js";
import { gameIdFor, type Identity } from "./identity.js";
import * as quorum from "./quorum.js";
import type { Kind } from "./messages.js";
import { allIn, type Fault, Session, type Settings } from "./session.js";
import { draftOrder } from "./deal.js";
import { cmp, commitStep, GAME_END_STEP, type Pos, ROUND_END_STEP, voteSlot } from "./steps.js";
import { TranscriptWriter } from "./transcript.js";
import { standInCard, standInPick, standInRow } from "./turn.js";

/** Bytes to send: to every peer (`to` null) but those in `skip`; `watchersOnly`: to the spectators alone. */
export interface Outgoing {
  readonly wire: Uint8Array;
  readonly to: Uint8Array | null;
  readonly skip: readonly Uint8Array[];
  readonly watchersOnly: boolean;
}

/** `n` fresh random bytes (crypto.getRandomValues in a page; pinned in the tests). */
export type Entropy = (n: number) => Uint8Array;

export const NONCE_SIZE = 32;
export const CONTRIBUTION_SIZE = 32;

/** A roster entry of START (section 9). */
export interface Member {
  readonly key: Uint8Array;
  readonly name: string;
  readonly bot: boolean;
}

type Body = Map<string, Encodable>;
const body = (...fields: [string, Encodable][]): Body => new Map(fields);

const SLOT_FIELDS = ["round", "turn", "pick", "step", "place", "seat"] as const;

/** What names the one message a seat may sign of `kind` (section 11's table): its round, turn or pick, step, place
 * and the seat it names (a DROP, KEEP or STANDIN). */
function slotOf(kind: Kind, fields: ReadonlyMap<string, unknown>): string {
  let slot: string = kind;
  for (const name of SLOT_FIELDS) slot += `|${String(fields.get(name) ?? "-")}`;
  return slot;
}

export class Seat extends Session {
  /** The transcript this node keeps (section 13), sealed once the game is over. */
  readonly transcript: TranscriptWriter;
  /** The secrets records (section 13), in the order kept: the seed and play nonces with what they open. */
  readonly secrets: Body[] = [];
  private out: Outgoing[] = [];
  /** Our own signed `where` record for this game as a body holds it, or null (no network: a session in memory): the
   * START we host and our START_ACK carry it (protocol.md 14, "In the START and the START_ACKs"; the page sets it). */
  ownWhere: (() => Encodable | null) | null = null;
  private readonly seeds = new Map<number, [Uint8Array, Uint8Array]>();
  /** By `${round}|${turn}`: our card and its nonce. */
  private readonly nonces = new Map<string, [Card, Uint8Array]>();
  /** `${round}|${turn}` of the cards our node played by the stand-in's rule (11.2): their reveal says auto. */
  private readonly autos = new Set<string>();
  /** By round (sealed deal): our key pair, permutation seed and commitment nonce. */
  private readonly sealedSecrets = new Map<number, { pair: KeyPair; seed: Uint8Array; nonce: Uint8Array }>();
  /** Our hidden hand in a sealed round we shuffled: card -> deck position. */
  private hidden: { round: number; cards: Map<Card, number>; opens: boolean } | null = null;

  /** The slot of every message of ours accepted (`slotOf`): we sign one per slot, ever. */
  private readonly signedSlots = new Set<string>();
  /** Replaying our own transcript after a restart: nothing is signed, sent, drawn or recorded. */
  private replaying = false;

  constructor(readonly identity: Identity, private readonly entropy: Entropy, game: Uint8Array | null = null,
    private readonly relay = true, written: Uint8Array | null = null) {
    super(game);
    this.ownPeer = identity.peer;
    this.ownKey = hex(identity.peer);
    this.transcript = new TranscriptWriter(identity, written);
  }

  /** Our peer id's key (hex) in our inbox's tables. */
  private readonly ownKey: string;

  /** How many messages we signed (our chain's length): read before and after each step that may sign one. */
  private signedSoFar(): number {
    return this.inbox.chainLength(this.ownKey);
  }

  /**
   * A node restarted (section 13): its transcript so far and its secrets records give it back its state. The
   * messages of the transcript are taken again, silently; then it goes on, and what it sends first is returned.
   */
  static restart(identity: Identity, entropy: Entropy, written: Uint8Array, secrets: readonly ReadonlyMap<string, unknown>[],
    relay = true): { seat: Seat; out: Outgoing[] } {
    const seat = new this(identity, entropy, null, relay, written); // a subclass's restart gives one of its own
    for (const record of secrets) seat.restore(record as MsgMap);
    seat.replaying = true;
    for (const wire of TranscriptWriter.replayed(written)) seat.receive(wire, null); // a split commit's versions too
    seat.replaying = false;
    return { seat, out: seat.input(() => seat.resume()) };
  }

  private restore(record: MsgMap): void {
    const r = record.get("round") as number;
    const nonce = record.get("nonce") as Uint8Array;
    const kind = record.get("kind");
    if (kind === "play") {
      this.nonces.set(`${r}|${record.get("turn") as number}`, [record.get("card") as Card, nonce]);
      if (record.get("auto") === true) this.autos.add(`${r}|${record.get("turn") as number}`);
    }
    if (kind === "seed") this.seeds.set(r, [record.get("contribution") as Uint8Array, nonce]);
    if (kind === "sealed") {
      const e = record.get("key") as Uint8Array;
      this.sealedSecrets.set(r, { pair: { e, d: inverseKey(e) as Uint8Array }, seed: record.get("seed") as Uint8Array, nonce });
    }
  }

  /** Our seat, or null (a spectator; or before the START). */
  get seat(): number | null {
    if (this.seatFound.peers !== this.peers) {
      const seat = this.seatOf(this.identity.peer);
      this.seatFound = { peers: this.peers, seat: seat < 0 ? null : seat };
    }
    return this.seatFound.seat;
  }

  /** Our seat, found once for the roster it is in (asked at every pass of the step machine). */
  private seatFound: { peers: readonly Uint8Array[] | null; seat: number | null } = { peers: null, seat: null };

  protected override auditTrusts(): number | null {
    return this.seat;
  }

  /** Bytes peer `via` delivered: what to send now. */
  deliver(wire: Uint8Array, via: Uint8Array | null = null): Outgoing[] {
    return this.input(() => this.receive(wire, via));
  }

  /** Start a game as its host: START with the settings and the ordered roster; the game id binds our key and salt. */
  /** `carry`: the START's optional `carry` (section 9: the game this one continues after a seat's equivocation). */
  hostGame(salt: Uint8Array, settings: Settings, roster: readonly Member[],
    carry: { game: Uint8Array; rounds: number; scores: number[] } | null = null): Outgoing[] {
    return this.input(() => {
      if (this.phase !== "lobby") throw new Error("only a node in the lobby can host");
      if (!roster.some((m) => equal(m.key, this.identity.publicKey))) throw new Error("the host must sit at the table");
      const game = gameIdFor(this.identity.publicKey, salt);
      const fields = body(["variant", settings.variant], ["point_limit", settings.pointLimit],
        ["max_rounds", settings.maxRounds], ["deal", settings.deal]);
      if (settings.clock !== null) fields.set("clock", settings.clock);
      const fieldsOfStart = body(["salt", salt], ["settings", fields],
        ["roster", roster.map((m) => body(["key", m.key], ["name", m.name], ["bot", m.bot]))]);
      if (carry !== null) fieldsOfStart.set("carry", body(["game", carry.game], ["rounds", carry.rounds], ["scores", carry.scores]));
      const where = this.ownWhere !== null ? this.ownWhere() : null;
      if (where !== null) fieldsOfStart.set("where", where); // where we listen, in our own signed word (protocol.md 14)
      const start = seal(this.identity, game, 0, NO_PREVIOUS, "START", fieldsOfStart, this.inbox.ids);
      this.out.push({ wire: start.wire, to: null, skip: [], watchersOnly: false });
      this.handle({ type: "start", env: start, via: this.identity.peer });
    });
  }

  /** Our seat commits to `card` for the turn now (PLAY_COMMIT; a nonce drawn). */
  play(card: Card): Outgoing[] {
    return this.ask(() => this.commitCard(card, false));
  }

  /** PLAY_COMMIT of `card`; `auto`: the stand-in's card, so that our reveal says so (11.2). */
  private commitCard(card: Card, auto: boolean): void {
    const seat = this.seated("turn");
    const r = this.round;
    const t = this.turn;
    if (this.slot("PLAY_COMMIT", r, t).has(seat)) throw new Error(`already committed a card for turn ${t + 1}`);
    const position = this.positionOf(seat, card);
    const played = Array.from({ length: t }, (_, u) => this.nonces.get(`${r}|${u}`)?.[0]);
    const open = this.hands[seat]; // an open deal's hand, or a sealed hand open to all (we did not shuffle, 17.9)
    const held = open ? open.has(card) : !played.includes(card);
    if (!held || position === undefined) throw new Error(`${card} is not in your hand`);
    const nonce = this.draw(NONCE_SIZE);
    this.nonces.set(`${r}|${t}`, [card, nonce]);
    const record = body(["kind", "play"], ["round", r], ["turn", t], ["card", card], ["nonce", nonce]);
    if (auto) {
      this.autos.add(`${r}|${t}`);
      record.set("auto", true);
    }
    this.secrets.push(record);
    const commit = commitment("play", this.gameId, r, t, seat, playValue(card, position), nonce);
    this.send("PLAY_COMMIT", body(["round", r], ["turn", t], ["commit", commit], ["state", this.stateNow()]));
  }

  /** Our seat, whose card is below every row's end, takes row `row` (0..3). */
  chooseRow(row: number): Outgoing[] {
    return this.ask(() => this.sendRow(row, false));
  }

  private sendRow(row: number, auto: boolean): void {
    const seat = this.seated("turn");
    if (!Number.isInteger(row) || row < 0 || row > 3) throw new Error(`row must be 0..3, got ${row}`);
    if (this.slot("ROW_CHOICE", this.round, this.turn).has(seat)) throw new Error("you chose a row already");
    const fields = body(["round", this.round], ["turn", this.turn], ["row", row]);
    if (auto) fields.set("auto", true);
    this.send("ROW_CHOICE", fields);
  }

  /** The move our seat owes now, made by the stand-in's rule and marked auto (11.2: its clock ran out, or it is
   * away): the lowest card of its hand, the row with the fewest bull heads, the draft's lowest open card. */
  standIn(): Outgoing[] {
    return this.ask(() => {
      const seat = this.seated(this.phase === "deal" ? "deal" : "turn");
      if (this.phase === "deal") { // the draft's pick: the lowest open card (a DRAFT_PICK carries no auto)
        const draft = (this.settings as Settings).variant === "draft";
        if (!draft || draftOrder(this.n, this.round)[this.draftPicks] !== seat) throw new Error("no move is owed now");
        this.send("DRAFT_PICK", body(["round", this.round], ["pick", this.draftPicks], ["card", standInPick(this.draftOpen)]));
      } else if (!this.slot("PLAY_COMMIT", this.round, this.turn).has(seat)) this.commitCard(standInCard(this.handNow(seat)), true);
      else if (this.rowOwed(seat)) this.sendRow(standInRow(this.rows), true);
      else throw new Error("no move is owed now");
    });
  }

  /** Ask the stand-in for seat x's move of this turn, which the game waits on (STANDIN, 11.2): once every other
   * seat asked, x's own node makes it, marked auto. */
  askStandIn(x: number): Outgoing[] {
    return this.ask(() => {
      const seat = this.seated("turn");
      const at = this.waitsOn();
      if (x === seat || !at || !this.missing(at).includes(x)) throw new Error(`the game is not waiting for seat ${x}`);
      if (this.slot("STANDIN", this.round, 100 * this.turn + x).has(seat)) {
        throw new Error(`already asked the stand-in for seat ${x} in this turn`);
      }
      this.send("STANDIN", body(["round", this.round], ["turn", this.turn], ["seat", x]));
    });
  }

  /** Our cards still in hand this round (sealed: our opened hand but the cards we played). */
  private handNow(seat: number): Card[] {
    const open = this.hands[seat];
    if (open) return [...open];
    const played = new Set(Array.from({ length: this.turn }, (_, u) => this.nonces.get(`${this.round}|${u}`)?.[0]));
    return [...(this.hiddenHand(seat)?.keys() ?? [])].filter((c) => !played.has(c));
  }

  /** The turn waits on our row choice. */
  private rowOwed(seat: number): boolean {
    const at = this.waitsOn();
    return at !== null && at[1] === commitStep(this.turn) + 2 && this.missing(at).includes(seat);
  }

  /** Every seat active at `at` but `seat` and the expelled seats asked the stand-in for `seat`'s move of this turn,
   * at least one (11.2: an expelled seat is never needed for the ask; nothing it signs from the message that expelled
   * it on counts, so its ask may never come). */
  protected standInAsked(seat: number, at: Pos): boolean {
    const voters = this.slot("STANDIN", this.round, 100 * this.turn + seat);
    if (!voters.size) return false; // no ask (asked at every pass: no array made then)
    const others = this.activeAt(at).filter((s) => s !== seat && !this.expelled.has(s));
    return others.length > 0 && allIn(others, voters);
  }

  /** Draft variant: our seat takes `card` from the open cards (DRAFT_PICK numbered by the pick now). */
  pick(card: Card): Outgoing[] {
    return this.ask(() => {
      this.seated("deal");
      this.send("DRAFT_PICK", body(["round", this.round], ["pick", this.draftPicks], ["card", card]));
    });
  }

  /** Vote to drop seat `x`, whose message the game has waited on too long (11.1): DROP at the position it waits on. */
  voteOut(x: number): Outgoing[] {
    return this.ask(() => {
      const seat = this.seat;
      const at = this.waitsOn();
      if (seat === null || this.dropped.has(seat) || !at || !this.activeAt(at).includes(seat)) {
        throw new Error("only a player still in the game can vote");
      }
      if (x === seat || this.phase === "starting" || !this.missing(at).length
        || (!this.missing(at).includes(x) && !this.activeAt(at).includes(x))) throw new Error(`the game is not waiting for seat ${x}`);
      if (this.voted(seat, at, x)) throw new Error(`already voted to drop seat ${x} at this step`);
      if (this.wentOn(seat, x, at)) throw new Error(`we went on from seat ${x}'s message at this step (a KEEP): no vote now`);
      this.vote(x, at);
    });
  }

  /** Ask for our seat back, the others having dropped it (11.3): REJOIN with the round we are at. */
  rejoin(): Outgoing[] {
    return this.ask(() => {
      const seat = this.seat;
      if (seat === null || !this.dropped.has(seat)) throw new Error("your seat is not dropped");
      if (this.phase === "game-end" || this.phase === "over") { // no round is left to play again in (protocol.md 11.3)
        throw new Error("the game is over: no round is left to take your seat back in");
      }
      if (this.askOf(seat, this.round)) throw new Error("you asked for your seat back already");
      this.send("REJOIN", body(["round", this.round]));
    });
  }

  /** Seat x's ask (11.3): its REJOIN of the lowest seq for its drop's round or later, up to round r; or null. */
  private askOf(x: number, r: number): Envelope | null {
    const gone = this.dropped.get(x);
    let ask: Envelope | null = null;
    for (let k = gone ? gone[0] : r + 1; k <= r; k++) {
      const env = this.slot("REJOIN", k, 0).get(x);
      if (env && (!ask || env.seq < ask.seq)) ask = env;
    }
    return ask;
  }

  /** The seats that went on from x's message where the game waits on it (a KEEP naming it, or a message for a later
   * position: protocol.md 11.1, "went on") without voting it out there, while we still lack that message. An honest
   * seat passes on what it goes on from (the seat after the sender relays it, and any answers our asks: `heads`):
   * the page's policy votes such a seat out together with x, gone from its view, once x's message still has not
   * come a drop time after it saw the going on (page_waiting.ts; the reference's net/waiting.py: never_passed_on). */
  neverPassedOn(x: number): number[] {
    const at = this.start !== null && this.phase !== "starting" ? this.waitsOn() : null;
    if (at === null || x === this.seat || !this.missing(at).includes(x)) return [];
    const voted = new Set(this.voters(at, x));
    return this.activeAt(at).filter((w) => w !== x && w !== this.seat && !voted.has(w) && this.wentOn(w, x, at));
  }

  /** Whether the seats `absent` (gone, as this node sees them) can be voted out without one of them: one alone by
   * every other seat, several together by the quorum rule (protocol.md 11.1, quorum.ts: mostNamed). With more, a
   * vote naming one of them counts only once one of them comes back and votes the others out, and would then drop
   * that seat for coming back (as net/waiting.py: few_enough; issue 26). */
  fewEnoughGone(absent: Iterable<number>): boolean {
    const at = this.waitsOn();
    if (at === null) return true;
    const active = this.activeAt(at);
    const gone = [...new Set(absent)].filter((s) => active.includes(s)); // a seat dropped already does not count
    return gone.length <= Math.max(1, Math.floor((this.quorum.seatedBefore(at).length - 1) / 2));
  }

  /** The seats active at `at` whose DROP there names x (the reference's Table.voters). */
  protected voters(at: Pos, x: number): number[] {
    return quorum.voters(this.quorum, at, x);
  }

  private voted(seat: number, at: Pos, x: number): boolean {
    return this.slot("DROP", at[0], voteSlot(at[1], at[2], x)).has(seat);
  }

  /** DROP {round, step, seat}, and `place` at a step with places (32; a draft's step 0; a sealed game's 0 and 1). */
  private vote(x: number, at: Pos): void {
    this.send("DROP", this.votePosition(x, at));
  }

  /** The body of a DROP or KEEP naming x at `at`: at a step with places (32; a draft's step 0; a sealed game's 0 and
   * 1), the place too. */
  private votePosition(x: number, at: Pos): Body {
    const fields = body(["round", at[0]], ["step", at[1]], ["seat", x]);
    const settings = this.settings as Settings;
    if (at[1] === ROUND_END_STEP || (settings.variant === "draft" && at[1] === 0) || (settings.deal === "sealed" && at[1] <= 1)) {
      fields.set("place", at[2]);
    }
    return fields;
  }

  /** Sign KEEP where 11.1 says, every one owed now in position and seat order (the reference's steps.count_votes):
   * true if we signed any. (An open vote is never joined here: a vote alone is a claim, not evidence; the page's
   * policy, page_waiting.ts, joins it when it sees the seat gone itself: 11.1.) */
  private oweVotes(seat: number): boolean {
    if (!this.votes.size) return false;
    const now = this.waitsOn();
    if (!now) return false;
    let signed = false;
    for (const at of this.votePositions()) {
      if (cmp(at, now) > 0) continue; // (a KEEP may be for an earlier round: its ROUND_END, when we wait on a voter in the next)
      for (const x of this.voteTargets(at)) {
        if (!this.activeAt(at).includes(x) || this.dropped.has(x)) continue;
        if (this.keeps(seat, at, x)) {
          this.send("KEEP", this.votePosition(x, at));
          signed = true;
        }
      }
    }
    return signed;
  }

  /** We hold x's message at `at` and wait on a seat that voted to drop it there, or hold back there ourselves (our own
   * vote on another seat is open) while x voted at `at` or went past it: we sign KEEP (11.1, "KEEP" and "KEEP when
   * every seat voted"; the reference's steps.keeps). Never for a vote that is void already, nor a seat that only sent
   * its own message at `at` (it may have died since). */
  private keeps(seat: number, at: Pos, x: number): boolean {
    if (seat === x || !this.activeAt(at).includes(seat) || this.voted(seat, at, x)) return false;
    const now = this.waitsOn() as Pos;
    const waiting = this.missing(now);
    if ((waiting.includes(x) && cmp(at, now) === 0) || this.wentOn(seat, x, at)) return false;
    const q = this.quorum;
    if (!quorum.mayDrop(q, at, x)) return false;
    if (quorum.voters(q, at, x).some((v) => waiting.includes(v))) return true;
    const alive = this.wentPast(x, at) || quorum.votesAt(q, x, at);
    return alive && quorum.undecided(q, seat, at);
  }

  private get gameId(): Uint8Array {
    return (this.start as Envelope).game;
  }

  private seated(phase: "turn" | "deal"): number {
    const seat = this.seat;
    if (seat === null) throw new Error("a spectator does not play");
    if (this.dropped.has(seat)) throw new Error("you were dropped from this game: a stand-in plays your hand");
    if (this.phase !== phase) throw new Error(`not now: the game is in phase ${this.phase}`);
    return seat;
  }

  /** A person's ask (a move, a vote, its seat back), run as any input; refused once the game is aborted, whatever it
   * asks: an aborted session signs nothing more (protocol.md 11; the reference's Session._ask). */
  private ask(action: () => void): Outgoing[] {
    if (this.phase === "aborted") throw new Error("the game was aborted");
    return this.input(action);
  }

  private input(action: () => void): Outgoing[] {
    this.out = [];
    this.run(action);
    const out = this.out;
    this.out = [];
    return out;
  }

  private draw(n: number): Uint8Array {
    const bytes = this.entropy(n);
    if (bytes.length !== n) throw new RangeError(`entropy gave ${bytes.length} bytes, not ${n}`);
    return bytes;
  }

  /** Sign a message of ours, send it, and accept it here as the next of our chain; never a second one for a slot we
   * signed already (a rebuild may reach its step again while ours waits for our own vote to be decided: a second
   * would be a `duplicate` proven against us, protocol.md 11.1, "A node signs at most one message per slot"). */
  private send(kind: Kind, fields: Body): void {
    if (this.signedSlots.has(slotOf(kind, fields))) return;
    const chain = this.inbox.chain(this.identity.peer);
    const last = chain[chain.length - 1];
    const env = seal(this.identity, this.gameId, chain.length, last ? last.hash : NO_PREVIOUS, kind, fields, this.inbox.ids);
    this.out.push({ wire: env.wire, to: null, skip: [], watchersOnly: false });
    this.inbox.own(env, (found) => this.handle(found));
  }

  protected override accepted_(env: Envelope, via: Uint8Array | null): void {
    if (equal(env.sender, this.identity.peer)) this.signedSlots.add(slotOf(env.kind as Kind, env.body));
    if (this.replaying) return; // in the transcript already; relayed when it first came
    if (!this.transcript.sealed) this.transcript.message(env.wire);
    if (!this.relay || equal(env.sender, this.identity.peer)) return;
    // The seat after the sender relays to the other seats; every node relays to the spectators (section 8).
    const sender = this.seatOf(env.sender);
    const relayer = sender < 0 ? null : this.peers[(sender + 1) % this.n] as Uint8Array;
    this.out.push({ wire: env.wire, to: null, skip: via === null ? [env.sender] : [env.sender, via],
      watchersOnly: relayer === null || !equal(relayer, this.identity.peer) });
  }

  /** The messages of every proof we spread, others' only, in order (by their hex): every later link's heads
   * answer carries them (`missingFor`). */
  private readonly proofs = new Map<string, Uint8Array>();

  /** A proof goes to every peer (section 12: every node comes to hold every version of a split commit); its messages
   * are kept for every later link (protocol.md 14 `heads`), but those we signed ourselves (a copy of our own message
   * sent again is a `replay` where it came from us before). Kept while replaying our transcript too. */
  protected override spread(wires: readonly Uint8Array[]): void {
    for (const wire of wires) {
      const key = hex(wire);
      if (!this.proofs.has(key) && !equal(open(wire).sender, this.identity.peer)) this.proofs.set(key, wire);
    }
    if (this.replaying) return;
    for (const wire of wires) this.out.push({ wire, to: null, skip: [], watchersOnly: false });
  }

  /** The wires a peer whose heads are `have` (sender's peer id in hex -> messages of it held) lacks, in the order
   * accepted; then the messages of every proof we spread that are not among them (protocol.md 14 `heads`: a peer that
   * was down or unlinked when a proof passed gets it on its next link; a link sends a message once). */
  missingFor(have: ReadonlyMap<string, number>): Uint8Array[] {
    const lacked = this.accepted.filter((env) => env.seq >= (have.get(hex(env.sender)) ?? 0)).map((env) => env.wire);
    if (!this.proofs.size) return lacked;
    const listed = new Set(lacked.map(hex));
    return [...lacked, ...[...this.proofs].filter(([key]) => !listed.has(key)).map(([, wire]) => wire)];
  }

  /** A fault is recorded as section 13 says: the evidence not already a msg record (the writer cuts the detail),
   * within the caps on non-fatal records per peer and in all (the transcript's). */
  protected override note(fault: Fault): void {
    super.note(fault);
    // (one the transcript would not record is not prepared: its messages read again, a fault at a time, were the cost
    // of each of a seat's junk frames on a page, red team, session 44)
    if (this.replaying || this.transcript.sealed || !this.transcript.takes(fault)) return;
    const recorded = new Set(TranscriptWriter.messages(this.transcript.bytes()).map(hex));
    this.transcript.fault({ ...fault, evidence: fault.evidence.filter((w) => !recorded.has(hex(w))) });
  }

  /** Sign the one message we owe at this fixed point, if any: true if we signed one (the session then takes
   * another pass). A message owed for a slot we signed already is not signed again (`send`): no pass follows. */
  protected override owe(): boolean {
    const before = this.signedSoFar();
    return this.oweNow() && this.signedSoFar() > before;
  }

  protected override joinFirst(): boolean {
    if (this.replaying || this.phase === "over" || this.seat === null || this.start === null) return false;
    const before = this.signedSoFar();
    return this.oweVotes(this.seat) && this.signedSoFar() > before;
  }

  protected override oweAtOnce(): boolean {
    if (this.replaying || this.phase === "over" || this.seat === null || this.start === null || this.dropped.has(this.seat)) {
      return false;
    }
    const before = this.signedSoFar();
    const sent = this.oweEnd(this.seat);
    // (our chain read again whether or not we signed: V8 would throw away the compiled step machine at the first
    // round end, the first time it took that path)
    const grew = this.signedSoFar() > before;
    return sent && grew;
  }

  private oweNow(): boolean {
    if (this.replaying) return false; // what we signed before is in the transcript, and comes in its turn
    if (this.phase === "over") { // the transcript sealed; nothing is signed after the end (11, "After the end")
      if (!this.transcript.sealed) this.transcript.seal();
      return false;
    }
    const seat = this.seat;
    if (seat === null || this.start === null) return false;
    // The reference signs SEALED_KEYS and ROUND_END in the step that ends the round, GAME_END in the one that ends
    // the game, and only then counts the votes it owes there (its next pass): those come first (protocol.md 11).
    if (!this.dropped.has(seat) && this.oweEnd(seat)) return true;
    if (this.oweVotes(seat)) return true;
    if (this.dropped.has(seat)) return false;
    const r = this.round;
    const settings = this.settings as Settings;
    switch (this.phase) {
      case "starting":
        if (equal(this.start.sender, this.identity.peer) || this.slot("START_ACK", 0, 0).has(seat)) return false;
        {
          const ack = body(["start", this.start.hash]);
          // our own record whenever we listen, whatever the START carries (protocol.md 14, "In the START and the
          // START_ACKs": a host that left its own out would otherwise keep every seat's out of the START_ACKs)
          const where = this.ownWhere !== null ? this.ownWhere() : null;
          if (where !== null) ack.set("where", where);
          this.send("START_ACK", ack);
        }
        return true;
      case "deal":
        if (settings.variant === "draft") return false;
        return settings.deal === "sealed" ? this.oweDeck(seat) : this.oweSeed(seat);
      case "turn": {
        if (this.oweAlarm(seat)) return true;
        const t = this.turn;
        const c = commitStep(t);
        // Every other seat asked the stand-in for our stalled move: our node makes it, marked auto (11.2).
        if (this.activeAt([r, c, 0]).includes(seat) && !this.slot("PLAY_COMMIT", r, t).has(seat) && this.standInAsked(seat, [r, c, 0])) {
          this.commitCard(standInCard(this.handNow(seat)), true);
          return true;
        }
        if (this.standInAsked(seat, [r, c + 2, 0]) && this.rowOwed(seat)) { // (the cheap test first: both only read)
          this.sendRow(standInRow(this.rows), true);
          return true;
        }
        const committers = this.activeAt([r, commitStep(t), 0]);
        const commits = this.slot("PLAY_COMMIT", r, t);
        if (!commits.has(seat) || this.slot("PLAY_REVEAL", r, t).has(seat) || !allIn(committers, commits)
          || this.heldBack([r, commitStep(t), 0])) return false;
        this.sendReveal(seat, committers, commits);
        return true;
      }
      default:
        return false;
    }
  }

  /** Our PLAY_REVEAL of the current turn, on the commit set of `committers`. */
  private sendReveal(seat: number, committers: readonly number[], commits: ReadonlyMap<number, Envelope>): void {
    const r = this.round;
    const t = this.turn;
    const kept = this.nonces.get(`${r}|${t}`) as [Card, Uint8Array];
    const card = kept[0];
    const nonce = kept[1];
    const position = this.positionOf(seat, card) ?? null;
    const digest = this.commitSetOf(committers, commits);
    const fields = body(["round", r], ["turn", t], ["card", card], ["nonce", nonce], ["commits", digest]);
    if (position !== null) fields.set("position", position);
    if (this.autos.has(`${r}|${t}`)) fields.set("auto", true);
    this.send("PLAY_REVEAL", fields);
  }

  /** 17.8: a round stopped for an audit at once after our PLAY_COMMIT of a turn below its stop and before our
   * PLAY_REVEAL of it (the alarm's sender revealed that turn before we had every commit of it): our reveal first,
   * once every commit of the turn is in, then our keys (so a seat's keys in mean its reveals below the stop are in,
   * which the audit needs). True: we signed it; false: we wait for the turn's commits; null: none owed. */
  private revealOwedBeforeKeys(seat: number): boolean | null {
    const r = this.round;
    const t = this.turn;
    if (t >= this.auditStop(r)) return null;
    const c = commitStep(t);
    const commits = this.slot("PLAY_COMMIT", r, t);
    if (!commits.has(seat) || this.slot("PLAY_REVEAL", r, t).has(seat) || !this.activeAt([r, c + 1, 0]).includes(seat)) return null;
    const committers = this.activeAt([r, c, 0]);
    if (!allIn(committers, commits) || this.heldBack([r, c, 0])) return false;
    this.sendReveal(seat, committers, commits);
    return true;
  }

  /** SEALED_KEYS and ROUND_END at the round's end, GAME_END at the game's: true if we signed one. */
  private oweEnd(seat: number): boolean {
    const r = this.round;
    const settings = this.settings as Settings;
    switch (this.phase) {
      case "round-end":
        if (!this.scored && settings.deal === "sealed") return this.revealOwedBeforeKeys(seat) ?? this.oweKeys(seat);
        if (!this.scored || this.slot("ROUND_END", r, 0).has(seat) || !this.activeAt([r, ROUND_END_STEP, 1]).includes(seat)) return false;
      {
        const fields = body(["round", r], ["penalties", (this.history[r] as number[]).slice()],
          ["scores", this.scores.slice()], ["state", stateHash(betweenRounds(r, this.scores))]);
        // 11.3: each dropped seat whose ask we hold, with the seq of its ask (absent: none)
        const back = [...this.dropped.keys()].sort((a, b) => a - b).flatMap((x) => {
          const ask = this.askOf(x, r);
          return ask ? [[x, ask.seq]] : [];
        });
        if (back.length) fields.set("back", back);
        this.send("ROUND_END", fields);
        return true;
      }
      case "game-end":
        if (this.slot("GAME_END", 0, 0).has(seat) || !this.activeAt([r, GAME_END_STEP, 0]).includes(seat)) return false;
        this.send("GAME_END", body(["rounds", r + 1], ["scores", this.scores.slice()], ["winners", this.winners],
          ["state", stateHash(betweenRounds(r, this.scores))]));
        return true;
      default:
        return false;
    }
  }

  /** The open deal (section 10.2): commit to a contribution (drawn now: 32 bytes, then the nonce), then reveal it
   * once every active seat's commitment is in. */
  private oweSeed(seat: number): boolean {
    const r = this.round;
    const commits = this.slot("SEED_COMMIT", r, 0);
    if (!commits.has(seat)) {
      if (!this.activeAt([r, 0, 0]).includes(seat)) return false;
      const contribution = this.draw(CONTRIBUTION_SIZE);
      const nonce = this.draw(NONCE_SIZE);
      this.seeds.set(r, [contribution, nonce]);
      this.secrets.push(body(["kind", "seed"], ["round", r], ["contribution", contribution], ["nonce", nonce]));
      this.send("SEED_COMMIT", body(["round", r], ["commit", commitment("seed", this.gameId, r, 0, seat, contribution, nonce)]));
      return true;
    }
    if (this.slot("SEED_REVEAL", r, 0).has(seat) || !allIn(this.activeAt([r, 0, 0]), commits)
      || this.heldBack([r, 0, 0])) return false;
    if (!this.activeAt([r, 1, 0]).includes(seat)) return false;
    const [contribution, nonce] = this.seeds.get(r) as [Uint8Array, Uint8Array];
    this.send("SEED_REVEAL", body(["round", r], ["contribution", contribution], ["nonce", nonce]));
    return true;
  }

  /** Our secrets of a sealed round (17.3, 17.5), drawn the first time they are needed: the key pair's draws, then the
   * permutation seed, then the commitment nonce. */
  private sealedSecret(r: number): { pair: KeyPair; seed: Uint8Array; nonce: Uint8Array } {
    let got = this.sealedSecrets.get(r);
    if (!got) {
      const pair = drawKeyPair(() => this.draw(32));
      got = { pair, seed: this.draw(32), nonce: this.draw(NONCE_SIZE) };
      this.sealedSecrets.set(r, got);
      this.secrets.push(body(["kind", "sealed"], ["round", r], ["key", pair.e], ["seed", got.seed], ["nonce", got.nonce]));
    }
    return got;
  }

  /** The sealed deal (17.5): our SEALED_SHUFFLE when the seats before us in seat order shuffled, then our
   * SEALED_UNLOCK when every shuffle and the unlocks before ours are in. */
  private oweDeck(seat: number): boolean {
    const sealed = this.sealed;
    const r = this.round;
    if (!sealed) return false;
    if (sealed.nextShuffler === seat && !this.slot("SEALED_SHUFFLE", r, 0).has(seat)) {
      const { pair, seed, nonce } = this.sealedSecret(r);
      const commit = commitment("sealed", this.gameId, r, 0, seat, concat(pair.e, seed), nonce);
      const deck = shuffleStep(sealed.previous, pair.e, seed);
      sealed.noteOwnShuffle(sealed.previous, deck);
      this.send("SEALED_SHUFFLE", body(["round", r], ["deck", deck], ["commit", commit]));
      return true;
    }
    if (sealed.nextUnlocker === seat && !this.slot("SEALED_UNLOCK", r, 0).has(seat)) {
      const values = unlockValues(sealed.current, seat, this.n, this.sealedSecret(r).pair.d);
      this.send("SEALED_UNLOCK", body(["round", r], ["values", values]));
      return true;
    }
    return false;
  }

  /** After a sealed round's last turn, or when it stops for an audit: our SEALED_KEYS (17.7). */
  private oweKeys(seat: number): boolean {
    const r = this.round;
    if (!this.sealed?.shufflers.includes(seat) || this.slot("SEALED_KEYS", r, 0).has(seat)) return false;
    this.sendKeys(r, false);
    return true;
  }

  private sendKeys(r: number, alarm: boolean): void {
    const { pair, seed, nonce } = this.sealedSecret(r);
    this.send("SEALED_KEYS", body(["round", r], ["key", pair.e], ["seed", seed], ["nonce", nonce], ["alarm", alarm]));
  }

  /** 17.8: our hand in a sealed round we shuffle does not open (someone cheated in the shuffle or the unlock): we
   * reveal our keys at once with `alarm`, unless an alarm of the round is in already (as the reference: one alarm
   * stops the round for everyone). */
  private oweAlarm(seat: number): boolean {
    const r = this.round;
    const keys = this.slot("SEALED_KEYS", r, 0);
    if (!this.sealed?.shufflers.includes(seat) || keys.has(seat) || this.alarms(r).length) return false;
    if (this.ownHand(seat)?.opens !== false) return false;
    this.sendKeys(r, true);
    return true;
  }

  /** 17.8: another seat revealed a card of our own unplayed hand, a cheat only we can see. We reveal our keys at
   * once with `alarm` (unless we sent our SEALED_KEYS of the round already), and the reveal is taken as it is: the
   * audit names the cheat. */
  protected override ownCard(seat: number, card: Card): boolean {
    const me = this.seat;
    const own = me === null || seat === me ? null : this.ownHand(me);
    if (me === null || !own?.opens || !own.cards.has(card)) return false;
    const r = this.round;
    for (let u = 0; u < this.turn; u++) if (this.nonces.get(`${r}|${u}`)?.[0] === card) return false;  // played
    if (!this.replaying && !this.slot("SEALED_KEYS", r, 0).has(me)) this.sendKeys(r, true);
    return true;
  }

  /** A card's deck position in our hand in a sealed round (17.6; hidden, or open where we did not shuffle: a seat that
   * forfeited, 17.9); null in an open deal; undefined if not in it. */
  private positionOf(seat: number, card: Card): number | null | undefined {
    const hidden = this.hiddenHand(seat);
    if (hidden) return hidden.get(card);
    const sealed = this.sealed;
    return sealed ? handPositions(seat).find((p) => cardOf(sealed.valueAt(p)) === card) : null;
  }

  /** Our hand in a sealed round we shuffled, opened with our d (17.5 step 4); null where the hand is open. (Where
   * it does not open, the cards that do: the round stops for an audit, 17.8.) */
  protected hiddenHand(seat: number): Map<Card, number> | null {
    return this.ownHand(seat)?.cards ?? null;
  }

  /** Our hidden hand and whether it opens (17.8: every value to a card of the round's deck, ten distinct cards, none
   * public at the deal: a row's, or a seat's whose hand is open); null where the hand is open. */
  private ownHand(seat: number): { cards: Map<Card, number>; opens: boolean } | null {
    const sealed = this.sealed;
    if (!sealed || !sealed.shufflers.includes(seat)) return null;
    if (this.hidden?.round !== this.round) {
      const d = this.sealedSecret(this.round).pair.d;
      const deck = new Set(deckOf((this.settings as Settings).variant, this.n));
      const open = new Set<Card | null>(sealed.rows ?? []);
      for (let s = 0; s < this.n; s++) {
        if (!sealed.shufflers.includes(s)) for (const p of handPositions(s)) open.add(cardOf(sealed.valueAt(p)));
      }
      const cards = new Map<Card, number>();
      let opens = true;
      for (const p of handPositions(seat)) {
        const card = cardOf(X(d, sealed.valueAt(p)));
        if (card === null || cards.has(card) || !deck.has(card) || open.has(card)) opens = false;
        if (card !== null) cards.set(card, p);
      }
      this.hidden = { round: this.round, cards, opens };
    }
    return this.hidden;
  }

  /** The secrets records, as one msgpack array (what the golden games pin). */
  secretsBytes(): Uint8Array {
    return encode(this.secrets);
  }
}
