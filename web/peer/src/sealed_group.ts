/**
 * The sealed deal's group (section 17.1-17.4): Curve25519 u-coordinates, clamped scalars, X25519 as the
 * commuting "encryption", the card encodings, key pairs (e, d) with d·e ≡ 1 mod ℓ, and a seat's shuffle step.
 */
import { x25519 } from "@noble/curves/ed25519.js";
import { ascii, bigIntToLE, equal, leToBigInt, u16, u32 } from "./bytes.js";
import { sha256, sha512 } from "./hash.js";
import { shuffle } from "./shuffle.js";
import { HIGHEST_CARD } from "./cards.js";
import { CARD_TABLE } from "./sealed_cards.js";
import { field, wasmTwinKeys } from "./sealed_field.js";

export { loadField } from "./sealed_field.js";

export const P = 2n ** 255n - 19n;
export const A = 486662n;
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const LOW_ORDER = new Set<bigint>([
  0n, 1n, P - 1n,
  325606250916557431795983626356110631294008115727848805560023387167927233504n,
  39382357235489614581723060781553021112529911719440698176882885853963445705823n,
]);
export const MAX_KEY_DRAWS = 256;

export function powMod(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = ((base % modulus) + modulus) % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

/** powMod(a, m - 2, m) for a prime m: a's inverse mod m, or 0 for a multiple of m. By the extended Euclidean
 * algorithm, a fourth of the exponentiation's cost on a scalar mod ℓ. */
export function inverseMod(a: bigint, m: bigint): bigint {
  let r0 = m;
  let r1 = ((a % m) + m) % m;
  let t0 = 0n;
  let t1 = 1n;
  while (r1 !== 0n) {
    const q = r0 / r1;
    const r2 = r0 - q * r1;
    r0 = r1;
    r1 = r2;
    const t2 = t0 - q * t1;
    t0 = t1;
    t1 = t2;
  }
  if (r0 !== 1n) return 0n;
  return t0 < 0n ? t0 + m : t0;
}

/**
 * A key of each value that two values share exactly when their eightfolds are equal (they differ by a small-order
 * point, or are equal): what the arrival checks compare (17.1's classes), in about two thirds of the eightfolds'
 * arithmetic. -1n for a value of low order (never a valid value), where eightfolds gives -1n. The reference's
 * sealed_group.twin_keys, the same numbers.
 *
 * The key of u is x(φ(P)) / 4 for the isogeny φ = φ2 ∘ φ1 ∘ [2] of degree 16, P a point with u(P) = u on the curve
 * or on its twist (the u-line's formulas hold on both): with t = u(2P) = X/Z (one doubling, the ladder's formula, from
 * (u : 1)), φ1(t) = (t² + A t + 1) / t is the 2-isogeny whose kernel is (0, 0), and φ2(w) = w (w − A + 2) / (w − A − 2)
 * the 2-isogeny of its image whose kernel is φ1(T4) = (A + 2, 0), T4 the curve's points with u = 1 (of order 4); so
 * φ2(φ1(t)) = (t² + A t + 1)(t + 1)² / (t (t − 1)²), which with s = (X + Z)², d = (X − Z)² and c = s − d = 4XZ is
 * 4 s (s + 121665 c) / (c d), 121665 = (A − 2) / 4. The key: s (s + 121665 c) / (c d) mod p, one inversion for the
 * list (Montgomery's trick).
 *
 * Why the same classes. φ's kernel G is the 16 points R with 2R in {O, T4, −T4, (0, 0)}; two points share an x of
 * the image exactly when P1 − P2 or P1 + P2 is in G. G's points rational on the curve are its 8 points of order
 * dividing 8 (2·T8 = ±T4), so for P1, P2 on the curve: keys equal ⇔ P1 ∓ P2 in E(F_p)[8] ⇔ 8P1 = ±8P2 ⇔ eightfolds
 * equal. On the twist (4 times a prime points) G's rational points are O, (0, 0) and the two with u = −1 (2R =
 * (0, 0)): G's other points have u = 1 or the u of a curve point of order 8 (points of the curve, not of the twist)
 * or a u outside F_p (the other points of order 2, and T8 plus one of them); so they are the twist's 4 points of
 * order dividing 4, again what the eightfold does not see. A value of the curve and one of the twist never share a
 * key (2P1 would be in G: P1 of low order) nor an eightfold. The denominator c d is 0 exactly for t in {0, 1, ∞}:
 * 2P in {O, (0, 0), ±T4}, P of low order. test/twin_keys.test.ts compares the keys' classes with
 * the eightfolds' on the twins of values of the curve and of the twist, on the low-order points and on random values.
 *
 * Computed in WebAssembly (sealed_field.ts: the module compiled when first asked, or by `loadField` beforehand on a
 * page's main thread); every value 32 bytes. The same arithmetic in BigInt, and the eightfolds, are the tests' oracle
 * (test/bigint_field.ts).
 */
export function twinKeys(values: readonly Uint8Array[]): bigint[] {
  keysOf ??= wasmTwinKeys(field());
  return keysOf(values);
}

/** twinKeys on sealed_field.ts's module, once it is compiled. */
let keysOf: ((values: readonly Uint8Array[]) => bigint[]) | null = null;

/** [i, j]: j the first index whose eightfold an earlier index i has (two values that differ by a small-order point,
 * or are equal), or null, found by their twin keys. The reference's sealed_group.first_twins. */
export function firstTwins(values: readonly Uint8Array[]): [number, number] | null {
  return firstRepeatOf(twinKeys(values));
}

/** [i, j]: j the first index whose eightfold (or twin key) an earlier index i has, or null (the reference's
 * first_repeat). */
export function firstRepeatOf(folds: readonly bigint[]): [number, number] | null {
  const seen = new Map<bigint, number>();
  for (let j = 0; j < folds.length; j++) {
    const fold = folds[j] as bigint;
    const earlier = seen.get(fold);
    if (earlier !== undefined) return [earlier, j];
    seen.set(fold, j);
  }
  return null;
}

/** Clear bits 0-2 of byte 0 and bit 7 of byte 31, set bit 6 of byte 31 (RFC 7748's decodeScalar25519). */
export function clamp(bytes: Uint8Array): Uint8Array {
  if (bytes.length !== 32) throw new RangeError(`a scalar is 32 bytes, not ${bytes.length}`);
  const out = bytes.slice();
  out[0] = (out[0] as number) & 0xf8;
  out[31] = ((out[31] as number) & 0x7f) | 0x40;
  return out;
}

export function isClamped(bytes: Uint8Array): boolean {
  return bytes.length === 32 && ((bytes[0] as number) & 7) === 0 && ((bytes[31] as number) & 0xc0) === 0x40;
}

/** p's 32 bytes little-endian, and the low-order u-coordinates'. */
const P_BYTES = bigIntToLE(P, 32);
const LOW_ORDER_BYTES = [...LOW_ORDER].map((u) => bigIntToLE(u, 32));

/** A point's 32 bytes as a string, a map key (String.fromCharCode.apply: three times faster than a spread). */
export function pointKey(point: Uint8Array): string {
  return String.fromCharCode.apply(null, point as unknown as number[]);
}

/** Why a value is not a point as a receiver checks it at once (the reference's point_error, curve=False), or null:
 * it must be canonical (u < p) and not one of the five low-order u-coordinates (its bytes compared, not made a
 * bigint: thousands of points a round). */
export function pointProblem(point: Uint8Array): string | null {
  if (point.length !== 32) return `is ${point.length} bytes, not 32`;
  for (let i = 31; i >= 0; i--) {
    const d = (point[i] as number) - (P_BYTES[i] as number);
    if (d < 0) break;
    if (d > 0 || i === 0) return "is not a canonical u-coordinate (not below 2^255 - 19)"; // u > p, or u = p
  }
  return LOW_ORDER_BYTES.some((low) => equal(low, point)) ? "is a low-order point" : null;
}

/** A received point is valid when pointProblem finds nothing wrong with it. */
export function isValidPoint(point: Uint8Array): boolean {
  return pointProblem(point) === null;
}

/** The Jacobi symbol (a/n) for odd n > 0 (the binary algorithm: no exponentiation). */
function jacobi(a: bigint, n: bigint): number {
  let x = ((a % n) + n) % n;
  let m = n;
  let t = 1;
  while (x !== 0n) {
    while ((x & 1n) === 0n) {
      x >>= 1n;
      const r = m & 7n;
      if (r === 3n || r === 5n) t = -t;
    }
    [x, m] = [m, x];
    if ((x & 3n) === 3n && (m & 3n) === 3n) t = -t;
    x %= m;
  }
  return m === 1n ? t : 0;
}

/** Whether u is on the curve, not its twist: u³ + A u² + u a non-zero square mod p (its Legendre symbol 1). */
export function onCurve(u: bigint): boolean {
  const rhs = (((u * u) % P) * u + ((A * u) % P) * u + u) % P;
  return rhs !== 0n && jacobi(rhs, P) === 1;
}

export type ScalarMult = (scalar: Uint8Array, point: Uint8Array) => Uint8Array;

/** @noble/curves' X25519: runs everywhere (a browser's WebCrypto has X25519 only asynchronously). */
export const nobleX: ScalarMult = (scalar, point) => x25519.scalarMult(scalar, point);
let scalarMult: ScalarMult = nobleX;

/** Use another implementation of RFC 7748's X25519 (node's own, under `node peer.js verify`); it must agree. */
export function useScalarMult(fn: ScalarMult): void {
  scalarMult = fn;
}

/** X(s, P): X25519 of a clamped scalar and a point; throws on a low-order point. */
export function X(scalar: Uint8Array, point: Uint8Array): Uint8Array {
  return scalarMult(scalar, point);
}

export const S0 = clamp(sha256(ascii("p2pnimmt/sealed/s0/v1")));

export interface CardEncoding {
  readonly counter: number;
  readonly u: Uint8Array;
  readonly encoding: Uint8Array;
}

/** Card k's encoding C_k (17.2): the first counter whose hash lands on the curve, times S0. */
export function encodeCard(card: number): CardEncoding {
  for (let counter = 0; ; counter++) {
    const h = sha512(ascii("p2pnimmt/sealed/card/v1"), u16(card), u32(counter));
    const u = leToBigInt(h) % P;
    if (onCurve(u) && !LOW_ORDER.has(u)) {
      const bytes = bigIntToLE(u, 32);
      return { counter, u: bytes, encoding: X(S0, bytes) };
    }
  }
}

let encodings: Uint8Array[] | undefined;
/** u_1 .. u_104 (index k-1): the hashed points the encodings came from. */
let hashedPoints: Uint8Array[] | undefined;
let cardsByEncoding: Map<string, number> | undefined;

/** C_1 .. C_104 (index k-1), with the hashed points u_k they came from: read from the table shipped precomputed
 * (sealed_cards.ts, a public constant, made by encodeCard and checked against it by the tests), not made at the
 * first sealed deal (104 hash-to-curve searches and 104 X25519: 15-18 ms of one node under node, ~60 ms of a
 * phone at 4x throttling). */
export function cardEncodings(): readonly Uint8Array[] {
  if (!encodings) {
    const text = atob(CARD_TABLE);
    const table = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) table[i] = text.charCodeAt(i);
    hashedPoints = [];
    encodings = [];
    for (let k = 0; k < HIGHEST_CARD; k++) {
      hashedPoints.push(table.slice(64 * k, 64 * k + 32));
      encodings.push(table.slice(64 * k + 32, 64 * k + 64));
    }
  }
  return encodings;
}

/** u_1 .. u_104 (index k-1): the hashed points of the encodings (17.2). */
export function cardHashedPoints(): readonly Uint8Array[] {
  cardEncodings();
  return hashedPoints as Uint8Array[];
}

/** The card a point encodes, or null (the table C_k -> k). */
export function cardOf(point: Uint8Array): number | null {
  if (!cardsByEncoding) cardsByEncoding = new Map(cardEncodings().map((c, i) => [pointKey(c), i + 1]));
  return cardsByEncoding.get(pointKey(point)) ?? null;
}

export function encodingOf(card: number): Uint8Array {
  const c = cardEncodings()[card - 1];
  if (!c) throw new RangeError(`no card ${card}`);
  return c;
}

const INV8 = inverseMod(8n, L);
const TWO_251 = 2n ** 251n;
const TWO_254 = 2n ** 254n;

/** The clamped scalar congruent to n mod ℓ, or null: about half of all residues have one (17.3). */
export function clampedRepresentative(n: bigint): Uint8Array | null {
  const t = (((n - TWO_254) % L + L) % L * INV8) % L;
  if (t >= TWO_251) return null;
  return bigIntToLE(TWO_254 + 8n * t, 32);
}

/** inverseKey's answers for the keys met last (every node audits every seat's key each round: ~25 µs of BigInt
 * work a key), by the key's bytes; copies handed out. */
const inverses = new Map<string, Uint8Array | null>();

/** d for a revealed e (17.3 steps 2-4), or null if e is not clamped or its inverse is not a clamped scalar. */
export function inverseKey(e: Uint8Array): Uint8Array | null {
  if (!isClamped(e)) return null;
  const key = pointKey(e);
  let d = inverses.get(key);
  if (d === undefined) {
    d = clampedRepresentative(inverseMod(leToBigInt(e), L));
    if (inverses.size >= 256) inverses.clear();
    inverses.set(key, d);
  }
  return d && d.slice();
}

/** The clamped representative of n mod ℓ, else of −n mod ℓ, else null (the reference's _clamped_up_to_sign). X25519
 * gives the u-coordinate only, and u(−Q) = u(Q): on a point of the prime-order subgroup (or one whose low-order part
 * a clamped scalar clears) the two scalars give the same bytes. Half the residues have the first; all but about one
 * in 2^126 have one of the two: n has one when r = (n − 2^254) / 8 mod ℓ is below 2^251, and −n's r is then
 * ℓ + δ − r (δ = ℓ − 2^252, about 2^124.4), below 2^251 unless 2^251 <= r <= 2^251 + 2δ. */
export function clampedUpToSign(n: bigint): Uint8Array | null {
  return clampedRepresentative(n) ?? clampedRepresentative((L - (n % L)) % L);
}

/**
 * [C_k with every key of `keys` applied in turn, for k in cards] (17.7 step 0), in one or two passes: C_k is in the
 * prime-order subgroup, so that is C_k under the product E of the keys mod ℓ, and, as X25519 gives u-coordinates,
 * under −E as well (clampedUpToSign). (±E)'s clamped representative applied to C_k (one pass: all but about one
 * product in 2^126; without the sign one in two, and one in four took two passes); else (±E·S0 mod ℓ)'s applied to
 * the hashed point u_k (C_k = X(S0, u_k), and a clamped scalar, a multiple of 8, clears u_k's low-order part); else
 * some e_i and (±E / e_i)'s in two passes; else each key in turn. The same bytes whichever way (as the reference's
 * sealed_group.encodings_under). `representative`: clampedUpToSign, or (the tests) one that refuses some, to take the
 * other ways.
 */
export function encodingsUnder(keys: readonly Uint8Array[], cards: readonly number[],
  representative: (n: bigint) => Uint8Array | null = clampedUpToSign): Uint8Array[] {
  const ints = keys.map(leToBigInt);
  const product = ints.reduce((a, b) => (a * b) % L, 1n);
  const plain = () => cards.map(encodingOf);
  const whole = representative(product);
  if (whole) return plain().map((c) => X(whole, c));
  const timesS0 = representative((product * leToBigInt(S0)) % L);
  if (timesS0) {
    const points = cardHashedPoints();
    return cards.map((k) => X(timesS0, points[k - 1] as Uint8Array));
  }
  for (let i = 0; i < keys.length; i++) {
    const rest = representative((product * inverseMod(ints[i] as bigint, L)) % L);
    if (rest) return plain().map((c) => X(keys[i] as Uint8Array, X(rest, c)));
  }
  return plain().map((c) => keys.reduce((point, e) => X(e, point), c));
}

export interface KeyPair {
  readonly e: Uint8Array;
  readonly d: Uint8Array;
}

/** A fresh key pair from 32-byte draws (17.3): e = clamp(b), kept when its inverse is a clamped scalar. */
export function drawKeyPair(draw: () => Uint8Array): KeyPair {
  for (let i = 0; i < MAX_KEY_DRAWS; i++) {
    const e = clamp(draw());
    const d = inverseKey(e);
    if (d) return { e, d };
  }
  throw new Error(`${MAX_KEY_DRAWS} key draws in a row failed: the entropy is broken`);
}

/** A seat's permutation of N positions: the shuffle of 3.1 applied to the indices. */
export function permutation(seed: Uint8Array, size: number): number[] {
  return shuffle(seed, Array.from({ length: size }, (_, i) => i));
}

/** A seat's shuffle step: D'[j] = X(e, D[π[j]]). */
export function shuffleStep(deck: readonly Uint8Array[], e: Uint8Array, seed: Uint8Array): Uint8Array[] {
  return permutation(seed, deck.length).map((from) => X(e, deck[from] as Uint8Array));
}

