/**
 * The arrival checks' twin keys (sealed_group.ts's twinKeys) have exactly the eightfolds' classes (section 17.1).
 *
 * Since session 37 the checks of a shuffle's and an unlock's values compare a key found by one doubling and a
 * 4-isogeny (degree 16 in all) instead of the eightfold (three doublings, degree 64), as the reference's twin_keys. The
 * keys are other numbers; what must hold is that two values share a key exactly when they share an eightfold, on the
 * curve and on its twist, so that every list is taken or refused with the same words as before. Shown here against
 * `eightfolds` (itself checked against 17.1's formula as written in sealed.test.ts): on every card encoding with its
 * seven twins (found by affine addition of the points of order 8), on values of the twist with their three, on the
 * low-order points and the values at the edges of the reduction, and on random lists as the checks judge them; and the
 * keys' numbers against the isogeny's formula as written, one value at a time (the reference's numbers). The class
 * tests run twice: on the peer's keys (WebAssembly: sealed_field.ts) and on the BigInt oracle's (test/bigint_field.ts);
 * the arrival checks' tests on the peer's.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { bigIntToLE, fromHex, leToBigInt } from "../src/bytes.js";
import { applyUnlock, checkShuffle, shuffleProblem, unlockPositions } from "../src/sealed_deal.js";
import { A, clampedRepresentative, clampedUpToSign, drawKeyPair, encodingOf, encodingsUnder, firstRepeatOf, isValidPoint, L, onCurve, P, powMod, twinKeys, X } from "../src/sealed_group.js";
import { bigIntTwinKeys, eightfolds } from "./bigint_field.js";
import { sha256 } from "../src/hash.js";
import { vector } from "./spec.js";

const mod = (v: bigint): bigint => ((v % P) + P) % P;
const inv = (v: bigint): bigint => powMod(mod(v), P - 2n, P);

/** A square root mod p (p = 5 mod 8), or null if a is no square. */
function sqrt(a: bigint): bigint | null {
  const x = mod(a);
  let r = powMod(x, (P + 3n) / 8n, P);
  if ((r * r) % P !== x) r = (r * powMod(2n, (P - 1n) / 4n, P)) % P;
  return (r * r) % P === x ? r : null;
}

type Point = [bigint, bigint] | null; // null: the point at infinity

/** A point (u, v) of the curve v^2 = u^3 + A u^2 + u with this u (u on the curve). */
function lift(u: bigint): Point {
  const v = sqrt(u * u * u + A * u * u + u);
  if (v === null) throw new RangeError(`${u} is not on the curve`);
  return [mod(u), v];
}

/** Affine addition on the curve. */
function add(p1: Point, p2: Point): Point {
  if (p1 === null || p2 === null) return p1 === null ? p2 : p1;
  const [u1, v1] = p1;
  const [u2, v2] = p2;
  let lam: bigint;
  if (u1 === u2) {
    if (mod(v1 + v2) === 0n) return null;
    lam = mod((3n * u1 * u1 + 2n * A * u1 + 1n) * inv(2n * v1));
  } else {
    lam = mod((v2 - v1) * inv(u2 - u1));
  }
  const u3 = mod(lam * lam - A - u1 - u2);
  return [u3, mod(lam * (u1 - u3) - v1)];
}

/** u of a point of order 8 of the curve (one of the low-order u's X25519 maps to all-zero). */
const ORDER_8 = 325606250916557431795983626356110631294008115727848805560023387167927233504n;

/** u(P + T) for the seven points T of order 2, 4 and 8: the values that differ from a value of the curve by a
 * small-order point. */
function curveTwins(value: Uint8Array): Uint8Array[] {
  const point = lift(leToBigInt(value));
  const torsion = lift(ORDER_8);
  const out: Uint8Array[] = [];
  let t = torsion;
  for (let i = 0; i < 7; i++) {
    const moved = add(point, t);
    assert.ok(moved !== null);
    out.push(bigIntToLE(moved[0], 32));
    t = add(t, torsion);
  }
  assert.equal(t, null, "T has order 8");
  return out;
}

/** The three values that differ from a value u of the twist by a point of the twist's order 2 or 4: 1/u, and
 * u(P + T), u(P − T) for T with u(T) = −1 (the roots y of y^2 − S y + 1, S = u(P + T) + u(P − T) by the u-line's
 * addition formula, their product 1). */
function twistTwins(value: Uint8Array): Uint8Array[] {
  const u = leToBigInt(value);
  const s = mod(-2n * ((u - 1n) ** 2n + 2n * A * u) * inv((u + 1n) ** 2n));
  const root = sqrt(s * s - 4n);
  assert.ok(root !== null);
  const half = inv(2n);
  return [inv(u), mod((s + root) * half), mod((s - root) * half)].map((x) => bigIntToLE(x, 32));
}

/** A stream of 32-byte values from a label (SHA-256 chained). */
function stream(label: string): () => Uint8Array {
  let state = sha256(new TextEncoder().encode(label));
  return () => {
    state = sha256(state);
    return state.slice();
  };
}

/** A canonical value of the twist, not of low order. */
function twistValue(next: () => Uint8Array): Uint8Array {
  for (;;) {
    const bytes = next();
    bytes[31] = (bytes[31] as number) & 0x7f;
    const u = leToBigInt(bytes);
    if (isValidPoint(bytes) && !onCurve(u)) return bytes;
  }
}

type Keys = (values: readonly Uint8Array[]) => bigint[];

/** A test run on the peer's twin keys (WebAssembly), then on the BigInt oracle's. */
function both(name: string, fn: (keys: Keys) => void): void {
  for (const [path, keys] of [["WebAssembly", twinKeys], ["BigInt", bigIntTwinKeys]] as [string, Keys][]) {
    test(`${name} (${path})`, () => fn(keys));
  }
}

/** Every pair shares a twin key exactly when it shares an eightfold; low order (-1) in the same places. */
function sameClasses(values: readonly Uint8Array[], keys: readonly bigint[]): boolean {
  const folds = eightfolds(values);
  if (folds.some((f, i) => (f === -1n) !== (keys[i] === -1n))) return false;
  const firstOfFold = new Map<bigint, number>();
  const firstOfKey = new Map<bigint, number>();
  return folds.every((f, i) => {
    if (!firstOfFold.has(f)) firstOfFold.set(f, i);
    if (!firstOfKey.has(keys[i] as bigint)) firstOfKey.set(keys[i] as bigint, i);
    return firstOfFold.get(f) === firstOfKey.get(keys[i] as bigint);
  });
}

both("twin keys: the 104 card encodings and their 7 twins each (832 valid values, 104 classes of 8), as the eightfolds", (keysOf) => {
  const values: Uint8Array[] = [];
  for (let k = 1; k <= 104; k++) values.push(encodingOf(k), ...curveTwins(encodingOf(k)));
  assert.ok(values.every(isValidPoint));
  const keys = keysOf(values);
  assert.equal(new Set(keys).size, 104);
  assert.ok(!keys.includes(-1n));
  for (let i = 0; i < keys.length; i += 8) assert.equal(new Set(keys.slice(i, i + 8)).size, 1, `card ${i / 8 + 1}`);
  assert.ok(sameClasses(values, keys));
});

both("twin keys: values of the twist and their 3 twins each (classes of 4), 17.1's vector's 12 and 1/12 among them", (keysOf) => {
  const next = stream("twist values");
  const bases = [...Array.from({ length: 60 }, () => twistValue(next)), bigIntToLE(12n, 32)];
  const values: Uint8Array[] = [];
  for (const u of bases) {
    const found = twistTwins(u);
    assert.ok(found.every((t) => isValidPoint(t) && !onCurve(leToBigInt(t))));
    assert.equal(new Set([u, ...found].map((v) => leToBigInt(v))).size, 4);
    assert.equal(new Set(eightfolds([u, ...found])).size, 1);
    values.push(u, ...found);
  }
  const v = vector("sealed-eightfolds");
  assert.ok(values.some((x) => leToBigInt(x) === leToBigInt(fromHex(v.twist.twin))));
  const keys = keysOf(values);
  for (let i = 0; i < keys.length; i += 4) assert.equal(new Set(keys.slice(i, i + 4)).size, 1);
  assert.equal(new Set(keys).size, 61);
  assert.ok(sameClasses(values, keys));
});

both("twin keys: -1 exactly on the small-order points (curve and twist), as the eightfolds; values near 0, p, 2^255 and 2^256", (keysOf) => {
  const low = [0n, 1n, P - 1n, ORDER_8, 39382357235489614581723060781553021112529911719440698176882885853963445705823n];
  assert.deepEqual(keysOf(low.map((u) => bigIntToLE(u, 32))), [-1n, -1n, -1n, -1n, -1n]);
  // the same points written beyond p (u + p < 2^256 for each but p - 1's): still of low order
  assert.deepEqual(keysOf([P, P + 1n, 2n * P - 1n].map((u) => bigIntToLE(u, 32))), [-1n, -1n, -1n]);
  const edges: bigint[] = [];
  for (let k = 0n; k < 40n; k++) edges.push(k, P - 40n + k, P + k, 2n ** 256n - 1n - k, 2n ** 255n - 1n - k);
  for (let k = 1n; k < 10n; k++) edges.push(2n * P - k);
  edges.push(...low);
  const values = edges.filter((u) => u < 2n ** 256n).map((u) => bigIntToLE(u, 32));
  assert.ok(sameClasses(values, keysOf(values)));
});

both("twin keys: the isogeny's formula as written, one value at a time: (t^2 + A t + 1)(t + 1)^2 / (4 t (t - 1)^2), t = u(2P)", (keysOf) => {
  // The reference's twin_keys gives these numbers too: twinKeys reaches them its own way (the ladder's doubling,
  // p's own reduction, one inversion for the list).
  const textbook = (value: Uint8Array): bigint => {
    const u = mod(leToBigInt(value));
    const xx = mod(u * u);
    const z2 = mod(4n * u * (xx + A * u + 1n));
    if (z2 === 0n) return -1n;
    const t = mod((xx - 1n) ** 2n * inv(z2));
    const den = mod(4n * t * (t - 1n) ** 2n);
    return den === 0n ? -1n : mod((t * t + A * t + 1n) * (t + 1n) ** 2n * inv(den));
  };
  const next = stream("textbook");
  const values = [...[0n, 1n, 2n, 9n, 12n, P - 2n, P - 1n, P, P + 1n, 2n ** 255n - 1n, 2n ** 255n, 2n * P - 1n, 2n * P,
    2n * P + 1n, 2n ** 256n - 2n, 2n ** 256n - 1n].map((u) => bigIntToLE(u, 32)),
    ...Array.from({ length: 200 }, next), encodingOf(1), ...curveTwins(encodingOf(1))];
  assert.deepEqual(keysOf(values), values.map(textbook));
});

test("twin keys: random lists with twins put in have the eightfolds' classes, and the arrival checks the eightfolds' verdicts and words", () => {
  const next = stream("random lists");
  const small = (n: number): number => Number(leToBigInt(next()) % BigInt(n));
  let refused = 0;
  for (let trial = 0; trial < 80; trial++) {
    const values = Array.from({ length: 1 + small(60) }, next); // of the curve or the twist, a few non-canonical
    for (let k = small(9); k > 0; k--) {
      const base = values[small(values.length)] as Uint8Array;
      if (!isValidPoint(base)) continue;
      const found = onCurve(leToBigInt(base)) ? curveTwins(base) : twistTwins(base);
      values.splice(small(values.length + 1), 0, found[small(found.length)] as Uint8Array);
    }
    assert.ok(sameClasses(values, twinKeys(values)), `trial ${trial}`);
    const seen = new Set<bigint>();
    const valid = values.filter((v) => isValidPoint(v) && !seen.has(leToBigInt(v)) && seen.add(leToBigInt(v)));
    const expected = firstRepeatOf(eightfolds(valid));
    const taken = checkShuffle(valid, valid.length);
    if (expected === null) {
      assert.equal(taken.problem, null);
      assert.deepEqual(taken.folds, twinKeys(valid));
    } else {
      refused += 1;
      assert.equal(shuffleProblem(valid, valid.length),
        `shuffle output: values ${expected[0]} and ${expected[1]} differ by a small-order point`);
    }
  }
  assert.ok(refused > 10 && refused < 70, `${refused} of 80 refused: both verdicts tried`);
});

test("an unlock of twins of the twist's values is refused or its deal broken as their eightfolds say", () => {
  // U_{i-1} of the twist's values (what a cheat's earlier step can leave): the unlock's outputs twins of each other or
  // of the kept hand, checked with and without the memo of the list before.
  const next = stream("twist unlock");
  const dealt = Array.from({ length: 24 }, () => twistValue(next));
  const values = unlockPositions(1, 2).map(() => twistValue(next));
  values[3] = twistTwins(values[0] as Uint8Array)[2] as Uint8Array; // positions 0 and 3: the sender's own work
  for (const memo of [null, twinKeys(dealt)]) {
    assert.equal(applyUnlock(dealt, 1, 2, values, memo).problem, "seat 1's unlock: positions 0 and 3 now differ by a small-order point");
  }
  values[3] = twistValue(next);
  values[0] = twistTwins(dealt[12] as Uint8Array)[1] as Uint8Array; // position 0 and seat 1's kept position 12: framed
  for (const memo of [null, twinKeys(dealt)]) {
    const taken = applyUnlock(dealt, 1, 2, values, memo);
    assert.deepEqual([taken.problem, taken.broken], [null, "seat 1's unlock: positions 0 and 12 now differ by a small-order point"]);
    assert.deepEqual(taken.folds, twinKeys(taken.dealt));
  }
});

test("clampedUpToSign: every product of keys drawn has a clamped representative up to sign (about half without); the ones with neither", () => {
  const next = stream("signs");
  let plain = 0;
  for (let i = 0; i < 400; i++) {
    let product = 1n;
    for (let k = 0; k < 10; k++) product = (product * leToBigInt(drawKeyPair(next).e)) % L;
    assert.ok(clampedUpToSign(product) !== null);
    if (clampedRepresentative(product) !== null) plain += 1;
  }
  assert.ok(plain > 140 && plain < 260, `${plain} of 400 with a clamped representative of their own`);
  const delta = L - 2n ** 252n;
  const n = (r: bigint): bigint => (((2n ** 254n + 8n * r) % L) + L) % L;
  for (const r of [2n ** 251n, 2n ** 251n + delta, 2n ** 251n + 2n * delta]) assert.equal(clampedUpToSign(n(r)), null);
  for (const r of [2n ** 251n - 1n, 2n ** 251n + 2n * delta + 1n]) assert.ok(clampedUpToSign(n(r)) !== null);
});

test("17.7 step 0 with signs: the cards under a product of keys are the cards under each key in turn, whichever of the ways and signs it takes", () => {
  const cards = [1, 2, 50, 104];
  const next = stream("ways");
  let negatives = 0; // representatives of -x used (the bytes of -E's are E's: X25519 gives u-coordinates)
  for (let n = 1; n <= 5; n++) {
    const keys = Array.from({ length: n }, () => drawKeyPair(next).e);
    const chained = cards.map((k) => keys.reduce((point, e) => X(e, point), encodingOf(k)));
    // clampedUpToSign with the first `refused` of the representatives it asks for refused (each way asks for its
    // scalar's, then for its negative's)
    for (let refused = 0; refused < 2 * n + 5; refused++) {
      let asked = 0;
      const representative = (x: bigint): Uint8Array | null => {
        for (const [sign, signed] of [x, (L - (x % L)) % L].entries()) {
          if (asked++ < refused) continue;
          const found = clampedRepresentative(signed);
          if (found) {
            negatives += sign;
            return found;
          }
        }
        return null;
      };
      assert.deepEqual(encodingsUnder(keys, cards, representative), chained, `${n} keys, ${refused} refused`);
    }
  }
  assert.ok(negatives >= 5, `${negatives} of the ways taken with the negative's representative`);
});
