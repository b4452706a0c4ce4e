/**
 * The sealed deal of one round as a node with no hand of its own sees it (section 17.5-17.7): the SEALED_SHUFFLEs
 * and SEALED_UNLOCKs taken in seat order with the checks on arrival, the opened public positions, the plays'
 * positions, and the round-end audit that checks the deal's outcomes (every step recomputed to name a fault).
 */
import { concat, equal } from "./bytes.js";
import { type Card, HAND_SIZE } from "./cards.js";
import type { MsgMap } from "./codec.js";
import type { Envelope } from "./envelope.js";
import { commitment } from "./hashes.js";
import { applyUnlock, checkShuffle, dealtCount, rowPositions, unlockPositions, unlockValues } from "./sealed_deal.js";
import { hex } from "./bytes.js";
import { cardOf, encodingOf, encodingsUnder, inverseKey, isClamped, permutation, shuffleStep, X } from "./sealed_group.js";

export interface Verdict {
  readonly seat: number;
  readonly code: string;
  readonly detail: string;
  readonly evidence: Envelope;
}

export class SealedRound {
  /** D_i: the deck after each shuffle taken so far. */
  private deck: Uint8Array[];
  private shuffled = 0;
  private dealt: Uint8Array[] = [];
  private unlocked = 0;
  /** The twin keys of `deck`, then of `dealt`, when found (17.1's memo: an unlock's check finds only its values'). */
  private folds: bigint[] | null = null;
  /** The deck we shuffled ourselves, and the deck it was shuffled from (see takeShuffle). */
  private own: { from: readonly Uint8Array[]; deck: readonly Uint8Array[] } | null = null;
  /** The rows' four cards, once the deal is open. */
  rows: Card[] | null = null;
  private readonly played = new Map<number, Set<number>>();
  /** Why everyone audits now (17.8: a public position opens to no card, a card revealed twice in a turn), and the
   * turn the audit stops before. */
  broken = "";
  brokenTurn = HAND_SIZE;
  /** The deal broke at an unlock (17.5 step 3): the audit recomputes every step, whatever the outcomes. */
  brokenAtUnlock = false;

  /** The shuffling seats, in seat order (a seat dropped at step 0 before its shuffle leaves the list). */
  readonly shufflers: number[];

  constructor(readonly game: Uint8Array, readonly round: number, readonly cards: readonly Card[],
    readonly players: number, shufflers: readonly number[]) {
    this.deck = cards.map(encodingOf);
    this.shufflers = shufflers.slice();
    if (this.shufflers.length === 0) this.deal(); // no seat shuffles (each dropped or forfeited): D_0 is dealt (17.5)
  }

  /** A seat dropped at step 0: it does not shuffle this round. False if its shuffle was taken already (the deal
   * must then be taken again without it). */
  leave(seat: number): boolean {
    const i = this.shufflers.indexOf(seat);
    if (i >= 0 && i < this.shuffled) return false;
    if (i >= 0) this.shufflers.splice(i, 1);
    if (this.shuffled === this.shufflers.length && this.dealt.length === 0) this.deal();
    return true;
  }

  /** D_i: the deck the next shuffler shuffles. */
  get previous(): readonly Uint8Array[] {
    return this.deck;
  }

  /** U_i: the dealt values the next unlocker unlocks (once every shuffle is in). */
  get current(): readonly Uint8Array[] {
    return this.dealt;
  }

  /** The value at a dealt position once the deal is open. */
  valueAt(position: number): Uint8Array {
    return this.dealt[position] as Uint8Array;
  }

  get dealtPositions(): number {
    return dealtCount(this.players);
  }

  /** U_0 from the last shuffle, with its twin keys if found. */
  private deal(): void {
    this.dealt = this.deck.slice(0, this.dealtPositions);
    this.folds = this.folds ? this.folds.slice(0, this.dealtPositions) : null;
  }

  /** The deck we shuffled from `previous` (which must be this round's previous deck as taken) and are sending. */
  noteOwnShuffle(previous: readonly Uint8Array[], deck: readonly Uint8Array[]): void {
    this.own = { from: previous, deck };
  }

  /** Take the next SEALED_SHUFFLE in seat order: null, or the problem (`sealed-shuffle`). A deck equal to the one we
   * shuffled ourselves from the deck we hold is taken without the check, which it cannot fail (X25519 under a
   * clamped key maps a list the check took to one it takes: the reference's take_shuffle); any other is checked. */
  takeShuffle(body: MsgMap): string | null {
    const deck = body.get("deck") as Uint8Array[];
    const own = this.own;
    if (own && own.from === this.deck && sameValues(deck, own.deck)) {
      this.folds = null;
    } else {
      const { problem, folds } = checkShuffle(deck, this.cards.length);
      if (problem) return problem;
      this.folds = folds;
    }
    this.deck = deck;
    this.shuffled += 1;
    if (this.shuffled === this.shufflers.length) this.deal();
    return null;
  }

  /** Every shuffle and unlock of the round taken: the deal is in (an alarm waits for it, 17.8). */
  get complete(): boolean {
    return this.shuffled === this.shufflers.length && this.unlocked === this.shufflers.length;
  }

  get nextShuffler(): number | null {
    return this.shufflers[this.shuffled] ?? null;
  }

  get nextUnlocker(): number | null {
    return this.shuffled < this.shufflers.length ? null : (this.shufflers[this.unlocked] ?? null);
  }

  /** Take the next SEALED_UNLOCK in seat order: null, or the problem (`sealed-unlock`). */
  takeUnlock(seat: number, body: MsgMap): string | null {
    const next = applyUnlock(this.dealt, seat, this.players, body.get("values") as Uint8Array[], this.folds);
    if (next.problem) return next.problem;
    this.dealt = next.dealt;
    this.folds = next.folds;
    this.unlocked += 1;
    if (next.broken && !this.broken) {
      // Not the sender's fault on arrival (its hand may hold what an earlier cheat wrote there: a framed unlock,
      // 17.10): the unlocks go on, then everyone audits at once, every step recomputed (17.5 step 3).
      this.broken = `the deal broke at an unlock (${next.broken})`;
      this.brokenTurn = 0;
      this.brokenAtUnlock = true;
    }
    return null;
  }

  /** After the last unlock: the rows' cards, or null if a public position opens to no card (the deal broke). */
  open(): Card[] | null {
    const rows = rowPositions(this.players).map((p) => cardOf(this.dealt[p] as Uint8Array));
    if (rows.some((c) => c === null)) return null;
    this.rows = (rows as Card[]).slice().sort((a, b) => a - b);
    return this.rows;
  }

  /** What is wrong with a play's position (`not-in-hand`), or null, in the reference's words. */
  playProblem(seat: number, position: number): string | null {
    if (position >= this.dealtPositions) return `played from position ${position}, which was not dealt (0..${this.dealtPositions - 1})`;
    const owner = position < HAND_SIZE * this.players ? Math.floor(position / HAND_SIZE) : null;
    if (owner !== seat) return `played from position ${position}, which is ${owner === null ? "a row's" : `seat ${owner}'s`}`;
    if (this.played.get(seat)?.has(position)) return `played from position ${position} a second time`;
    return null;
  }

  /** A play from a sealed hand, taken: its position cannot be played from again this round. */
  notePlay(seat: number, position: number): void {
    const used = this.played.get(seat) ?? new Set<number>();
    used.add(position);
    this.played.set(seat, used);
  }

  /**
   * The audit of 17.7 (the outcomes first, step 0; every step recomputed only if one is wrong), in the reference's
   * words: the first verdict, or null. `keys`,
   * `shuffles` and `unlocks` are by seat; `reveals` lists, turn by turn up to the stop, each shuffling seat's
   * PLAY_REVEAL. A play's evidence is the seat's first reveal from that position (its keys when there is none).
   * `trusted`: the auditing node's own seat, whose shuffle and unlock it computed itself and need not recompute (as
   * the reference's; a spectator and the verifier trust no seat).
   */
  audit(keys: ReadonlyMap<number, Envelope>, shuffles: ReadonlyMap<number, Envelope>, unlocks: ReadonlyMap<number, Envelope>,
    reveals: readonly (readonly [number, Envelope])[], trusted: number | null = null): Verdict | null {
    if (this.shufflers.length === 0) return null; // no seat shuffled (each dropped at or before its shuffle, or
    // forfeited): nothing to audit (protocol.md 17.7)
    for (const seat of this.shufflers) {
      const k = keys.get(seat) as Envelope;
      const value = concat(k.body.get("key") as Uint8Array, k.body.get("seed") as Uint8Array);
      const want = commitment("sealed", this.game, this.round, 0, seat, value, k.body.get("nonce") as Uint8Array);
      if (!equal(want, (shuffles.get(seat) as Envelope).body.get("commit") as Uint8Array)) {
        return { seat, code: "sealed-key", detail: "revealed a key that does not match its commitment", evidence: k };
      }
    }
    const order = (this.brokenAtUnlock ? null : this.outcomes(keys, shuffles, unlocks)) ?? this.steps(keys, shuffles, unlocks, trusted);
    if (!Array.isArray(order)) return order as Verdict;
    const played = new Set<number>();
    const first = new Map<string, Envelope>();
    for (const [seat, reveal] of reveals) if (!first.has(`${seat}|${reveal.body.get("position") as number}`)) first.set(`${seat}|${reveal.body.get("position") as number}`, reveal);
    for (const [seat, reveal] of reveals) {
      const position = reveal.body.get("position") as number;
      const card = reveal.body.get("card") as number;
      const play = (detail: string): Verdict => ({ seat, code: "sealed-play", detail,
        evidence: first.get(`${seat}|${position}`) ?? (keys.get(seat) as Envelope) });
      if (position >= this.dealtPositions) return { ...play(`position ${position} is not a dealt position`), evidence: keys.get(seat) as Envelope };
      const owner = position < HAND_SIZE * this.players ? Math.floor(position / HAND_SIZE) : null;
      if (owner !== seat) return play(`played position ${position}, which is ${owner === null ? "a row" : `seat ${owner}'s`}`);
      if (played.has(position)) return play(`played position ${position} twice`);
      played.add(position);
      if (order[position] !== card) return play(`played ${card} from position ${position}, which opens to ${order[position] as Card}`);
    }
    return null;
  }

  /** 17.7 step 0: the card at each position if every key is usable, every shuffle and unlock has its length, the
   * last shuffle is [X(E, C_order[j])] and the dealt values after every unlock are C_order[p] (rows, hands of seats
   * that did not shuffle) or X(e_o, C_order[p]) (hands of shuffling seats); else null (steps 1-2 name the fault). */
  private outcomes(keys: ReadonlyMap<number, Envelope>, shuffles: ReadonlyMap<number, Envelope>,
    unlocks: ReadonlyMap<number, Envelope>): Card[] | null {
    const e = new Map<number, Uint8Array>();
    let order: Card[] = this.cards.slice();
    for (const seat of this.shufflers) {
      const k = keys.get(seat) as Envelope;
      const key = k.body.get("key") as Uint8Array;
      const seed = k.body.get("seed") as Uint8Array;
      if (!inverseKey(key) || !(seed instanceof Uint8Array) || seed.length !== 32) return null;
      e.set(seat, key);
      const pi = permutation(seed, order.length);
      order = pi.map((from) => order[from] as Card);
      const deck = (shuffles.get(seat) as Envelope).body.get("deck") as Uint8Array[];
      if (deck.length !== this.cards.length || deck.some((v) => v.length !== 32)) return null;
    }
    const last = (shuffles.get(this.shufflers[this.shufflers.length - 1] as number) as Envelope).body.get("deck") as Uint8Array[];
    let dealt = last.slice(0, this.dealtPositions);
    for (const seat of this.shufflers) {
      const values = (unlocks.get(seat) as Envelope).body.get("values") as Uint8Array[];
      const positions = unlockPositions(seat, this.players);
      if (values.length !== positions.length || values.some((v) => v.length !== 32)) return null;
      dealt = dealt.slice();
      positions.forEach((p, i) => { dealt[p] = values[i] as Uint8Array; });
    }
    const want = encodingsUnder(this.shufflers.map((s) => e.get(s) as Uint8Array), order);
    if (want.some((v, j) => !equal(v, last[j] as Uint8Array))) return null;
    for (let p = 0; p < this.dealtPositions; p++) {
      const owner = p < HAND_SIZE * this.players ? Math.floor(p / HAND_SIZE) : null;
      const key = owner === null ? undefined : e.get(owner);
      const c = encodingOf(order[p] as Card);
      if (!equal(dealt[p] as Uint8Array, key ? X(key, c) : c)) return null;
    }
    return order;
  }

  /** 17.7 steps 1-2: every step recomputed from D_0; the first verdict, or the card at each position. */
  private steps(keys: ReadonlyMap<number, Envelope>, shuffles: ReadonlyMap<number, Envelope>,
    unlocks: ReadonlyMap<number, Envelope>, trusted: number | null): Card[] | Verdict {
    let deck = this.cards.map(encodingOf);
    let order: Card[] = this.cards.slice();
    const inverse = new Map<number, Uint8Array>();
    for (const seat of this.shufflers) {
      const k = keys.get(seat) as Envelope;
      const e = k.body.get("key") as Uint8Array;
      const d = inverseKey(e);
      if (!d) {
        const detail = isClamped(e) ? `key ${hex(e)} has no clamped inverse` : `key '${hex(e)}' is not a clamped 32-byte scalar`;
        return { seat, code: "sealed-key", detail, evidence: k };
      }
      inverse.set(seat, d);
      const seed = k.body.get("seed") as Uint8Array;
      const shuffle = shuffles.get(seat) as Envelope;
      const sent = shuffle.body.get("deck") as Uint8Array[];
      deck = seat === trusted ? sent.slice() : shuffleStep(deck, e, seed);
      const pi = permutation(seed, order.length);
      order = pi.map((from) => order[from] as Card);
      const at = deck.findIndex((v, i) => !equal(v, sent[i] as Uint8Array));
      if (at >= 0) {
        return { seat, code: "sealed-shuffle", evidence: shuffle,
          detail: `value ${at} of the shuffle output is not the shuffle of the previous output under the revealed key and seed` };
      }
    }
    let dealt = deck.slice(0, this.dealtPositions);
    for (const seat of this.shufflers) {
      const unlock = unlocks.get(seat) as Envelope;
      const sent = unlock.body.get("values") as Uint8Array[];
      const want = seat === trusted ? sent.slice() : unlockValues(dealt, seat, this.players, inverse.get(seat) as Uint8Array);
      const positions = unlockPositions(seat, this.players);
      const at = want.findIndex((v, i) => !equal(v, sent[i] as Uint8Array));
      if (at >= 0) {
        return { seat, code: "sealed-unlock", evidence: unlock,
          detail: `position ${positions[at]} is not the previous value with the revealed key's layer removed` };
      }
      dealt = applyUnlock(dealt, seat, this.players, want).dealt;
    }
    return order;
  }
}

/** Two lists of the same values, each a Uint8Array (a list a peer sent may hold anything). */
function sameValues(got: readonly unknown[], want: readonly Uint8Array[]): boolean {
  if (!Array.isArray(got) || got.length !== want.length) return false;
  for (let i = 0; i < want.length; i++) {
    const v = got[i];
    if (!(v instanceof Uint8Array) || !equal(v, want[i] as Uint8Array)) return false;
  }
  return true;
}
