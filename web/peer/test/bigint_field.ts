/**
 * The twin keys' field in BigInt arithmetic: the tests' oracle for sealed_field.ts's WebAssembly (which the peer ships
 * as its one path) and for the twin keys' classes. `bigIntTwinKeys` is the arithmetic the peer used before (the same
 * numbers as the reference's sealed_group.twin_keys); `eightfolds` is 17.1's eightfold (the reference's
 * sealed_group.eightfolds), whose classes the twin keys must have.
 */
import { leToBigInt } from "../src/bytes.js";
import { A, inverseMod, P } from "../src/sealed_group.js";

/** (A + 2) / 4: the doubling's constant (RFC 7748). */
const A24 = (A + 2n) / 4n;
const LOW_255 = 2n ** 255n - 1n;

/** v mod p for 0 <= v < 2^530 (a product of two numbers below 2^275), by p = 2^255 - 19: the bits above 255 times
 * 19 added to the low 255, twice, then p taken off once if need be (a third less than BigInt's division here). */
function modP(v: bigint): bigint {
  v = (v & LOW_255) + 19n * (v >> 255n);
  v = (v & LOW_255) + 19n * (v >> 255n);
  return v >= P ? v - P : v;
}
/** The eightfold of each value (section 17.1): the u-coordinate of 8P, three doublings on the u-line, one inversion
 * for the whole list (Montgomery's trick). Two distinct valid values share one exactly when they differ by a
 * small-order point, so the next clamped scalar maps them to one value. -1n for a value that reaches the point at
 * infinity (a low-order point: never a valid value). The reference's sealed_group.eightfolds. */
export function eightfolds(values: readonly Uint8Array[]): bigint[] {
  const xs: bigint[] = [];
  const zs: bigint[] = [];
  for (let k = 0; k < values.length; k++) {
    let x = leToBigInt(values[k] as Uint8Array) % P;
    let z = 1n;
    for (let i = 0; i < 3; i++) {
      // RFC 7748's doubling (the ladder's): with a = (x + z)^2, b = (x - z)^2 and c = a - b = 4xz, the point
      // ((x^2 - z^2)^2 : 4xz(x^2 + Axz + z^2)) is (ab : c(b + A24 c)), A24 = (A + 2) / 4: the same two numbers mod p
      // in four products and four reductions where the formula as written takes five and seven (sums and
      // differences kept below 2p, reduced with the product that follows; each reduction modP's).
      const s = x + z;
      const d = x - z + P;
      const a = modP(s * s);
      const b = modP(d * d);
      const c = a - b + P;
      x = modP(a * b);
      z = modP(c * (b + A24 * c));
    }
    xs.push(x);
    zs.push(z);
  }
  return quotients(xs, zs);
}

/** nums[i] / dens[i] mod p for each i, -1 where dens[i] is 0: one inversion for the list (Montgomery's trick). The
 * reference's _quotients. */
function quotients(nums: readonly bigint[], dens: readonly bigint[]): bigint[] {
  const prefix: bigint[] = [];
  let product = 1n;
  for (let k = 0; k < dens.length; k++) {
    const den = dens[k] as bigint;
    prefix.push(product);
    if (den !== 0n) product = modP(product * den);
  }
  let inverse = inverseMod(product, P);
  const out: bigint[] = new Array<bigint>(dens.length).fill(0n);
  for (let i = dens.length - 1; i >= 0; i--) {
    const den = dens[i] as bigint;
    if (den === 0n) {
      out[i] = -1n;
      continue;
    }
    out[i] = modP((nums[i] as bigint) * modP(inverse * (prefix[i] as bigint)));
    inverse = modP(inverse * den);
  }
  return out;
}

/** A 32-byte little-endian integer, as leToBigInt, from four 64-bit words (half leToBigInt's cost: a received value's
 * bytes are often a view into a message's, hence the offset). */
function le32ToBigInt(bytes: Uint8Array): bigint {
  const words = new DataView(bytes.buffer, bytes.byteOffset, 32);
  return (words.getBigUint64(24, true) << 192n) | (words.getBigUint64(16, true) << 128n)
    | (words.getBigUint64(8, true) << 64n) | words.getBigUint64(0, true);
}

/** (A - 2) / 4 = 121665: the constant of the twin key's second 2-isogeny (twinKeys). */
const QUARTER_A_MINUS_2 = (A - 2n) / 4n;
const P2 = 2n * P;

/** twinKeys in BigInt arithmetic (every value's key, one inversion for the list). */
export function bigIntTwinKeys(values: readonly Uint8Array[]): bigint[] {
  const nums: bigint[] = [];
  const dens: bigint[] = [];
  for (let k = 0; k < values.length; k++) {
    const value = values[k] as Uint8Array;
    const u = value.length === 32 ? le32ToBigInt(value) : leToBigInt(value); // below 2^256
    // The doubling from (u : 1) written out: X = (u² − 1)², Z = 4u (u² + A u + 1) (the ladder's (ab : c (b + A24 c))
    // with z = 1: one product and a few sums fewer). Between the products a number t is only folded,
    // (t mod 2^255) + 19 (t >> 255), which is t mod p up to a multiple of p; each number's bound in bits after it.
    let t = u * u;
    const u2 = (t & LOW_255) + 19n * (t >> 255n); // < 2^262
    t = u2 - 1n; // may be −1: only its square is used
    t *= t;
    const x = (t & LOW_255) + 19n * (t >> 255n); // < 2^274
    t = ((A * u + u2 + 1n) * u) << 2n;
    const z = (t & LOW_255) + 19n * (t >> 255n); // < 2^283
    // Then the 4-isogeny's s (s + 121665 c) : c d, s = (x + z)², d = (x − z)² (either sign squared), c = s − d.
    t = x + z;
    t *= t;
    t = (t & LOW_255) + 19n * (t >> 255n);
    const a = (t & LOW_255) + 19n * (t >> 255n); // < 2^256
    t = x - z;
    t *= t;
    t = (t & LOW_255) + 19n * (t >> 255n);
    const b = (t & LOW_255) + 19n * (t >> 255n); // < 2^256
    const c = a - b + P2; // positive (b < 2^255 + 2^66), < 2^257
    // a (a + 121665 c) < 2^255.01 · 2^274.1 and c b below 2^530: what modP takes
    nums.push(modP(a * (a + QUARTER_A_MINUS_2 * c)));
    dens.push(modP(c * b));
  }
  return quotients(nums, dens);
}
