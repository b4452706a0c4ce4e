/**
 * The twin keys of sealed_group.ts (section 17.1's classes) computed in WebAssembly: the same numbers as its BigInt
 * arithmetic, in a fifth of its time and without a heap object per operation (docs/benchmarks.md, issue 25's
 * twenty-fifth sitting). Under node only (sealed_group.ts's `useFieldWasm`, called where node's backends are chosen):
 * a page's Content-Security-Policy allows no WebAssembly, so a page keeps the BigInt path.
 *
 * Why WebAssembly and not limbs in JavaScript: V8 keeps every double an unoptimized function computes in a new heap
 * object, and under the project's node flags it optimizes the field's products only after a quarter of a game's twin
 * keys (the twenty-fourth sitting's limbs lost cold). WebAssembly's baseline compiler (Liftoff) makes machine code
 * for the whole module at once, 64-bit integer products included, before the first call.
 *
 * The module's code is written out in sealed_field_module.ts (its arithmetic, and why no limb overflows, explained
 * there); its bytes ship in sealed_field_bytes.ts (scripts/gen_sealed_field.mjs writes them, test/field.test.ts
 * checks they are what sealed_field_module.ts assembles: assembling them at start-up costs ~5 ms of a cold node).
 *
 * Memory (one page, 64 KiB): the input values (32 bytes each) from IN, the keys out (32 bytes each) from OUT, a byte a
 * value at FLAGS (1 for a value of low order: its key's denominator is 0), the numerators, denominators and prefix
 * products of Montgomery's trick (80 bytes a number: ten 64-bit limbs), then the temporaries. At most CHUNK values a
 * call.
 */
import { FIELD_MODULE } from "./sealed_field_bytes.js";

/** Values a call of the module's `twin` takes at most (a longer list is taken in chunks: each chunk its own
 * inversion, the same keys). */
export const CHUNK = 128;
export const FE = 80; // a number's bytes: ten 64-bit limbs
export const IN = 0;
export const OUT = IN + 32 * CHUNK;
export const NUM = OUT + 32 * CHUNK;
export const DEN = NUM + FE * CHUNK;
export const PRE = DEN + FE * CHUNK;
export const FLAGS = PRE + FE * CHUNK;
export const TMP = FLAGS + CHUNK;
/** The temporaries' addresses (one number each). */
export const [ONE, U, U2, XX, Z, T, SA, SB, C, PROD, INV, T0, T1, T2, T3] = Array.from({ length: 15 }, (_, i) => TMP + FE * i) as
  [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number];

/** The module's exports (the tests call the field's functions one by one). */
export interface FieldExports {
  readonly memory: WebAssembly.Memory;
  mul(o: number, a: number, b: number): void;
  sq(o: number, a: number): void;
  add(o: number, a: number, b: number): void;
  sub(o: number, a: number, b: number): void;
  small(o: number, a: number, m: bigint): void;
  load(o: number, src: number): void;
  tobytes(dst: number, a: number): number;
  sqn(o: number, a: number, n: number): void;
  invert(o: number, a: number): void;
  copy(o: number, a: number): void;
  twin(n: number): void;
}

/** The module's bytes, from the base64 shipped. */
export function fieldModule(): Uint8Array<ArrayBuffer> {
  const text = atob(FIELD_MODULE);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The module instantiated (compiled at once by V8's baseline compiler), or null where WebAssembly is not there or
 * not allowed. */
export function fieldInstance(bytes: Uint8Array<ArrayBuffer> = fieldModule()): FieldExports | null {
  const wasm = (globalThis as { WebAssembly?: typeof WebAssembly }).WebAssembly;
  if (!wasm) return null;
  try {
    const exports = new wasm.Instance(new wasm.Module(bytes), {}).exports as unknown as FieldExports;
    new BigUint64Array(exports.memory.buffer, ONE, 10).set([1n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n]);
    return exports;
  } catch {
    return null;
  }
}

/** sealed_group.ts's twinKeys on the module: the same numbers (-1n for a value of low order), or null when a value
 * is not 32 bytes (the BigInt path takes those). */
export function wasmTwinKeys(field: FieldExports): (values: readonly Uint8Array[]) => bigint[] | null {
  const bytes = new Uint8Array(field.memory.buffer);
  const words = new BigUint64Array(field.memory.buffer, OUT, 4 * CHUNK);
  return (values) => {
    for (let i = 0; i < values.length; i++) if ((values[i] as Uint8Array).length !== 32) return null;
    const keys = new Array<bigint>(values.length);
    for (let start = 0; start < values.length; start += CHUNK) {
      const n = Math.min(CHUNK, values.length - start);
      for (let i = 0; i < n; i++) bytes.set(values[start + i] as Uint8Array, IN + 32 * i);
      field.twin(n);
      for (let i = 0; i < n; i++) {
        keys[start + i] = bytes[FLAGS + i] === 1 ? -1n
          : ((words[4 * i + 3] as bigint) << 192n) | ((words[4 * i + 2] as bigint) << 128n)
            | ((words[4 * i + 1] as bigint) << 64n) | (words[4 * i] as bigint);
      }
    }
    return keys;
  };
}
