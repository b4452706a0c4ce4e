/**
 * A page judges its relay by whether the game reaches it through that relay, not by a handshake (protocol.md 14, "A
 * probe"; session 40's red team: a relay that passed one seat's handshake and then nothing, or every frame but the
 * game's messages, kept the page for as long as it held that link open, and the others voted it out). A relay can
 * read and change every frame after a handshake; only what a seat signs it cannot make up. So the page asks each seat
 * it is linked to ["probe", nonce] each PROBE_EVERY ms, the seat signs its heads over the link and the nonce
 * ["probed", [nonce, heads, signature]], and an answer shows the game reaching the page unless
 * (a) the seat's answer before it (on any link of this tunnel) said the seat held messages the page still lacks (asked
 *     for with `heads` at that answer: a seat never sends a message twice on one link, so one the relay dropped never
 *     comes on it; and a new link does not wipe what the seat's last answer said: a relay that closed the link after
 *     each answer had every answer be the link's first), or
 * (b) it says the seat holds fewer of our own messages than we had let out as we sent the seat the probe before (they
 *     went before that probe, in order, unless the relay dropped them).
 * The relay serves the page while the latest answers of two different seats (keys) showed the game reaching it, the
 * newer within SERVE_WITHIN and the older within twice that, or of the one where only one other seat is in play (session
 * 42; red team, session 41: a relay whose own node is a seat signs that seat's answers as it likes, so one seat's word
 * alone let it withhold the game); a seat unheard on every relay the page left is spared a while (Unheard, below).
 * A seat's answer that does not show the game reaching the page counts against: the seat no longer serves until its
 * next answer does. page.ts leaves a relay that did not serve for SERVE_WITHIN.
 */
import type { Value } from "./codec.js";
import type { Identity } from "./identity.js";
import type { Link } from "./link.js";
import { bytes, codec, identity as identities } from "./main.js";
import { PROBE_EVERY, SERVE_WITHIN, UNHEARD_FOR } from "./page_timings.js";

const { ascii, concat, equal, hex } = bytes;

export const PROBE_TAG = ascii("p2pnimmt/probe/v1");
export const PROBE_NONCE = 16;
/** A probe on each link to another seat this often while a game is on (and one as the link starts): page_timings.ts. */
export { PROBE_EVERY, SERVE_WITHIN, UNHEARD_FOR };
/** An answer's heads hold at most this many [peer id, count] pairs (section 7's array cap). */
export const MAX_HEADS = 256;

/** What a probe's answer signs (protocol.md 14): the tag, the game id, the link's handshake nonces (the answerer's,
 * then the prober's), the probe's nonce, and the answerer's heads as the bytes it sends. */
export function probeTranscript(game: Uint8Array, answerer: Uint8Array, prober: Uint8Array, nonce: Uint8Array,
  heads: Uint8Array): Uint8Array {
  return concat(PROBE_TAG, game, answerer, prober, nonce, heads);
}

/** The payload of our `probed` answer to a probe's `nonce`; `nonces`: the link's handshake nonces, ours first. */
export function probeAnswer(identity: Identity, game: Uint8Array, nonces: readonly [Uint8Array, Uint8Array],
  nonce: Uint8Array, heads: [Uint8Array, number][]): [Uint8Array, Uint8Array, Uint8Array] {
  const said = codec.encode(heads);
  return [nonce, said, identity.sign(probeTranscript(game, nonces[0], nonces[1], nonce, said))];
}

/** The heads (peer id in hex: count) of `payload`, where it is a `probed` answer to our probe `nonce` signed by
 * `key` over this link (`nonces`: ours, the prober's, first); else null. */
export function answeredHeads(key: Uint8Array, game: Uint8Array, nonces: readonly [Uint8Array, Uint8Array],
  nonce: Uint8Array, payload: Value): Map<string, number> | null {
  if (!Array.isArray(payload) || payload.length !== 3) return null;
  const [said, heads, signature] = payload;
  if (!(said instanceof Uint8Array) || !equal(said, nonce) || !(heads instanceof Uint8Array)
    || !(signature instanceof Uint8Array) || signature.length !== identities.SIGNATURE_SIZE) return null;
  if (!identities.verify(key, signature, probeTranscript(game, nonces[1], nonces[0], nonce, heads))) return null;
  let value: Value;
  try {
    value = codec.decode(heads);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length > MAX_HEADS) return null;
  const counts = new Map<string, number>();
  for (const item of value) {
    if (!(Array.isArray(item) && item.length === 2 && item[0] instanceof Uint8Array && item[0].length === 16
      && typeof item[1] === "number" && Number.isInteger(item[1]) && item[1] >= 0)) return null;
    counts.set(hex(item[0]), item[1]);
  }
  return counts;
}

/** What the page's node gives the judge: its game, the seats' peer ids, the other seats in play (of the START, ours
 * aside, not dropped), how many messages of a peer it holds, and how many of its own it has let out (null while some
 * wait to be kept). */
export interface Prober {
  readonly game: Uint8Array;
  seats(): readonly Uint8Array[];
  others(): readonly Uint8Array[];
  held(peer: Uint8Array): number;
  oursOut(): number | null;
}

/** Probes a link's answer may still answer: the latest two (an answer that comes late, past the next probe, on a
 * loaded machine, still counts). */
export const ANSWERABLE = 2;

/** How many other seats' answers must show the game reaching the page (fewer only where fewer are in play): a relay
 * whose node is a seat signs that one seat's answers as it likes; with one other seat in play, that seat's
 * withholding the game is its own silence. */
export const SERVING_SEATS = 2;


/** One link's outstanding probes, each with our messages let out as the seat's probe before it went (null: none
 * yet, or some waited to be kept). */
class LinkProbes {
  pending: { nonce: Uint8Array; oursBefore: number | null }[] = [];
}

/** One seat's account over all its links of this tunnel (by its peer id: one key, however many links). */
class SeatProbes {
  /** Our messages let out as the latest probe to the seat went (null: none yet, or some waited to be kept). */
  ours: number | null = null;
  /** The seats' counts the seat's last answer said it held, where it held more than we did then (we asked). */
  owed: [Uint8Array, number][] = [];
  /** When its latest answer showed the game reaching us (-Infinity: none yet, or its latest did not). */
  reached = -Infinity;
}

export class Probes {
  private readonly links = new WeakMap<Link, LinkProbes>();
  private readonly accounts = new Map<string, SeatProbes>();

  constructor(private readonly node: Prober, private readonly entropy: (n: number) => Uint8Array,
    private readonly clock: () => number = () => performance.now()) {}

  /** The game whose seats this judge hears (its node's). */
  get game(): Uint8Array {
    return this.node.game;
  }

  private account(peer: Uint8Array): SeatProbes {
    const key = hex(peer);
    let account = this.accounts.get(key);
    if (account === undefined) this.accounts.set(key, account = new SeatProbes());
    return account;
  }

  /** A new probe on `link` (of those before it, unanswered, only the latest ANSWERABLE count). */
  probe(link: Link): void {
    let state = this.links.get(link);
    if (state === undefined) this.links.set(link, state = new LinkProbes());
    const account = this.account(link.peer);
    const nonce = this.entropy(PROBE_NONCE);
    state.pending = [...state.pending, { nonce, oursBefore: account.ours }].slice(-ANSWERABLE);
    account.ours = this.node.oursOut();
    link.send("probe", nonce);
  }

  /** A `probed` frame on `link`: judged where it answers one of our outstanding probes there (it and those before it
   * then no longer count; one whose signature does not hold drops the probe it names, so each probe costs at most one
   * failed check). True where the seat holds messages we lack (the caller asks for them on that link with
   * its heads). */
  answered(link: Link, payload: Value, me: Uint8Array): boolean {
    const state = this.links.get(link);
    if (state === undefined) return false;
    const answers = Array.isArray(payload) ? payload[0] : null; // (one signature checked, the probe's it names)
    const at = state.pending.findIndex(({ nonce }) => answers instanceof Uint8Array && equal(answers, nonce));
    const probe = state.pending[at];
    if (probe === undefined) return false;
    const said = answeredHeads(link.key, this.node.game, link.nonces, probe.nonce, payload);
    if (said === null) {
      // a forged answer (the relay sees the nonce) costs a signature check once per probe, never again: that probe
      // no longer counts (review, session 40: it stayed pending, so each forged `probed` naming it cost one more)
      state.pending = state.pending.filter((p) => p !== probe);
      return false;
    }
    const oursBefore = probe.oursBefore;
    state.pending = state.pending.slice(at + 1);
    const account = this.account(link.peer);
    const seats = this.node.seats();
    // (a) what the seat's answer before said it held, and we asked for then, still lacked
    const withheld = account.owed.some(([peer, count]) => this.node.held(peer) < count);
    // (b) fewer of ours than we had let out as the seat's probe before went
    const lost = oursBefore !== null && (said.get(hex(me)) ?? 0) < oursBefore;
    account.owed = seats.flatMap((peer) => {
      const count = said.get(hex(peer)) ?? 0;
      return count > this.node.held(peer) ? [[peer, count] as [Uint8Array, number]] : [];
    });
    account.reached = withheld || lost ? -Infinity : this.clock();
    return account.owed.length > 0;
  }

  /** When `seat`'s (its peer id in hex) latest answer showed the game reaching us (-Infinity: none yet, or its latest
   * did not). */
  reachedAt(seat: string): number {
    return this.accounts.get(seat)?.reached ?? -Infinity;
  }

  /** The other seats in play (peer ids in hex; a key twice is one seat's word). */
  others(): Set<string> {
    return new Set(this.node.others().map(hex));
  }

  /** Since when the relay serves us (-Infinity: not yet): of the other seats in play that must serve (all but those
   * `spared`, Unheard; none spared where that spares them all, or where it leaves only seats of `own`), the latest
   * answer of one showed the game reaching us within SERVE_WITHIN and of SERVING_SEATS of them (all of them where
   * fewer are) within 2 x SERVE_WITHIN: the earlier of the newest's time and the SERVING_SEATS-th newest's plus
   * SERVE_WITHIN (page.ts leaves the relay SERVE_WITHIN after it); now where no other seat is in play (nobody to hear
   * from). `own`: the seats whose node this relay may be (page.ts: those that named it in a lobby frame; none for the
   * page's own relay, whose node served its code): sparing never leaves the relay's own seat's word alone (session
   * 43: a relay-seat M at a table of three whose third seat answers no probe had that seat spared and then withheld
   * the game on its own word for about 55 s in every 65). */
  servedAt(spared: ReadonlySet<string> = new Set(), own: ReadonlySet<string> = new Set()): number {
    const others = this.others();
    const must = [...others].filter((key) => !spared.has(key));
    const counted = must.some((key) => !own.has(key)) ? must : [...others];
    const need = Math.min(SERVING_SEATS, counted.length);
    if (need === 0) return this.clock();
    const times = counted.map((key) => this.reachedAt(key)).sort((a, b) => b - a);
    return Math.min(times[0] as number, (times[need - 1] as number) + SERVE_WITHIN);
  }
}


/** Across the page's tunnels (one a relay it tried; a new Probes each): for each seat (peer id in hex), the relays
 * (urls) on which, as the page left that relay for not serving, that seat's answers had not shown the game reaching it
 * within SERVE_WITHIN while another seat's had, each for UNHEARD_FOR (session 42's review: a seat that answers no
 * probe, of a node of before session 40, a laptop stopped and not yet dropped, or a cheat, had the page leave every
 * sound relay after SERVE_WITHIN, round and round, for the whole game). A seat whose set holds every relay the page
 * knows is spared: left out of the seats that must serve (Probes.servedAt) until an answer of its own shows the game
 * reaching the page again (on any relay), which empties its set, or a relay's time in it runs out (the page then
 * judges that relay by all the seats again, once: a seat that was away and answers again, whose answers a relay that
 * is a seat drops, is heard on the next honest relay). A relay whose node is a seat M and withholds the game drops or
 * falsifies an honest seat A's answers only on M's relay: A serves on every honest relay, so A's set never holds them
 * all, and A is never spared where the page knows an honest relay (protocol.md 14, "A probe"). */
export class Unheard {
  private readonly relays = new Map<string, Map<string, number>>();
  /** The game (hex) whose seats the sets are of: what a seat did in another game says nothing of this one (session
   * 43: a seat deaf in a finished game was spared in its rematch, or in a new start, from its first moment). */
  private game = "";

  /** The sets emptied where `probes` is of another game than they are. */
  private of(probes: Probes): void {
    const game = hex(probes.game);
    if (game === this.game) return;
    this.game = game;
    this.relays.clear();
  }

  /** The seats whose answers through `probes`' tunnel showed the game reaching us within SERVE_WITHIN of `now`: their
   * sets emptied (all of them where `probes` is of another game: a rematch or a new start begins afresh). */
  heard(probes: Probes, now: number): void {
    this.of(probes);
    for (const seat of this.relays.keys()) if (now - probes.reachedAt(seat) < SERVE_WITHIN) this.relays.delete(seat);
  }

  /** The page leaves `relay` (its tunnel's `probes`) at `now` for not serving: where some other seat in play served
   * within SERVE_WITHIN, each that did not has `relay` put in its set (from `now`). */
  left(relay: string, probes: Probes, now: number): void {
    this.heard(probes, now);
    const others = [...probes.others()];
    const served = (seat: string): boolean => now - probes.reachedAt(seat) < SERVE_WITHIN;
    if (!others.some(served)) return;
    for (const seat of others.filter((seat) => !served(seat))) {
      let set = this.relays.get(seat);
      if (set === undefined) this.relays.set(seat, set = new Map());
      set.set(relay, now);
    }
  }

  /** The seats spared at `now` (in the game of the latest `heard`): those whose set holds every relay of `known` (at
   * least one), each put in it within UNHEARD_FOR. */
  spared(known: readonly string[], now: number): Set<string> {
    if (!known.length) return new Set();
    const holds = (set: Map<string, number>, url: string): boolean => now - (set.get(url) ?? -Infinity) < UNHEARD_FOR;
    return new Set([...this.relays].filter(([, set]) => known.every((url) => holds(set, url))).map(([seat]) => seat));
  }
}
