/**
 * The twin keys of sealed_group.ts (section 17.1's classes) computed in WebAssembly, the peer's one path for them
 * (under node and in the phone page alike): integer products mod p without a heap object per operation
 * (docs/benchmarks.md, issue 25's twenty-fifth sitting; the BigInt arithmetic it replaced is kept in
 * test/bigint_field.ts, the tests' oracle).
 *
 * Why WebAssembly and not limbs in JavaScript: V8 keeps every double an unoptimized function computes in a new heap
 * object, and under the project's node flags it optimizes the field's products only after a quarter of a game's twin
 * keys (the twenty-fourth sitting's limbs lost cold). WebAssembly's baseline compiler (Liftoff) makes machine code
 * for the whole module at once, 64-bit integer products included, before the first call.
 *
 * Compiling: under node (and in a worker) the module is compiled synchronously when the first keys are asked. A
 * page's main thread may not do that (Chromium refuses a synchronous compile of more than 4 KB there, and the module
 * is 5.4 KB): the page awaits `loadField` (WebAssembly.instantiate, off the main thread) before its node can check a
 * deal; its Content-Security-Policy allows WebAssembly by `'wasm-unsafe-eval'` (p2pnimmt/web/server.py).
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

/** The module's exports made ready (the number 1 where `twin` reads it). */
function ready(exports: FieldExports): FieldExports {
  new BigUint64Array(exports.memory.buffer, ONE, 10).set([1n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n]);
  return exports;
}

/** The module compiled and instantiated synchronously (node, a worker; V8's baseline compiler compiles it at once).
 * Throws where WebAssembly is missing or refused (a page's main thread: `loadField` first). */
export function fieldInstance(bytes: Uint8Array<ArrayBuffer> = fieldModule()): FieldExports {
  return ready(new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as FieldExports);
}

/** The module the twin keys use, once compiled; why it could not be, if it could not. */
let loaded: FieldExports | null = null;
let refused: string | null = null;

/** Compile and instantiate the module asynchronously (a page's main thread, before its node checks a deal). Never
 * rejects: where WebAssembly is refused, `field()` names why when the keys are asked. */
export async function loadField(): Promise<void> {
  if (loaded !== null) return;
  try {
    const { instance } = await WebAssembly.instantiate(fieldModule(), {});
    loaded ??= ready(instance.exports as unknown as FieldExports);
  } catch (error) {
    refused = String((error as Error).message ?? error);
  }
}

/** The module the twin keys use: `loadField`'s, or compiled now (synchronously: node, a worker). */
export function field(): FieldExports {
  if (loaded !== null) return loaded;
  try {
    loaded = fieldInstance();
    return loaded;
  } catch (error) {
    throw new Error("the twin keys' WebAssembly module is not compiled (a page's main thread awaits loadField first): "
      + (refused ?? String((error as Error).message ?? error)));
  }
}

/** sealed_group.ts's twinKeys on the module: -1n for a value of low order. Every value is 32 bytes (the arrival
 * checks' points); another length is a RangeError naming its index. */
export function wasmTwinKeys(field: FieldExports): (values: readonly Uint8Array[]) => bigint[] {
  const bytes = new Uint8Array(field.memory.buffer);
  const words = new BigUint64Array(field.memory.buffer, OUT, 4 * CHUNK);
  return (values) => {
    for (let i = 0; i < values.length; i++) {
      const n = (values[i] as Uint8Array).length;
      if (n !== 32) throw new RangeError(`twin keys: value ${i} is ${n} bytes, not 32`);
    }
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
