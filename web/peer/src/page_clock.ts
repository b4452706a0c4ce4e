/**
 * The page's own seat's turn clock and presence, as a Python node's (p2pnimmt/net/clock.py; protocol.md 11.2): a
 * thinking person is never dropped and never holds the table up. When the game asks our person for a move and the
 * START's settings carry a clock of c seconds, it runs; at its end, if the move is still owed, our page makes it
 * by the stand-in's rule (signed here, marked auto). While our seat is away (its last three cards the stand-in's)
 * the stand-in plays at once, until the person is back ("I'm back", or any move of theirs: `present`). Every
 * other seat asking the stand-in for our move is the session's (Seat.owe).
 */
import type { PageNode } from "./page_node.js";
import { _, fmt } from "./page_words.js";

/** Seconds left when the page warns its person. */
export const WARN_AT = 15;

export class MoveClock {
  /** The person is at the keys (false once the seat turns away, until they are back). */
  here = true;
  /** When the clock of the move owed now runs out (ms since the epoch), or null: no clock runs. */
  ends: number | null = null;
  private owed = "";
  private wasAway: boolean | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly node: PageNode) {}

  /** The person is back at the keys: the stand-in stops playing at once. */
  present(): void {
    if (this.here) return;
    this.here = true;
    this.node.changed();
  }

  /** Whether our seat is away now (derived from the signed moves) and the person not back yet. */
  away(): boolean {
    return !this.here;
  }

  cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.ends = null;
  }

  /** After any change: the move we owe now, and its clock. */
  look(): void {
    const seat = this.node.seat;
    const me = seat.seat;
    if (me === null) return;
    const away = seat.away().has(me);
    if (this.wasAway !== null && away !== this.wasAway) this.here = !away; // turned away: the stand-in plays on
    this.wasAway = away;
    const wanted = this.node.over() ? "wait" : seat.wanted();
    const owed = wanted === "wait" ? "" : `${seat.waitingAt()}|${wanted}`;
    if (owed === this.owed) return;
    this.owed = owed;
    this.cancel();
    if (!owed) return;
    if (!this.here) {
      this.timer = setTimeout(() => this.standIn(owed), 0);
      return;
    }
    const clock = seat.settings?.clock ?? null;
    if (clock === null) return;
    this.ends = performance.now() + clock * 1000; // monotonic, as the drop timer
    this.timer = setTimeout(() => this.standIn(owed), clock * 1000);
  }

  private standIn(owed: string): void {
    this.timer = null;
    this.ends = null;
    if (owed !== this.owed || this.node.over()) return;
    try {
      this.node.send(this.node.seat.standIn());
    } catch (error) {
      this.node.note(fmt(_("the stand-in: {why}"), { why: (error as Error).message })); // the move was made meanwhile
    }
  }
}
