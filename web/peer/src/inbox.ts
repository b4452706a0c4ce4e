/**
 * The gates of section 8 every message passes before it counts: shape, game, sender, signature, chain.
 * Before a START is accepted, messages wait (held within section 14's bounds); a message ahead of its sender's
 * chain waits until the gap is filled. The START itself is checked here before it is taken.
 */
import { equal, hex, sameBytes } from "./bytes.js";
import { DecodeError, type MsgMap } from "./codec.js";
import { type Envelope, NO_PREVIOUS, open, signedBy } from "./envelope.js";
import { Ids } from "./ids.js";
import { gameIdFor, peerId, SIGNATURE_SIZE } from "./identity.js";
import { bodyProblem } from "./messages.js";

export interface Fault {
  readonly peer: Uint8Array | null;
  readonly code: string;
  readonly detail: string;
  readonly fatal: boolean;
  readonly evidence: readonly Uint8Array[];
}

// What a node holds before it can accept it, capped per source and in total (protocol.md 14, "Bounds"; the
// reference's inbox.py): a message over a cap is not held (the heads exchange brings it again), and the delivering
// peer that went over is reported by `overflowed()` for its carrier to cut off.
export const MAX_HELD_WIRE = 16384;
/** Messages and bytes held before the START per delivering peer; delivering peers; bytes in all. */
export const MAX_EARLY = 1024;
export const MAX_EARLY_BYTES = 256 * 1024;
export const MAX_EARLY_PEERS = 64;
export const MAX_EARLY_TOTAL = 2 * 1024 * 1024;
/** Messages and bytes held ahead of a sender's chain per sender; bytes in all. */
export const MAX_AHEAD = 512;
export const MAX_AHEAD_BYTES = 1024 * 1024;
export const MAX_AHEAD_TOTAL = 8 * 1024 * 1024;
/** One sender's chain in a game: its next message past either is not accepted (protocol.md 8, "A chain's bound"). */
export const MAX_CHAIN = 16384;
export const MAX_CHAIN_BYTES = 4 * 1024 * 1024;

/** `via`: the peer that delivered the message (null: none, or released from its sender's chain after a gap). */
export type Found =
  | { readonly type: "start"; readonly env: Envelope; readonly via: Uint8Array | null }
  | { readonly type: "ready"; readonly env: Envelope; readonly via: Uint8Array | null }
  | { readonly type: "fault"; readonly fault: Fault };

const refused = (peer: Uint8Array | null, code: string, detail: string): Found =>
  ({ type: "fault", fault: { peer, code, detail, fatal: false, evidence: [] } });

/** A wire message's signature (its last 64 bytes) as a map key: its first 30 bits, a number (no string of 64 made
 * and hashed at every delivery). Two signatures alike there are told apart by their bytes (`ingest`): the second
 * takes the first one's place, and a copy of the first then passes the gates the long way, with the same outcome. */
function signatureKey(wire: Uint8Array): number {
  const at = wire.length - SIGNATURE_SIZE;
  return (wire[at] as number) | ((wire[at + 1] as number) << 8) | ((wire[at + 2] as number) << 16) | (((wire[at + 3] as number) & 0x3f) << 24);
}

/** Signature and chain bookkeeping for one node. */
export class Inbox {
  game: Uint8Array | null;
  /** peer id (hex) -> public key, once the START is taken. */
  readonly keys = new Map<string, Uint8Array>();
  started = false;
  private readonly heads = new Map<string, { next: number; last: Uint8Array; accepted: Envelope[] }>();
  /** By sender (hex), the bytes of its accepted messages (MAX_CHAIN_BYTES). */
  private readonly chainBytes = new Map<string, number>();
  private readonly ahead = new Map<string, Map<number, Envelope>>();
  /** By sender (hex), the seqs of the messages it delivered itself (numbers: no key string made, hashed and kept a
   * message); the senders already reported for a replay. */
  private readonly direct = new Map<string, Set<number>>();
  private readonly replayed = new Set<string>();
  /** Messages held before the START, by the peer that delivered them (in the order each first delivered one). */
  private early = new Map<string, { via: Uint8Array | null; wires: Uint8Array[]; bytes: number }>();
  private earlyBytes = 0;
  /** Whether a delivering peer can be a seat of the game offered (the host we joined, a player of the lobby): over
   * the 64 peers or 2 MiB held before the START, the peers that cannot go first (protocol.md 14, "Held before
   * START"); null: every peer can (a node that knows no lobby). */
  maySit: ((peer: Uint8Array) => boolean) | null = null;
  /** Bytes held ahead of its chain, by sender (hex), and in all. */
  private readonly aheadBytes = new Map<string, number>();
  private aheadTotal = 0;
  /** The delivering peers that went over a cap since `overflowed()` was last asked (hex -> the peer, which cap). */
  private over = new Map<string, { readonly peer: Uint8Array; readonly what: string }>();
  /** The messages accepted, by their signature (the wire's last 64 bytes) with their sender's id: a copy of one
   * (relays send them all the time: about two per new message at 10 seats) is known by its bytes, before it is
   * decoded and hashed, and passes the gates exactly as its decoded copy would (section 8: a copy, nothing more to
   * check). */
  private readonly known = new Map<number, Envelope>();

  /** A node that follows a new start checks the new START's carry against its own record of the game it played
   * (protocol.md 14, "A new start"): why not, or null. A START it fails is not taken; `refusedStart` says why. */
  startCheck: ((body: MsgMap) => string | null) | null = null;
  refusedStart: string | null = null;

  /** peer id (hex) -> "seat s (name)", once the START is taken (the session sets it). */
  labels = new Map<string, string>();

  /** `ids`: the game and peer ids this node met, one copy of each with its key (hex); a rebuilt table's inbox
   * (section 11.1) shares its node's. */
  constructor(game: Uint8Array | null, readonly ids: Ids = new Ids()) {
    this.game = game;
  }

  /** A peer as a fault's detail names it (the reference's words, Table.who): its seat and name, else its id in hex,
   * else "an unknown peer". */
  who(peer: Uint8Array | null): string {
    if (peer === null) return "an unknown peer";
    return this.labels.get(hex(peer)) ?? hex(peer);
  }

  /** An equivocation's words (the reference's): two different signed messages with one seq. */
  private twoMessages(known: Envelope, env: Envelope): string {
    return `${this.who(env.sender)} signed two different messages #${env.seq} (${known.kind} and ${env.kind})`;
  }

  /** `env` names a message #k other than `held`, the sender's #k held here: a fork, provable with both. */
  private fork(held: Envelope, env: Envelope): Found {
    return { type: "fault", fault: { peer: env.sender, code: "equivocation", fatal: true,
      detail: `${this.who(env.sender)} signed message #${env.seq} (${env.kind}) following a message `
        + `#${env.seq - 1} other than its ${held.kind} #${env.seq - 1}`,
      evidence: [held.wire, env.wire] } };
  }

  /** The messages accepted from a sender so far. */
  chain(sender: Uint8Array): readonly Envelope[] {
    return this.heads.get(this.ids.key(sender))?.accepted ?? [];
  }

  /** How many messages were accepted from the sender whose id's key (hex) this is: chain's length, for a caller that
   * keeps the key (a seat asks for its own at every pass of its session). */
  chainLength(key: string): number {
    return this.heads.get(key)?.accepted.length ?? 0;
  }

  /** What these bytes are: a START to take, the next message of a chain (and any it releases), or faults; each given
   * to `found` as soon as it is known (which may change what this inbox holds before the next). */
  ingest(wire: Uint8Array, via: Uint8Array | null, found: (f: Found) => void): void {
    if (this.started && wire.length > SIGNATURE_SIZE) {
      const known = this.known.get(signatureKey(wire));
      if (known && sameBytes(known.wire, wire)) {
        const sender = this.ids.key(known.sender);
        if (this.keys.has(sender)) {
          this.copy(known, sender, via, found);
          return;
        }
      }
    }
    let env: Envelope;
    try {
      env = open(wire, this.ids);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      found(refused(via, "malformed", `bytes from ${this.who(via)}: ${e.message}`));
      return;
    }
    if (!this.started) {
      if (env.kind === "START" && env.seq === 0 && (this.game === null || equal(env.game, this.game))) {
        const problem = this.startProblem(env);
        if (problem) {
          found(refused(via, problem[0], `START delivered by ${this.who(via)}: ${problem[1]}`));
          return;
        }
        const refusal = this.startCheck !== null ? this.startCheck(env.body) : null;
        if (refusal !== null) { // not taken, as a wrong START is: this node does not play that game
          this.refusedStart = refusal;
          found(refused(via, "malformed", `START delivered by ${this.who(via)} refused: ${refusal} (protocol.md 14, "A new start": its carry must be this node's own record of the game it played)`));
          return;
        }
        found({ type: "start", env, via });
        return;
      }
      if (this.game !== null && !equal(env.game, this.game)) {
        found(refused(via, "wrong-game", `message from ${this.who(via)} is for game ${hex(env.game)}`));
        return;
      }
      this.holdEarly(wire, via);
      return;
    }
    this.gate(env, via, found);
  }

  /** Take the START: its roster's keys become the known senders; then the messages held before it. */
  take(start: Envelope, roster: readonly Uint8Array[], via: Uint8Array | null, found: (f: Found) => void): void {
    this.game = start.game;
    this.started = true;
    for (const key of roster) this.keys.set(this.ids.key(peerId(key)), key);
    if (!equal(start.prev, NO_PREVIOUS)) { // the host's first message names a previous one: its chain is broken (section 8)
      found({ type: "fault", fault: { peer: start.sender, code: "chain-broken", fatal: true,
        detail: `${this.who(start.sender)}'s first message names a previous one`, evidence: [start.wire] } });
      return;
    }
    this.heads.set(this.ids.key(start.sender), { next: 1, last: start.hash, accepted: [start] });
    found({ type: "ready", env: start, via });
    const held = this.early;
    this.early = new Map();
    this.earlyBytes = 0;
    for (const queue of held.values()) for (const wire of queue.wires) this.ingest(wire, queue.via, found);
  }

  /** Hold `wire` until the START, within the bounds per delivering peer and in total, in the reference's order
   * (protocol.md 14, "Held before START"): a message too large, or over the peer's 1,024 messages or 256 KiB, is not
   * held and `via` is cut; over the 64 peers or 2 MiB in all, the peer first in line to go is cut (one that cannot
   * be a seat first, then the one holding the most, then the lowest peer id), `via` too if it is first. */
  private holdEarly(wire: Uint8Array, via: Uint8Array | null): void {
    const from = via === null ? "" : hex(via);
    const queue = this.early.get(from);
    const used = queue?.bytes ?? 0;
    const size = wire.length;
    if (size > MAX_HELD_WIRE) {
      this.cutEarly(from, via, `a ${size}-byte message before START (at most ${MAX_HELD_WIRE} are held)`);
      return;
    }
    if ((queue !== undefined && queue.wires.length >= MAX_EARLY) || used + size > MAX_EARLY_BYTES) {
      this.cutEarly(from, via, `more than ${MAX_EARLY} messages or ${MAX_EARLY_BYTES} bytes before START`);
      return;
    }
    for (;;) {
      let what: string;
      if (!this.early.has(from) && this.early.size >= MAX_EARLY_PEERS) {
        what = `messages before START when ${MAX_EARLY_PEERS} peers already have some held`;
      } else if (this.earlyBytes + size > MAX_EARLY_TOTAL) {
        what = `more than ${MAX_EARLY_TOTAL} bytes held before START in total`;
      } else {
        break;
      }
      const first = this.firstToGo(from, via, used + size);
      this.cutEarly(first.from, first.via, what);
      if (first.from === from) return;
    }
    const held = queue ?? { via, wires: [], bytes: 0 };
    held.wires.push(wire);
    held.bytes += size;
    this.early.set(from, held);
    this.earlyBytes += size;
  }

  /** Of the peers holding messages before the START and `via` (counted as holding `wouldHold` bytes), the first to be
   * cut: one that cannot be a seat before one that can, then the most bytes, then the lowest peer id (hex of equal
   * length orders as the bytes do; no peer, "", lowest). */
  private firstToGo(from: string, via: Uint8Array | null, wouldHold: number): { from: string; via: Uint8Array | null } {
    const canSit = (peer: Uint8Array | null): boolean => peer === null || this.maySit === null || this.maySit(peer);
    let best = { from, via, sits: canSit(via), bytes: wouldHold };
    for (const [key, queue] of this.early) {
      if (key === from) continue;
      const other = { from: key, via: queue.via, sits: canSit(queue.via), bytes: queue.bytes };
      if (other.sits !== best.sits ? !other.sits : other.bytes !== best.bytes ? other.bytes > best.bytes : key < best.from) best = other;
    }
    return best;
  }

  /** `via` (hex `from`) is over a cap before the START: what it holds is dropped at once, and it is reported. */
  private cutEarly(from: string, via: Uint8Array | null, what: string): void {
    const queue = this.early.get(from);
    if (queue !== undefined) {
      this.early.delete(from);
      this.earlyBytes -= queue.bytes;
    }
    this.overflow(via, what);
  }

  /** Hold `env`, ahead of its sender's (hex `sender`) chain, within the bounds per sender and in total; over one,
   * it is not held, and `via` is reported where it is the sender (only the sender makes new signed messages: a
   * relay is not blamed). Whether it is held. */
  private holdAhead(env: Envelope, sender: string, via: Uint8Array | null): boolean {
    const size = env.wire.length;
    const waiting = this.ahead.get(sender) ?? new Map<number, Envelope>();
    const used = this.aheadBytes.get(sender) ?? 0;
    let what: string;
    if (size > MAX_HELD_WIRE) {
      what = `a ${size}-byte message ahead of its chain (at most ${MAX_HELD_WIRE} are held)`;
    } else if (waiting.size >= MAX_AHEAD || used + size > MAX_AHEAD_BYTES) {
      what = `more than ${MAX_AHEAD} messages or ${MAX_AHEAD_BYTES} bytes held ahead for one sender`;
    } else if (this.aheadTotal + size > MAX_AHEAD_TOTAL) {
      what = `more than ${MAX_AHEAD_TOTAL} bytes held ahead in total`;
    } else {
      waiting.set(env.seq, env);
      this.ahead.set(sender, waiting);
      this.aheadBytes.set(sender, used + size);
      this.aheadTotal += size;
      return true;
    }
    if (via !== null && equal(via, env.sender)) this.overflow(via, what);
    return false;
  }

  private overflow(via: Uint8Array | null, what: string): void {
    if (via !== null && !this.over.has(hex(via))) this.over.set(hex(via), { peer: via, what });
  }

  /** The delivering peers that went over a cap since the last call, with the cap (the reference's
   * Inbox.overflowed): their carrier cuts them off (protocol.md 14, "Bounds"). */
  overflowed(): ReadonlyMap<string, { readonly peer: Uint8Array; readonly what: string }> {
    const found = this.over;
    if (found.size > 0) this.over = new Map();
    return found;
  }

  /** (messages, bytes) held before the START or ahead of a chain now (the reference's Inbox.held). */
  held(): [number, number] {
    let messages = 0;
    for (const queue of this.early.values()) messages += queue.wires.length;
    for (const waiting of this.ahead.values()) messages += waiting.size;
    return [messages, this.earlyBytes + this.aheadTotal];
  }

  /** A message this node signed itself: the next of its own chain (no signature to check). */
  own(env: Envelope, found: (f: Found) => void): void {
    const sender = this.ids.key(env.sender);
    this.accept(env, this.heads.get(sender) ?? { next: 0, last: NO_PREVIOUS, accepted: [] }, sender, env.sender, found,
      true);
  }

  private startProblem(env: Envelope): [string, string] | null {
    const problem = bodyProblem("START", env.body);
    if (problem) return ["malformed", problem];
    // The code follows the check that failed, never the words (protocol.md 8): bad-signature for the signature
    // alone, malformed for the rest.
    const roster = (env.body.get("roster") as Map<string, unknown>[]).map((s) => s.get("key") as Uint8Array);
    const key = roster.find((k) => equal(peerId(k), env.sender));
    if (!key) return ["malformed", "its sender is not in its roster"];
    if (new Set(roster.map(hex)).size !== roster.length) return ["malformed", "its roster names a key twice"];
    if (!signedBy(env, key)) return ["bad-signature", "its signature does not verify"];
    if (!equal(gameIdFor(key, env.body.get("salt") as Uint8Array), env.game)) {
      return ["malformed", "its game id is not bound to its signer's key (only the host can start this game)"];
    }
    return null;
  }

  private gate(env: Envelope, via: Uint8Array | null, found: (f: Found) => void): void {
    if (!equal(env.game, this.game as Uint8Array)) {
      found(refused(via, "wrong-game", `message from ${this.who(via)} is for game ${hex(env.game)}`));
      return;
    }
    const sender = this.ids.key(env.sender);
    const key = this.keys.get(sender);
    if (!key) {
      found(refused(via, "unknown-sender", `message from ${this.who(via)} signed by ${sender}, who is not at this table`));
      return;
    }
    const head = this.heads.get(sender) ?? { next: 0, last: NO_PREVIOUS, accepted: [] };
    // a copy of a message accepted, or held ahead of its chain (as the reference: its sender delivering it again
    // is a replay either way)
    const held = env.seq > head.next ? this.ahead.get(sender)?.get(env.seq) : undefined;
    if ((env.seq < head.next && equal((head.accepted[env.seq] as Envelope).hash, env.hash)) || (held && equal(held.hash, env.hash))) {
      this.copy(env, sender, via, found);
      return;
    }
    if (!signedBy(env, key)) {
      found(refused(via, "bad-signature", `${env.kind} #${env.seq} claiming to be from ${this.who(env.sender)}, delivered by `
        + `${this.who(via)}, has a signature that does not verify`));
      return;
    }
    if (env.seq < head.next) {
      const mine = head.accepted[env.seq] as Envelope;
      // A fork below this seq is judged as one, the same at a node that does not hold `mine` yet (protocol.md 8, 4).
      found(env.seq > 0 && !equal(env.prev, mine.prev) ? this.fork(head.accepted[env.seq - 1] as Envelope, env)
        : { type: "fault", fault: { peer: env.sender, code: "equivocation", fatal: true,
          detail: this.twoMessages(mine, env), evidence: [mine.wire, env.wire] } });
      return;
    }
    if (env.seq > head.next) {
      const other = this.ahead.get(sender)?.get(env.seq);
      if (other && !equal(other.hash, env.hash)) {
        // not held (too large to be ahead): it comes again in order, and is judged then (as the reference)
        if (env.wire.length > MAX_HELD_WIRE) return;
        // Another prev: its fork shows against a message seq - 1 not held yet: dropped unjudged (protocol.md 8, 4).
        if (!equal(other.prev, env.prev)) return;
        found({ type: "fault", fault: { peer: env.sender, code: "equivocation", fatal: true,
          detail: this.twoMessages(other, env), evidence: [other.wire, env.wire] } });
        return;
      }
      // delivered by its sender: noted only once held (as the reference: one not held is no copy a replay repeats)
      if (this.holdAhead(env, sender, via) && via !== null && equal(via, env.sender)) this.directFrom(sender).add(env.seq);
      return;
    }
    if (via !== null && equal(via, env.sender)) this.directFrom(sender).add(env.seq);
    this.accept(env, head, sender, via, found);
  }

  /** A copy of a message accepted (relays send them all the time): nothing more to check. The sender delivering it
   * a second time itself is a replay, reported once per sender. */
  private copy(env: Envelope, sender: string, via: Uint8Array | null, found: (f: Found) => void): void {
    if (via === null || !equal(via, env.sender)) return;
    const direct = this.directFrom(sender);
    if (direct.has(env.seq) && !this.replayed.has(sender)) {
      this.replayed.add(sender);
      found(refused(via, "replay", `${this.who(via)} sent its message #${env.seq} (${env.kind}) again `
        + "(reported once: its further copies are dropped unrecorded)"));
    }
    direct.add(env.seq);
  }

  /** The seqs `sender` delivered itself. */
  private directFrom(sender: string): Set<number> {
    let seqs = this.direct.get(sender);
    if (!seqs) {
      seqs = new Set();
      this.direct.set(sender, seqs);
    }
    return seqs;
  }

  private accept(first: Envelope, head: { next: number; last: Uint8Array; accepted: Envelope[] }, sender: string,
    via: Uint8Array | null, found: (f: Found) => void, mine = false): void {
    let env: Envelope | undefined = first;
    let from = via;
    while (env) {
      const used = this.chainBytes.get(sender) ?? 0;
      if (!mine && (env.seq >= MAX_CHAIN || used + env.wire.length > MAX_CHAIN_BYTES)) {
        // past its sender's bound: as a message that never came (protocol.md 8, "A chain's bound"; red team, session
        // 46: a seat's REJOINs without end, each recorded); its sender, where it delivered it itself, went over a cap
        if (from !== null && equal(from, env.sender)) {
          this.overflow(from, `its message #${env.seq} (${env.kind}) past the ${MAX_CHAIN} messages or `
            + `${MAX_CHAIN_BYTES} bytes ${this.who(env.sender)} may sign in a game`);
        }
        return;
      }
      if (!equal(env.prev, head.last)) {
        if (env.seq === 0) {
          found({ type: "fault", fault: { peer: env.sender, code: "chain-broken", fatal: true,
            detail: `${this.who(env.sender)}'s first message names a previous one`, evidence: [env.wire] } });
        } else {
          found(this.fork(head.accepted[env.seq - 1] as Envelope, env));
        }
        return;
      }
      head.next += 1;
      head.last = env.hash;
      this.chainBytes.set(sender, used + env.wire.length);
      head.accepted.push(env);
      this.heads.set(sender, head);
      if (this.started && equal(env.game, this.game as Uint8Array)) this.known.set(signatureKey(env.wire), env);
      found({ type: "ready", env, via: from });
      from = null; // released from the chain's gap: no one delivered it now
      const waiting = this.ahead.get(sender);
      env = waiting?.get(head.next);
      if (env !== undefined) {
        waiting?.delete(head.next);
        this.aheadBytes.set(sender, (this.aheadBytes.get(sender) ?? 0) - env.wire.length);
        this.aheadTotal -= env.wire.length;
      }
    }
  }
}
