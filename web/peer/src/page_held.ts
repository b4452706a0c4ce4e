/**
 * What a phone page's seat sends of its own waits until it is kept (protocol.md 13, "Kept before sent"; page.ts
 * keeps it in IndexedDB): one queue a seat, as its keeper is, however often the page's tunnel is opened again. Each
 * opening makes a new PageNode of the seat: what waits goes out, once kept, through the links of the seat's node of
 * then (the newest), and no heads answer of any node of the seat carries it before.
 */
import { wireKey } from "./link.js";
import type { Outgoing } from "./seat.js";

/** The seat's node now, through whose links what is released goes (a PageNode). */
export interface Carrier {
  write(outs: readonly Outgoing[]): void;
  changed(): void;
}

export class Held {
  /** The seat's node now: set by each node the seat is given to (PageNode.keepWith). */
  carrier: Carrier | null = null;
  /** What waits, in order, and the keys of its wires (null: nothing waits). */
  waiting: { outs: Outgoing[]; keys: Set<string> } | null = null;

  /** `kept`: a promise that every message and secret of ours made so far is kept (null: it is already): true once
   * written, false once a write failed (what waits then goes out unkept: a page that can keep nothing plays on rather
   * than not at all). Unset: sent at once. */
  constructor(readonly kept: () => Promise<boolean> | null = () => null) {}

  /** Whether `wire` waits (no heads answer may carry it). */
  has(wire: Uint8Array): boolean {
    return this.waiting?.keys.has(wireKey(wire)) ?? false;
  }

  /** What the session returned: through the carrier's links once ours are kept (at once where they are). */
  send(outs: readonly Outgoing[]): void {
    if (this.waiting === null && outs.length > 0) {
      const kept = this.kept();
      if (kept !== null) this.hold(kept);
    }
    if (this.waiting === null) {
      this.carrier?.write(outs);
      return;
    }
    for (const out of outs) {
      this.waiting.outs.push(out);
      this.waiting.keys.add(wireKey(out.wire));
    }
  }

  private hold(kept: Promise<boolean>): void {
    this.waiting ??= { outs: [], keys: new Set() };
    void kept.then((written) => {
      // ours made meanwhile (held behind them); after a failed write none are waited for (the next write is tried
      // at once, and a store that fails every time would hold them for good)
      const more = written ? this.kept() : null;
      if (more !== null) {
        this.hold(more);
        return;
      }
      const waiting = this.waiting;
      this.waiting = null;
      if (waiting !== null) this.carrier?.write(waiting.outs);
      this.carrier?.changed();
    });
  }
}
