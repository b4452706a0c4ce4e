/**
 * Arithmetic mod p = 2^255 - 19 in 12 limbs of 22 bits (264 bits), each a double of a Float64Array, for the sealed
 * deal's arrival checks (twin keys, 17.1): no BigInt made or collected a product, and the 144 products of the
 * schoolbook taken column by column (product scanning: each column's sum in a register, nothing stored before the
 * reduction). Exact while every sum stays below 2^53. An element's value is sum(limb[i] * 2^(22 i)), any integer
 * congruent to the number mod p: limbs may be negative or above 2^22 between operations (`add` and `sub` carry
 * nothing); `pack` gives the canonical number. Bounds: `mul` and `sqr` take limbs of magnitude below 2^24 (a
 * column's sum of 12 products stays below 2^51.6) and leave them in [0, 2^22) but limb 1, of magnitude below 2^23;
 * `unpack` leaves them in [0, 2^22). 2^264 = 2^9 * 19 = 9728 mod p. Nothing here is constant-time: the values are
 * public (received points). test/field25519.test.ts holds every operation against BigInt's on random and edge values.
 */

/** An element of the field: 12 limbs of 22 bits, little-endian. */
export type Fe = Float64Array;

const RADIX = 4194304; // 2^22
const INV_RADIX = 1 / RADIX;
const MASK = RADIX - 1;

export function fe(): Fe {
  return new Float64Array(12);
}

/** The 32 bytes at `offset` of `bytes`, little-endian, all 256 bits (a number below 2^256, not reduced): limb i holds
 * bits 22 i to 22 i + 21 (four bytes read from bit 22 i's byte, the bytes past the 32 taken as 0). */
export function unpack(o: Fe, bytes: Uint8Array, offset = 0): void {
  for (let i = 0; i < 12; i++) {
    const bit = 22 * i;
    const at = offset + (bit >> 3);
    const word = (bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((at + 2 < offset + 32 ? bytes[at + 2] as number : 0) << 16)
      | ((at + 3 < offset + 32 ? bytes[at + 3] as number : 0) << 24);
    o[i] = (word >>> (bit & 7)) & MASK;
  }
}

/** o = a + b (no carry). */
export function add(o: Fe, a: Fe, b: Fe): void {
  for (let i = 0; i < 12; i++) o[i] = (a[i] as number) + (b[i] as number);
}

/** o = a - b (no carry). */
export function sub(o: Fe, a: Fe, b: Fe): void {
  for (let i = 0; i < 12; i++) o[i] = (a[i] as number) - (b[i] as number);
}

/** o = a (a copy). */
export function copy(o: Fe, a: Fe): void {
  for (let i = 0; i < 12; i++) o[i] = a[i] as number;
}

/** One carry pass: limbs 0-10 into [0, 2^22), the carry out of limb 11 kept there (o's value unchanged; limbs of
 * magnitude below 2^52). */
function carry(o: Fe): void {
  let c = 0;
  for (let i = 0; i < 11; i++) {
    const v = (o[i] as number) + c;
    c = Math.floor(v * INV_RADIX);
    o[i] = v - c * RADIX;
  }
  o[11] = (o[11] as number) + c;
}

/** The bits of limb 11 from 2^255 on (bit 13 up) times 19 into limb 0: the value mod p kept, limb 11 in [0, 2^13). */
function fold(o: Fe): void {
  const top = o[11] as number;
  const h = Math.floor(top / 8192);
  o[11] = top - h * 8192;
  o[0] = (o[0] as number) + 19 * h;
}

/** o = a * k for an integer 0 <= k < 2^20, carried (a's limbs of magnitude below 2^24; o's below 2^23). */
export function mulSmall(o: Fe, a: Fe, k: number): void {
  for (let i = 0; i < 12; i++) o[i] = (a[i] as number) * k;
  carry(o);
  fold(o);
  const c = Math.floor((o[0] as number) * INV_RADIX);
  o[0] = (o[0] as number) - c * RADIX;
  o[1] = (o[1] as number) + c;
}

/** o = a * b mod p (o may be a or b). */
export function mul(o: Fe, a: Fe, b: Fe): void {
  const a0 = a[0] as number, a1 = a[1] as number, a2 = a[2] as number, a3 = a[3] as number, a4 = a[4] as number, a5 = a[5] as number;
  const a6 = a[6] as number, a7 = a[7] as number, a8 = a[8] as number, a9 = a[9] as number, a10 = a[10] as number, a11 = a[11] as number;
  const b0 = b[0] as number, b1 = b[1] as number, b2 = b[2] as number, b3 = b[3] as number, b4 = b[4] as number, b5 = b[5] as number;
  const b6 = b[6] as number, b7 = b[7] as number, b8 = b[8] as number, b9 = b[9] as number, b10 = b[10] as number, b11 = b[11] as number;
  // the columns of the product (each |sum| below 2^51.6)
  let t0 = a0 * b0;
  let t1 = a0 * b1 + a1 * b0;
  let t2 = a0 * b2 + a1 * b1 + a2 * b0;
  let t3 = a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0;
  let t4 = a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0;
  let t5 = a0 * b5 + a1 * b4 + a2 * b3 + a3 * b2 + a4 * b1 + a5 * b0;
  let t6 = a0 * b6 + a1 * b5 + a2 * b4 + a3 * b3 + a4 * b2 + a5 * b1 + a6 * b0;
  let t7 = a0 * b7 + a1 * b6 + a2 * b5 + a3 * b4 + a4 * b3 + a5 * b2 + a6 * b1 + a7 * b0;
  let t8 = a0 * b8 + a1 * b7 + a2 * b6 + a3 * b5 + a4 * b4 + a5 * b3 + a6 * b2 + a7 * b1 + a8 * b0;
  let t9 = a0 * b9 + a1 * b8 + a2 * b7 + a3 * b6 + a4 * b5 + a5 * b4 + a6 * b3 + a7 * b2 + a8 * b1 + a9 * b0;
  let t10 = a0 * b10 + a1 * b9 + a2 * b8 + a3 * b7 + a4 * b6 + a5 * b5 + a6 * b4 + a7 * b3 + a8 * b2 + a9 * b1 + a10 * b0;
  let t11 = a0 * b11 + a1 * b10 + a2 * b9 + a3 * b8 + a4 * b7 + a5 * b6 + a6 * b5 + a7 * b4 + a8 * b3 + a9 * b2 + a10 * b1 + a11 * b0;
  const t12 = a1 * b11 + a2 * b10 + a3 * b9 + a4 * b8 + a5 * b7 + a6 * b6 + a7 * b5 + a8 * b4 + a9 * b3 + a10 * b2 + a11 * b1;
  const t13 = a2 * b11 + a3 * b10 + a4 * b9 + a5 * b8 + a6 * b7 + a7 * b6 + a8 * b5 + a9 * b4 + a10 * b3 + a11 * b2;
  const t14 = a3 * b11 + a4 * b10 + a5 * b9 + a6 * b8 + a7 * b7 + a8 * b6 + a9 * b5 + a10 * b4 + a11 * b3;
  const t15 = a4 * b11 + a5 * b10 + a6 * b9 + a7 * b8 + a8 * b7 + a9 * b6 + a10 * b5 + a11 * b4;
  const t16 = a5 * b11 + a6 * b10 + a7 * b9 + a8 * b8 + a9 * b7 + a10 * b6 + a11 * b5;
  const t17 = a6 * b11 + a7 * b10 + a8 * b9 + a9 * b8 + a10 * b7 + a11 * b6;
  const t18 = a7 * b11 + a8 * b10 + a9 * b9 + a10 * b8 + a11 * b7;
  const t19 = a8 * b11 + a9 * b10 + a10 * b9 + a11 * b8;
  const t20 = a9 * b11 + a10 * b10 + a11 * b9;
  const t21 = a10 * b11 + a11 * b10;
  const t22 = a11 * b11;
  // the columns from 2^264 on, times 2^264 = 9728 mod p, each split at 2^22 first (9728 t alone could pass 2^53)
  let h = 0, l = 0;
  h = Math.floor(t12 * INV_RADIX); l = t12 - h * RADIX; t0 += 9728 * l; t1 += 9728 * h;
  h = Math.floor(t13 * INV_RADIX); l = t13 - h * RADIX; t1 += 9728 * l; t2 += 9728 * h;
  h = Math.floor(t14 * INV_RADIX); l = t14 - h * RADIX; t2 += 9728 * l; t3 += 9728 * h;
  h = Math.floor(t15 * INV_RADIX); l = t15 - h * RADIX; t3 += 9728 * l; t4 += 9728 * h;
  h = Math.floor(t16 * INV_RADIX); l = t16 - h * RADIX; t4 += 9728 * l; t5 += 9728 * h;
  h = Math.floor(t17 * INV_RADIX); l = t17 - h * RADIX; t5 += 9728 * l; t6 += 9728 * h;
  h = Math.floor(t18 * INV_RADIX); l = t18 - h * RADIX; t6 += 9728 * l; t7 += 9728 * h;
  h = Math.floor(t19 * INV_RADIX); l = t19 - h * RADIX; t7 += 9728 * l; t8 += 9728 * h;
  h = Math.floor(t20 * INV_RADIX); l = t20 - h * RADIX; t8 += 9728 * l; t9 += 9728 * h;
  h = Math.floor(t21 * INV_RADIX); l = t21 - h * RADIX; t9 += 9728 * l; t10 += 9728 * h;
  h = Math.floor(t22 * INV_RADIX); l = t22 - h * RADIX; t10 += 9728 * l; t11 += 9728 * h;
  // one carry pass, the top's carry times 9728 into limb 0, and limb 0's into limb 1
  let c = 0;
  c = Math.floor(t0 * INV_RADIX); t0 -= c * RADIX; t1 += c;
  c = Math.floor(t1 * INV_RADIX); t1 -= c * RADIX; t2 += c;
  c = Math.floor(t2 * INV_RADIX); t2 -= c * RADIX; t3 += c;
  c = Math.floor(t3 * INV_RADIX); t3 -= c * RADIX; t4 += c;
  c = Math.floor(t4 * INV_RADIX); t4 -= c * RADIX; t5 += c;
  c = Math.floor(t5 * INV_RADIX); t5 -= c * RADIX; t6 += c;
  c = Math.floor(t6 * INV_RADIX); t6 -= c * RADIX; t7 += c;
  c = Math.floor(t7 * INV_RADIX); t7 -= c * RADIX; t8 += c;
  c = Math.floor(t8 * INV_RADIX); t8 -= c * RADIX; t9 += c;
  c = Math.floor(t9 * INV_RADIX); t9 -= c * RADIX; t10 += c;
  c = Math.floor(t10 * INV_RADIX); t10 -= c * RADIX; t11 += c;
  c = Math.floor(t11 * INV_RADIX); t11 -= c * RADIX; t0 += 9728 * c;
  c = Math.floor(t0 * INV_RADIX); t0 -= c * RADIX; t1 += c;
  o[0] = t0; o[1] = t1; o[2] = t2; o[3] = t3; o[4] = t4; o[5] = t5;
  o[6] = t6; o[7] = t7; o[8] = t8; o[9] = t9; o[10] = t10; o[11] = t11;
}

export function sqr(o: Fe, a: Fe): void {
  const a0 = a[0] as number, a1 = a[1] as number, a2 = a[2] as number, a3 = a[3] as number, a4 = a[4] as number, a5 = a[5] as number;
  const a6 = a[6] as number, a7 = a[7] as number, a8 = a[8] as number, a9 = a[9] as number, a10 = a[10] as number, a11 = a[11] as number;
  const d0 = 2 * a0, d1 = 2 * a1, d2 = 2 * a2, d3 = 2 * a3, d4 = 2 * a4, d5 = 2 * a5;
  const d6 = 2 * a6, d7 = 2 * a7, d8 = 2 * a8, d9 = 2 * a9, d10 = 2 * a10, d11 = 2 * a11;
  // the columns of the product (each |sum| below 2^51.6)
  let t0 = a0 * a0;
  let t1 = d0 * a1;
  let t2 = d0 * a2 + a1 * a1;
  let t3 = d0 * a3 + d1 * a2;
  let t4 = d0 * a4 + d1 * a3 + a2 * a2;
  let t5 = d0 * a5 + d1 * a4 + d2 * a3;
  let t6 = d0 * a6 + d1 * a5 + d2 * a4 + a3 * a3;
  let t7 = d0 * a7 + d1 * a6 + d2 * a5 + d3 * a4;
  let t8 = d0 * a8 + d1 * a7 + d2 * a6 + d3 * a5 + a4 * a4;
  let t9 = d0 * a9 + d1 * a8 + d2 * a7 + d3 * a6 + d4 * a5;
  let t10 = d0 * a10 + d1 * a9 + d2 * a8 + d3 * a7 + d4 * a6 + a5 * a5;
  let t11 = d0 * a11 + d1 * a10 + d2 * a9 + d3 * a8 + d4 * a7 + d5 * a6;
  const t12 = d1 * a11 + d2 * a10 + d3 * a9 + d4 * a8 + d5 * a7 + a6 * a6;
  const t13 = d2 * a11 + d3 * a10 + d4 * a9 + d5 * a8 + d6 * a7;
  const t14 = d3 * a11 + d4 * a10 + d5 * a9 + d6 * a8 + a7 * a7;
  const t15 = d4 * a11 + d5 * a10 + d6 * a9 + d7 * a8;
  const t16 = d5 * a11 + d6 * a10 + d7 * a9 + a8 * a8;
  const t17 = d6 * a11 + d7 * a10 + d8 * a9;
  const t18 = d7 * a11 + d8 * a10 + a9 * a9;
  const t19 = d8 * a11 + d9 * a10;
  const t20 = d9 * a11 + a10 * a10;
  const t21 = d10 * a11;
  const t22 = a11 * a11;
  // the columns from 2^264 on, times 2^264 = 9728 mod p, each split at 2^22 first (9728 t alone could pass 2^53)
  let h = 0, l = 0;
  h = Math.floor(t12 * INV_RADIX); l = t12 - h * RADIX; t0 += 9728 * l; t1 += 9728 * h;
  h = Math.floor(t13 * INV_RADIX); l = t13 - h * RADIX; t1 += 9728 * l; t2 += 9728 * h;
  h = Math.floor(t14 * INV_RADIX); l = t14 - h * RADIX; t2 += 9728 * l; t3 += 9728 * h;
  h = Math.floor(t15 * INV_RADIX); l = t15 - h * RADIX; t3 += 9728 * l; t4 += 9728 * h;
  h = Math.floor(t16 * INV_RADIX); l = t16 - h * RADIX; t4 += 9728 * l; t5 += 9728 * h;
  h = Math.floor(t17 * INV_RADIX); l = t17 - h * RADIX; t5 += 9728 * l; t6 += 9728 * h;
  h = Math.floor(t18 * INV_RADIX); l = t18 - h * RADIX; t6 += 9728 * l; t7 += 9728 * h;
  h = Math.floor(t19 * INV_RADIX); l = t19 - h * RADIX; t7 += 9728 * l; t8 += 9728 * h;
  h = Math.floor(t20 * INV_RADIX); l = t20 - h * RADIX; t8 += 9728 * l; t9 += 9728 * h;
  h = Math.floor(t21 * INV_RADIX); l = t21 - h * RADIX; t9 += 9728 * l; t10 += 9728 * h;
  h = Math.floor(t22 * INV_RADIX); l = t22 - h * RADIX; t10 += 9728 * l; t11 += 9728 * h;
  // one carry pass, the top's carry times 9728 into limb 0, and limb 0's into limb 1
  let c = 0;
  c = Math.floor(t0 * INV_RADIX); t0 -= c * RADIX; t1 += c;
  c = Math.floor(t1 * INV_RADIX); t1 -= c * RADIX; t2 += c;
  c = Math.floor(t2 * INV_RADIX); t2 -= c * RADIX; t3 += c;
  c = Math.floor(t3 * INV_RADIX); t3 -= c * RADIX; t4 += c;
  c = Math.floor(t4 * INV_RADIX); t4 -= c * RADIX; t5 += c;
  c = Math.floor(t5 * INV_RADIX); t5 -= c * RADIX; t6 += c;
  c = Math.floor(t6 * INV_RADIX); t6 -= c * RADIX; t7 += c;
  c = Math.floor(t7 * INV_RADIX); t7 -= c * RADIX; t8 += c;
  c = Math.floor(t8 * INV_RADIX); t8 -= c * RADIX; t9 += c;
  c = Math.floor(t9 * INV_RADIX); t9 -= c * RADIX; t10 += c;
  c = Math.floor(t10 * INV_RADIX); t10 -= c * RADIX; t11 += c;
  c = Math.floor(t11 * INV_RADIX); t11 -= c * RADIX; t0 += 9728 * c;
  c = Math.floor(t0 * INV_RADIX); t0 -= c * RADIX; t1 += c;
  o[0] = t0; o[1] = t1; o[2] = t2; o[3] = t3; o[4] = t4; o[5] = t5;
  o[6] = t6; o[7] = t7; o[8] = t8; o[9] = t9; o[10] = t10; o[11] = t11;
}

const T0 = fe();
const T1 = fe();
const T2 = fe();
const T3 = fe();

/** o = a^(2^n) (n >= 1). */
function sqrTimes(o: Fe, a: Fe, n: number): void {
  sqr(o, a);
  for (let i = 1; i < n; i++) sqr(o, o);
}

/** o = 1 / a mod p (a^(p - 2): 254 squarings and 11 products, ref10's chain), 0 for a multiple of p. */
export function invert(o: Fe, a: Fe): void {
  const t0 = T0, t1 = T1, t2 = T2, t3 = T3;
  sqr(t0, a); // 2
  sqrTimes(t1, t0, 2); // 8
  mul(t1, a, t1); // 9
  mul(t0, t0, t1); // 11
  sqr(t2, t0); // 22
  mul(t1, t1, t2); // 2^5 - 1
  sqrTimes(t2, t1, 5);
  mul(t1, t2, t1); // 2^10 - 1
  sqrTimes(t2, t1, 10);
  mul(t2, t2, t1); // 2^20 - 1
  sqrTimes(t3, t2, 20);
  mul(t2, t3, t2); // 2^40 - 1
  sqrTimes(t2, t2, 10);
  mul(t1, t2, t1); // 2^50 - 1
  sqrTimes(t2, t1, 50);
  mul(t2, t2, t1); // 2^100 - 1
  sqrTimes(t3, t2, 100);
  mul(t2, t3, t2); // 2^200 - 1
  sqrTimes(t2, t2, 50);
  mul(t1, t2, t1); // 2^250 - 1
  sqrTimes(t1, t1, 5); // 2^255 - 2^5
  mul(o, t1, t0); // 2^255 - 21 = p - 2
}

/** The canonical number of a (below p) in `out`'s limbs, each in [0, 2^22) (a's limbs of magnitude below 2^40). */
export function pack(out: Fe, a: Fe): void {
  copy(out, a);
  // the value's sign and size brought down to 0 <= value < 2^255 + 2^14: carried, the bits from 2^255 on folded
  // (their 2^255 = 19 mod p) three times
  for (let round = 0; round < 3; round++) {
    carry(out);
    fold(out);
  }
  carry(out);
  // value >= p exactly when value + 19 reaches 2^255 (bit 13 of limb 11): then value - p is (value + 19) - 2^255
  const t = T0;
  copy(t, out);
  t[0] = (t[0] as number) + 19;
  carry(t);
  if ((t[11] as number) >= 8192) {
    t[11] = (t[11] as number) - 8192;
    copy(out, t);
  }
}

/** Whether a is 0 mod p. */
export function isZero(a: Fe): boolean {
  const t = T1;
  pack(t, a);
  for (let i = 0; i < 12; i++) if (t[i] !== 0) return false;
  return true;
}
