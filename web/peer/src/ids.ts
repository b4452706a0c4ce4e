/**
 * The game and peer ids one node has met (a handful at a table), each kept as one copy with its map key (hex): the
 * messages the node keeps share that copy (an id comes as a new view of every message), and a key string is made
 * and hashed once, not at every delivery. One table per node (its inbox): ids are what peers send, so a flood of
 * made-up ones fills the table of the node it reaches and no other session's in the same process (a page that plays
 * a rematch, the mixed tables' node process), and the table keeps at most MAX_IDS (any further id stays the view it
 * came as, its key made anew each time it is asked for).
 */
import { equal, hex } from "./bytes.js";

export const MAX_IDS = 1024;

interface Known {
  readonly id: Uint8Array;
  key: string | null;
}

export class Ids {
  /** The ids kept, by their first four bytes (then told apart by all of them). */
  private readonly byPrefix = new Map<number, Known[]>();
  /** The same entries by the one copy of their bytes handed out (`copy`): a message's ids are those copies, found
   * at once (no four bytes read and sixteen compared in V8's baseline code, where each is a call). */
  private readonly byCopy = new Map<Uint8Array, Known>();
  private count = 0;

  /** How many ids are kept (at most MAX_IDS). */
  get size(): number {
    return this.count;
  }

  /** These id bytes as the one copy kept of them (the bytes, not the object, are what a message says). */
  copy(id: Uint8Array): Uint8Array {
    return this.known(id)?.id ?? id;
  }

  /** The id's map key: its bytes in hex, the same string every time. */
  key(id: Uint8Array): string {
    const known = this.known(id);
    if (!known) return hex(id);
    return known.key ??= hex(known.id);
  }

  /** The entry of these bytes, made if new and there is room; null when the table is full. */
  private known(id: Uint8Array): Known | null {
    const kept = this.byCopy.get(id);
    if (kept !== undefined) return kept;
    const prefix = ((id[0] ?? 0) | ((id[1] ?? 0) << 8) | ((id[2] ?? 0) << 16) | ((id[3] ?? 0) << 24));
    const same = this.byPrefix.get(prefix);
    if (same) for (let i = 0; i < same.length; i++) if (equal((same[i] as Known).id, id)) return same[i] as Known;
    return this.add(id, prefix, same);
  }

  /** A new id's entry (apart from `known`, which every message's open and gates inline, and which finds its ids known
   * after the first few messages). */
  private add(id: Uint8Array, prefix: number, same: Known[] | undefined): Known | null {
    if (this.count >= MAX_IDS) return null;
    this.count += 1;
    const entry = { id: id.slice(), key: null };
    this.byCopy.set(entry.id, entry);
    if (same) same.push(entry);
    else this.byPrefix.set(prefix, [entry]);
    return entry;
  }
}
