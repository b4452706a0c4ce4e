/**
 * A person's seat in a page (issue 26): the signing Seat of seat.ts plus what a screen needs to show and ask —
 * the hand, whether a card or a row is wanted now, and every fault this node found. Read-only views of the
 * session's state; the moves go through Seat's intents (play, chooseRow).
 */
import type { Card } from "./cards.js";
import { seat as seats, steps, turn } from "./main.js";
import type { Fault } from "./session.js";

const { Seat } = seats;
const { commitStep } = steps;
const { chooser } = turn;

/** What the page asks of its person now. */
export type Wanted = "card" | "row" | "wait";

export class PageSeat extends Seat {
  /** Every fault this node found, in order (what the verdict at the end names). */
  readonly faults: Fault[] = [];

  protected override note(fault: Fault): void {
    super.note(fault);
    this.faults.push(fault);
  }

  /** Our cards still in hand this round (sorted), or [] where we have no seat or no round. */
  hand(): Card[] {
    const seat = this.seat;
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

  /** What our person should do now. */
  wanted(): Wanted {
    const seat = this.seat;
    if (seat === null || this.dropped.has(seat) || this.phase !== "turn") return "wait";
    const plays = this.reveals();
    if (plays) {
      const done = this.slot("ROW_CHOICE", this.round, this.turn).has(seat);
      return !done && chooser(this.rows, plays) === seat ? "row" : "wait";
    }
    return this.slot("PLAY_COMMIT", this.round, this.turn).has(seat) ? "wait" : "card";
  }
}
