/**
 * A person's seat in a page (issue 26): the signing Seat of seat.ts plus what a screen needs to show and ask —
 * the hand, whether a card or a row is wanted now, and every fault this node found. Read-only views of the
 * session's state; the moves go through Seat's intents (play, chooseRow).
 */
import type { Card } from "./cards.js";
import { bytes, cards as deckCards, deal as deals, seat as seats, session as sessions, steps, transcript, turn } from "./main.js";
import type { Fault } from "./session.js";

const { Seat } = seats;
const { commitStep } = steps;
const { chooser, standInPick } = turn;
const { deck } = deckCards;
const { draftOrder } = deals;

/** What the page asks of its person now. */
export type Wanted = "card" | "row" | "pick" | "wait";

const { hex } = bytes;
const { MAX_FAULTS, MAX_FAULTS_PER_PEER } = transcript;

/** Fault codes that make a message a bad one for the link that delivered it (the reference's net/frames.py:
 * BAD_MESSAGE_CODES): bytes nobody can be held to. */
export const BAD_MESSAGE_CODES: ReadonlySet<string> = new Set(["malformed", "wrong-game", "unknown-sender", "bad-signature"]);

/** Three stand-in cards in a row make a seat away (protocol.md 11.2): counted by the session (session.ts). */
export const AWAY_AFTER = sessions.AWAY_AFTER;

export class PageSeat extends Seat {
  /** The faults this node found, in order (what the verdict at the end names): a non-fatal one only under the caps
   * the transcript keeps them by (MAX_FAULTS_PER_PEER, MAX_FAULTS; protocol.md 13). Every one was kept: a seat's junk
   * frames, each a fault, grew the page's heap without end (red team, session 44: 90,000 in 30 s). */
  readonly faults: Fault[] = [];
  /** Faults found past the caps, not kept. */
  faultsLeftOut = 0;
  private readonly faultCounts = new Map<string, number>();
  /** Bad messages each peer (hex) delivered: the non-fatal faults of BAD_MESSAGE_CODES blamed on it (page_node.ts cuts
   * a link past MAX_LINK_FAULTS of them, as the reference does). */
  readonly badFrom = new Map<string, number>();

  protected override note(fault: Fault): void {
    super.note(fault);
    const key = fault.peer ? hex(fault.peer) : "";
    if (!fault.fatal && BAD_MESSAGE_CODES.has(fault.code)) this.badFrom.set(key, (this.badFrom.get(key) ?? 0) + 1);
    if (!fault.fatal && fault.code !== "equivocation") {
      const count = this.faultCounts.get(key) ?? 0;
      if (count >= MAX_FAULTS_PER_PEER || this.faults.length >= MAX_FAULTS) {
        this.faultsLeftOut += 1;
        return;
      }
      this.faultCounts.set(key, count + 1);
    }
    this.faults.push(fault);
  }

  /** A draft round's deal under way (the cards lie open, picked in turn). */
  drafting(): boolean {
    return this.phase === "deal" && this.settings?.variant === "draft";
  }

  /** The draft's picks so far this round, in order: [seat, card] (a seat not active there: the stand-in's lowest
   * open card, as the session takes it). */
  private draftPicksNow(): [number, Card][] {
    const order = draftOrder(this.n, this.round);
    const open = new Set(deck("draft", this.n));
    const picks: [number, Card][] = [];
    for (let p = 0; p < this.draftPicks; p++) {
      const picker = order[p] as number;
      const signed = this.slot("DRAFT_PICK", this.round, p).get(picker)?.body.get("card");
      const card = typeof signed === "number" ? signed : standInPick(open);
      open.delete(card);
      picks.push([picker, card]);
    }
    return picks;
  }

  /** The open cards of a draft round, sorted ([] outside one). */
  openCards(): Card[] {
    if (!this.drafting()) return [];
    const open = new Set(deck("draft", this.n));
    for (const [, card] of this.draftPicksNow()) open.delete(card);
    return [...open].sort((a, b) => a - b);
  }

  /** The seat whose pick the draft waits on, or null. */
  picker(): number | null {
    return this.drafting() ? draftOrder(this.n, this.round)[this.draftPicks] ?? null : null;
  }

  /** Our cards still in hand this round (sorted), or [] where we have no seat or no round. */
  hand(): Card[] {
    const seat = this.seat;
    if (seat !== null && this.drafting()) {
      return this.draftPicksNow().filter(([s]) => s === seat).map(([, c]) => c).sort((a, b) => a - b);
    }
    if (seat === null || (this.phase !== "turn" && this.phase !== "deal")) return [];
    const open = this.hands[seat];
    if (open) return [...open].sort((a, b) => a - b);
    if (this.phase !== "turn") return [];
    const hidden = this.hiddenHand(seat);
    if (!hidden) return [];
    const played = new Set<Card>();
    for (let t = 0; t < this.turn; t++) {
      const card = this.slot("PLAY_REVEAL", this.round, t).get(seat)?.body.get("card");
      if (typeof card === "number") played.add(card);
    }
    return [...hidden.keys()].filter((c) => !played.has(c)).sort((a, b) => a - b);
  }

  /** The card we committed to this turn, if any (shown as chosen until the turn resolves). */
  committed(): Card | null {
    const seat = this.seat;
    if (seat === null || this.phase !== "turn") return null;
    const reveal = this.slot("PLAY_REVEAL", this.round, this.turn).get(seat)?.body.get("card");
    if (typeof reveal === "number") return reveal;
    return this.slot("PLAY_COMMIT", this.round, this.turn).has(seat) ? this.lastPlayed : null;
  }

  private lastPlayed: Card | null = null;

  override play(card: Card) {
    const out = super.play(card);
    this.lastPlayed = card;
    return out;
  }

  /** The turn's revealed cards by seat, once every reveal is in (null before). */
  reveals(): Map<number, Card> | null {
    if (this.phase !== "turn") return null;
    const slot = this.slot("PLAY_REVEAL", this.round, this.turn);
    const at = this.waitsOn();
    if (!at || at[1] !== commitStep(this.turn) + 2) return null;
    const plays = new Map<number, Card>();
    for (const [seat, env] of slot) plays.set(seat, env.body.get("card") as Card);
    return plays;
  }

  /** The seats, ours aside, the game waits on now (net/waiting.py: waiting_for); while starting, those whose
   * START_ACK we lack, so that the page asks its peers for them (it votes on nobody then). */
  override waitingFor(): number[] {
    return super.waitingFor().filter((s) => s !== this.seat);
  }

  /** Where the game waits now, as a key (a seat waited on at a new step is waited on anew). */
  waitingAt(): string {
    const at = this.waitsOn();
    return at ? at.join("|") : "";
  }

  /** Every seat active at seat x's owed step of this turn, x aside, asked the stand-in for its move (11.2). */
  standInAskedFor(x: number): boolean {
    const at = this.waitsOn();
    return this.phase === "turn" && at !== null && this.standInAsked(x, at);
  }

  /** Another seat voted to drop x where the game waits on it now (a claim, not evidence: the page joins it only
   * where it sees x gone itself; net/waiting.py: voted_out_unseen; protocol.md 11.1). */
  votedOut(x: number): boolean {
    const at = this.waitsOn();
    return at !== null && this.voters(at, x).some((v) => v !== this.seat);
  }

  /** The messages of `peer` this node holds (its chain's length): a seat whose count grows is there. */
  heard(peer: Uint8Array): number {
    return this.inbox.chain(peer).length;
  }

  /** Whom "ask the stand-in" asks for now (the terminal's `a`, the seat page's button; protocol.md 11.2): the other
   * seats this turn waits on that we have not asked for in this turn, while our seat plays and no clock runs (a
   * clock plays a stalled seat by itself). */
  standInFor(): number[] {
    const me = this.seat;
    if (me === null || this.dropped.has(me) || this.phase !== "turn" || (this.settings?.clock ?? null) !== null) return [];
    return this.waitingFor().filter((x) => !this.slot("STANDIN", this.round, 100 * this.turn + x).has(me));
  }

  /** Our seat is dropped (the stand-in plays it). */
  droppedNow(): boolean {
    return this.seat !== null && this.dropped.has(this.seat);
  }

  /** Our seat forfeited (it made a round void: its drop, or the audit named it; 17.9): it cannot win, and its hand is dealt open from then on. */
  forfeited(): boolean {
    return this.seat !== null && this.forfeits.has(this.seat);
  }

  /** Our dropped seat asked to be back (a REJOIN of ours for its drop's round or later is in). */
  askedBack(): boolean {
    const me = this.seat;
    const gone = me === null ? undefined : this.dropped.get(me);
    if (me === null || !gone) return false;
    for (let r = gone[0]; r <= this.round; r++) if (this.slot("REJOIN", r, 0).has(me)) return true;
    return false;
  }

  /** What our person should do now. */
  wanted(): Wanted {
    const seat = this.seat;
    if (seat !== null && !this.dropped.has(seat) && this.drafting()) return this.picker() === seat ? "pick" : "wait";
    if (seat === null || this.dropped.has(seat) || this.phase !== "turn") return "wait";
    const plays = this.reveals();
    if (plays) {
      const done = this.slot("ROW_CHOICE", this.round, this.turn).has(seat);
      return !done && chooser(this.rows, plays) === seat ? "row" : "wait";
    }
    return this.slot("PLAY_COMMIT", this.round, this.turn).has(seat) ? "wait" : "card";
  }
}
