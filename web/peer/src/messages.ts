/**
 * Message kinds and their bodies (section 9): every field required, none other allowed but the optional ones,
 * each of its type and range (**Types**, **Names**). bodyProblem() is section 9's check 3 (`bad-body`);
 * the narrower ranges (a turn above 9, a row above 3, ...) are later checks with other codes.
 */
import { type MsgMap, pyValueRepr, type Value } from "./codec.js";
import { KEY_SIZE } from "./identity.js";
import { isName, pyRepr, skeleton } from "./names.js";
import { MAX_PLAYERS, VARIANTS } from "./cards.js";

export const KINDS = [
  "START", "START_ACK", "SEED_COMMIT", "SEED_REVEAL", "SEALED_SHUFFLE", "SEALED_UNLOCK", "SEALED_KEYS",
  "DRAFT_PICK", "PLAY_COMMIT", "PLAY_REVEAL", "ROW_CHOICE", "ROUND_END", "GAME_END", "DROP", "KEEP", "REJOIN",
  "STANDIN",
] as const;
export type Kind = (typeof KINDS)[number];
export const DEALS = ["sealed", "open"] as const;
export type DealKind = (typeof DEALS)[number];
export const MAX_CLOCK = 3600;
export const MAX_POINTS = 104;
const TWO_32 = 2 ** 32;

type Check = (v: Value) => boolean;

/** A msgpack integer (not a boolean, not a float) in 0..2^32-1. */
export const isCount: Check = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v < TWO_32;
const bin = (size: number): Check => (v) => v instanceof Uint8Array && v.length === size;
const isHash = bin(32);
const isBool: Check = (v) => typeof v === "boolean";
const counts: Check = (v) => Array.isArray(v) && v.length <= MAX_PLAYERS && v.every(isCount);
const points: Check = (v) => Array.isArray(v) && v.length >= 1 && v.length <= MAX_POINTS && v.every(bin(32));
const countAtLeastOneOrNil: Check = (v) => v === null || (isCount(v) && (v as number) >= 1);
const isTrue: Check = (v) => v === true;

function hasExactly(map: MsgMap, required: readonly string[], optional: readonly string[] = []): boolean {
  for (const key of required) if (!map.has(key)) return false;
  for (const key of map.keys()) if (!required.includes(key) && !optional.includes(key)) return false;
  return true;
}

const settings: Check = (v) => {
  if (!(v instanceof Map) || !hasExactly(v, ["variant", "point_limit", "max_rounds", "deal"], ["clock"])) return false;
  const variant = v.get("variant");
  const deal = v.get("deal");
  const clock = v.get("clock");
  return (
    typeof variant === "string" && (VARIANTS as readonly string[]).includes(variant)
    && typeof deal === "string" && (DEALS as readonly string[]).includes(deal)
    && (deal === "open" || variant !== "draft")
    && countAtLeastOneOrNil(v.get("point_limit") as Value) && countAtLeastOneOrNil(v.get("max_rounds") as Value)
    && (v.get("point_limit") !== null || v.get("max_rounds") !== null)
    && (clock === undefined || (isCount(clock) && (clock as number) >= 1 && (clock as number) <= MAX_CLOCK))
  );
};

const seat: Check = (v) =>
  v instanceof Map && hasExactly(v, ["key", "name", "bot"]) && bin(KEY_SIZE)(v.get("key") as Value)
  && isName(v.get("name")) && isBool(v.get("bot") as Value);

/** Seats in order; no two names look alike (section 9, **Names**). */
const roster: Check = (v) => Array.isArray(v) && v.length >= 2 && v.length <= MAX_PLAYERS && v.every(seat)
  && new Set(v.map((s) => skeleton((s as Map<string, unknown>).get("name") as string))).size === v.length;

/** ROUND_END's `back`: 1..10 pairs [seat, seq] of counts, the seats strictly ascending. */
const back: Check = (v) => {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_PLAYERS) return false;
  if (!v.every((p) => Array.isArray(p) && p.length === 2 && isCount(p[0] as Value) && isCount(p[1] as Value))) return false;
  return v.every((p, i) => i === 0 || ((v[i - 1] as number[])[0] as number) < ((p as number[])[0] as number));
};

/** START's `carry` (section 9): a map of exactly `game` bin(16), `rounds` a count >= 1, `scores` counts. */
const carry: Check = (v) => v instanceof Map && hasExactly(v, ["game", "rounds", "scores"]) && bin(16)(v.get("game") as Value)
  && isCount(v.get("rounds") as Value) && (v.get("rounds") as number) >= 1
  && Array.isArray(v.get("scores")) && (v.get("scores") as Value[]).every(isCount);

/** Why a START's carry does not fit its own settings and roster (null: it fits, or there is none), in the reference's
 * words (p2pnimmt/protocol/carry.py, carry_fits): one score per seat, rounds left, no total at the points end. */
export function carryFits(body: MsgMap): string | null {
  const c = body.get("carry");
  if (!(c instanceof Map)) return null;
  const s = body.get("settings") as MsgMap;
  const seats = (body.get("roster") as Value[]).length;
  const scores = c.get("scores") as number[];
  const rounds = c.get("rounds") as number;
  const maxRounds = s.get("max_rounds") as number | null;
  const limit = s.get("point_limit") as number | null;
  if (scores.length !== seats) return `its carry has ${scores.length} scores for ${seats} seats`;
  if (maxRounds !== null && rounds >= maxRounds) return `its carry has ${rounds} rounds played of ${maxRounds}: none left to play`;
  if (limit !== null && Math.max(...scores) >= limit) return `its carry has a score at the points end (${limit}): the game was over there`;
  return null;
}

/** A `where` record's form as START's and START_ACK's optional `where` holds it (section 9, **Types**; since session
 * 41): [serial 0..2^53-1, port 1..65535, at most 8 str of 1..45 printable ASCII characters, bin(64)]. Whether each
 * address is an IP address and whether the signature holds are asked only when a record is taken into a book
 * (where.ts, whereFrom), never of the message (the reference's p2pnimmt/protocol/where_body.py). */
const ADDRESS = /^[\x21-\x7e]{1,45}$/;
export const whereRecord: Check = (v) => Array.isArray(v) && v.length === 4
  && typeof v[0] === "number" && Number.isSafeInteger(v[0]) && v[0] >= 0
  && typeof v[1] === "number" && Number.isInteger(v[1]) && v[1] >= 1 && v[1] <= 65535
  && Array.isArray(v[2]) && v[2].length <= 8 && v[2].every((a) => typeof a === "string" && ADDRESS.test(a))
  && bin(64)(v[3] as Value);

const position: Check = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v < MAX_POINTS;

const REQUIRED: Record<Kind, Record<string, Check>> = {
  START: { salt: bin(16), settings, roster },
  START_ACK: { start: isHash },
  SEED_COMMIT: { round: isCount, commit: isHash },
  SEED_REVEAL: { round: isCount, contribution: isHash, nonce: isHash },
  SEALED_SHUFFLE: { round: isCount, deck: points, commit: isHash },
  SEALED_UNLOCK: { round: isCount, values: points },
  SEALED_KEYS: { round: isCount, key: isHash, seed: isHash, nonce: isHash, alarm: isBool },
  DRAFT_PICK: { round: isCount, pick: isCount, card: isCount },
  PLAY_COMMIT: { round: isCount, turn: isCount, commit: isHash, state: isHash },
  PLAY_REVEAL: { round: isCount, turn: isCount, card: isCount, nonce: isHash, commits: isHash },
  ROW_CHOICE: { round: isCount, turn: isCount, row: isCount },
  ROUND_END: { round: isCount, penalties: counts, scores: counts, state: isHash },
  GAME_END: { rounds: isCount, scores: counts, winners: counts, state: isHash },
  DROP: { round: isCount, step: isCount, seat: isCount },
  KEEP: { round: isCount, step: isCount, seat: isCount },
  REJOIN: { round: isCount },
  STANDIN: { round: isCount, turn: isCount, seat: isCount },
};

const OPTIONAL: Partial<Record<Kind, Record<string, Check>>> = {
  START: { previous: bin(16), carry, where: whereRecord },
  START_ACK: { where: whereRecord },
  PLAY_REVEAL: { position, auto: isTrue },
  ROW_CHOICE: { auto: isTrue },
  ROUND_END: { back },
  DROP: { place: isCount },
  KEEP: { place: isCount },
};

/** By kind, its fields' checks in their order and the names of all its fields: made once, not at every message. */
const FIELDS = new Map(KINDS.map((kind) => {
  const required = Object.entries(REQUIRED[kind]);
  const optional = Object.entries(OPTIONAL[kind] ?? {});
  return [kind, { required, optional, known: new Set([...required, ...optional].map(([key]) => key)) }];
}));

export function isKind(kind: string): kind is Kind {
  return FIELDS.has(kind as Kind); // (a lookup: asked of every message, where a scan of KINDS compared up to 20)
}

/** What is wrong with a body of this kind (section 9's check 3, fault `bad-body`), or null if nothing: the reference's
 * words and order (protocol.md 8, "The words of a refusal"): an optional field that is invalid, then the unknown
 * fields (all, in code point order), then each required field in its order, missing or invalid; a value quoted as
 * Python's repr writes it, cut to 80 code points. */
export function bodyProblem(kind: Kind, body: MsgMap): string | null {
  const { required, optional, known } = FIELDS.get(kind) as NonNullable<ReturnType<typeof FIELDS.get>>;
  let fields = 0; // the kind's fields in the body: all its fields are known when they are as many as its keys (no
  // iterator over its keys made and run at every message)
  for (let i = 0; i < optional.length; i++) { // (indexed, no destructuring: asked of every message)
    const key = (optional[i] as [string, (v: Value) => boolean])[0];
    if (!body.has(key)) continue;
    fields += 1;
    if (!(optional[i] as [string, (v: Value) => boolean])[1](body.get(key) as Value)) return invalid(kind, body, key);
  }
  for (let i = 0; i < required.length; i++) if (body.has((required[i] as [string, (v: Value) => boolean])[0])) fields += 1;
  if (fields !== body.size) {
    const extra = [...body.keys()].filter((key) => !known.has(key));
    return `${kind} has unknown fields [${extra.sort(byCodePoint).map(pyRepr).join(", ")}]`;
  }
  for (let i = 0; i < required.length; i++) {
    const key = (required[i] as [string, (v: Value) => boolean])[0];
    if (!body.has(key)) return `${kind} lacks field ${pyRepr(key)}`;
    if (!(required[i] as [string, (v: Value) => boolean])[1](body.get(key) as Value)) return invalid(kind, body, key);
  }
  if (kind === "START" && body.has("carry")) {
    const problem = carryFits(body);
    if (problem !== null) return `START field 'carry' does not fit: ${problem}`;
  }
  return null;
}

/** The words for an invalid field: its value quoted as Python's repr writes it, cut to 80 code points. */
function invalid(kind: Kind, body: MsgMap, key: string): string {
  return `${kind} field ${pyRepr(key)} is invalid: ${[...pyValueRepr(body.get(key) as Value)].slice(0, 80).join("")}`;
}


/** Python's order of str: by code point (not by UTF-16 unit, as Array.prototype.sort has it). */
function byCodePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) as number);
  const y = [...b].map((c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
}
