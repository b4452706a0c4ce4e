/** The deal of a round in a sealed game (section 17.5): the layout, the unlock, the checks made on arrival. */
import { HAND_SIZE, ROW_COUNT } from "./cards.js";
import { equal } from "./bytes.js";
import { firstRepeatOf, pointKey, pointProblem, twinKeys, X } from "./sealed_group.js";

/** M = 10n + 4: the dealt positions (hands, then rows). */
export function dealtCount(players: number): number {
  return HAND_SIZE * players + ROW_COUNT;
}

export function handPositions(seat: number): number[] {
  return Array.from({ length: HAND_SIZE }, (_, i) => HAND_SIZE * seat + i);
}

export function rowPositions(players: number): number[] {
  return Array.from({ length: ROW_COUNT }, (_, i) => HAND_SIZE * players + i);
}

/** The positions a seat unlocks: every dealt position not in its own hand, ascending (M − 10 of them). */
export function unlockPositions(seat: number, players: number): number[] {
  const first = HAND_SIZE * seat; // its hand: first .. first + HAND_SIZE - 1
  const positions: number[] = [];
  for (let p = 0; p < dealtCount(players); p++) if (p < first || p >= first + HAND_SIZE) positions.push(p);
  return positions;
}

/** What is wrong with `values` as `count` points (the reference's check_points, its words after `what`), or null. */
function pointsProblem(values: readonly Uint8Array[], count: number, what: string, distinct: boolean): string | null {
  return checkedPoints(values, count, what, distinct).problem;
}

/** pointsProblem, and the twin keys it found (distinct, and no problem: twinKeys, 17.1's classes), else null (the
 * reference's checked_points). */
function checkedPoints(values: readonly Uint8Array[], count: number, what: string,
  distinct: boolean): { problem: string | null; folds: bigint[] | null } {
  if (values.length !== count) return { problem: `${what} has ${values.length} values, expected ${count}`, folds: null };
  const repeat = distinct ? firstRepeat(values) : null; // the checks in index order: the first value wrong either way
  for (let i = 0; i < values.length; i++) {
    if (repeat && repeat[1] < i) break;
    const problem = pointProblem(values[i] as Uint8Array);
    if (problem) return { problem: `${what}: value ${i} ${problem}`, folds: null };
  }
  if (repeat) return { problem: `${what}: values ${repeat[0]} and ${repeat[1]} are equal`, folds: null };
  if (!distinct) return { problem: null, folds: null };
  // every value valid and none equal: no two may differ by a small-order point either (section 17.1)
  const folds = twinKeys(values);
  const twins = firstRepeatOf(folds);
  return twins
    ? { problem: `${what}: values ${twins[0]} and ${twins[1]} differ by a small-order point`, folds: null }
    : { problem: null, folds };
}

/** The first index holding a value an earlier one holds, with that earlier index, or null: the values told apart
 * by 30 bits of their first four bytes (a small integer: no string made and hashed per point, a sealed round's
 * ~3,000 a node), the bytes compared when those agree; two different values that agree there (which a peer can
 * send) and the whole bytes decide, as pointKey. */
function firstRepeat(values: readonly Uint8Array[]): [number, number] | null {
  const seen = new Map<number, number>();
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as Uint8Array;
    if (v.length < 4) return firstRepeatByKey(values);
    const key = (v[0] as number) | ((v[1] as number) << 8) | ((v[2] as number) << 16) | (((v[3] as number) & 0x3f) << 24);
    const earlier = seen.get(key);
    if (earlier === undefined) seen.set(key, i);
    else if (equal(values[earlier] as Uint8Array, v)) return [earlier, i];
    else return firstRepeatByKey(values);
  }
  return null;
}

function firstRepeatByKey(values: readonly Uint8Array[]): [number, number] | null {
  const seen = new Map<string, number>();
  for (let i = 0; i < values.length; i++) {
    const key = pointKey(values[i] as Uint8Array);
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, i];
    seen.set(key, i);
  }
  return null;
}

/** What is wrong with a SEALED_SHUFFLE's deck taken on arrival (`sealed-shuffle`), or null: N valid, distinct points
 * (in the reference's words). */
export function shuffleProblem(deck: readonly Uint8Array[], size: number): string | null {
  return pointsProblem(deck, size, "shuffle output", true);
}

/** shuffleProblem, and the deck's twin keys when it has none (for the first unlock's check). */
export function checkShuffle(deck: readonly Uint8Array[], size: number): { problem: string | null; folds: bigint[] | null } {
  return checkedPoints(deck, size, "shuffle output", true);
}

/**
 * What is wrong with a SEALED_UNLOCK taken on arrival (`sealed-unlock`, in the reference's words), or null: M − 10
 * valid points, no two of them equal, then no two twins, at positions whose values before did not collide (the
 * sender's own work: twin-free inputs give twin-free outputs, 17.5 step 3). `dealt` is U_{i-1}; returns U_i as well,
 * its twin keys (twinKeys: equal exactly where the eightfolds are) when there is no problem, and `broken`: any other
 * collision in U_i (a published value and one of the sender's own hand positions, which the unlock leaves as the
 * earlier unlocks left them and an earlier cheat may have written: "a framed unlock", 17.10; or two published values
 * whose inputs collided), which is taken: the deal broke at this unlock, and the audit names whoever deviated.
 * `folds`, if given, are U_{i-1}'s twin keys: the positions the unlock leaves as they were keep theirs, only the
 * published values' are found (the reference's take_unlock).
 */
export function applyUnlock(dealt: readonly Uint8Array[], seat: number, players: number,
  values: readonly Uint8Array[], folds: readonly bigint[] | null = null): { problem: string | null; dealt: Uint8Array[]; folds: bigint[] | null; broken: string } {
  const positions = unlockPositions(seat, players);
  const next = dealt.slice();
  const who = `seat ${seat}'s unlock`;
  const problem = pointsProblem(values, positions.length, who, false);
  if (problem) return { problem, dealt: next, folds: null, broken: "" };
  positions.forEach((p, i) => { next[p] = values[i] as Uint8Array; });
  const memo = !!folds && folds.length === next.length;
  let nextFolds: bigint[];
  if (memo) {
    nextFolds = (folds as readonly bigint[]).slice();
    const found = twinKeys(values);
    positions.forEach((p, i) => { nextFolds[p] = found[i] as bigint; });
  } else {
    nextFolds = twinKeys(next);
  }
  let before: readonly bigint[] | null = memo ? folds : null;
  const collided = (p: number, q: number): boolean => {
    before ??= twinKeys(dealt);
    return before[p] === before[q];
  };
  const keys: [(p: number) => string | bigint, string][] = [
    [(p) => pointKey(next[p] as Uint8Array), "hold the same value"],
    [(p) => nextFolds[p] as bigint, "differ by a small-order point"],
  ];
  const outputFolds = new Set<bigint>();
  let repeats = false; // equal values share a twin key: no repeated key among the outputs, nothing to look for
  for (const p of positions) {
    const f = nextFolds[p] as bigint;
    if (outputFolds.has(f)) { repeats = true; break; }
    outputFolds.add(f);
  }
  if (repeats) for (const [key, words] of keys) {
    const seen = new Map<string | bigint, number>();
    for (const p of positions) {
      const k = key(p);
      const first = seen.get(k);
      if (first === undefined) seen.set(k, p);
      else if (!collided(first, p)) { // one class of inputs: the first output of a value stands for all
        return { problem: `${who}: positions ${first} and ${p} now ${words}`, dealt: next, folds: null, broken: "" };
      }
    }
  }
  const twins = firstRepeatOf(nextFolds);
  if (!twins) return { problem: null, dealt: next, folds: nextFolds, broken: "" };
  const [i, j] = twins;
  const words = equal(next[i] as Uint8Array, next[j] as Uint8Array) ? "hold the same value" : "differ by a small-order point";
  return { problem: null, dealt: next, folds: nextFolds, broken: `${who}: positions ${i} and ${j} now ${words}` };
}

/** The seat's unlock of U_{i-1}: X(d, U[p]) for its positions p, ascending. */
export function unlockValues(dealt: readonly Uint8Array[], seat: number, players: number, d: Uint8Array): Uint8Array[] {
  return unlockPositions(seat, players).map((p) => X(d, dealt[p] as Uint8Array));
}
