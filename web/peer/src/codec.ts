/**
 * MessagePack for bytes from the network (protocol.md section 7), a small strict codec of its own.
 *
 * Why not @msgpack/msgpack: section 7 asks receivers to refuse duplicated map keys and invalid UTF-8, and the
 * body checks of section 9 must tell a float or a boolean from an integer; that library keeps the last of two
 * equal keys, replaces bad UTF-8 in short strings without a word, decodes 1.0 and 1 to the same number and has
 * no depth rule of section 7's kind, nor refuses a value not in its canonical form (section 7: the one this codec's
 * `encode` writes, the reference's bytes: shortest encodings, str8 and bin8, float 64, map keys in the order given).
 * Decoded values:
 * null, boolean, number (an integer that fits a double exactly), bigint (any other integer), Float (a msgpack
 * float, kept apart from the integers), string, Uint8Array (bin), Value[] and MsgMap (str keys, in order).
 */

import { pyRepr } from "./names.js";

export const MAX_MESSAGE = 65536; // bytes of one wire message (and of its signed part)
export const MAX_ARRAY = 256;
export const MAX_MAP = 32;
export const MAX_STR = 1024; // bytes of UTF-8
export const MAX_DEPTH = 6; // containers; a container at depth 7 is refused

/** A msgpack float: never equal to an integer for the body checks. */
export class Float {
  constructor(readonly value: number) {}
}

export type MsgMap = Map<string, Value>;
export type Value = null | boolean | number | bigint | Float | string | Uint8Array | Value[] | MsgMap;

/** Bytes that are not an acceptable msgpack value; the message says what was wrong. */
export class DecodeError extends Error {
  override readonly name = "DecodeError";
}

/** The msgpack spec's name of the format whose first byte is `head` (of a value decode accepts). */
export function form(head: number): string {
  if (head <= 0x7f) return "positive fixint";
  if (head >= 0xe0) return "negative fixint";
  if (head <= 0x8f) return "fixmap";
  if (head <= 0x9f) return "fixarray";
  if (head <= 0xbf) return "fixstr";
  return FORMS.get(head) ?? `type 0x${head.toString(16).padStart(2, "0")}`;
}

const FORMS = new Map<number, string>([[0xc0, "nil"], [0xc2, "false"], [0xc3, "true"], [0xc4, "bin 8"],
  [0xc5, "bin 16"], [0xc6, "bin 32"], [0xca, "float 32"], [0xcb, "float 64"], [0xcc, "uint 8"], [0xcd, "uint 16"],
  [0xce, "uint 32"], [0xcf, "uint 64"], [0xd0, "int 8"], [0xd1, "int 16"], [0xd2, "int 32"], [0xd3, "int 64"],
  [0xd9, "str 8"], [0xda, "str 16"], [0xdb, "str 32"], [0xdc, "array 16"], [0xdd, "array 32"], [0xde, "map 16"],
  [0xdf, "map 32"]]);

/** A valid msgpack value with a head in another form than its canonical one (section 7: the form `encode` writes):
 * `have` and `want` are the two forms' type bytes, `at` the head's byte offset in the value. */
export class NotCanonical extends DecodeError {
  constructor(readonly have: number, readonly want: number, readonly at: number, part = "") {
    super(`not canonical msgpack: ${form(have)} at byte ${at}${part}, where ${form(want)} is canonical`);
  }

  /** The same refusal, its offset said to count in `part` of the bytes (an envelope's signed part). */
  within(part: string): NotCanonical {
    return new NotCanonical(this.have, this.want, this.at, ` of ${part}`);
  }
}

/** The type byte of an integer's canonical form (a fixint: the value's own byte, any negative one's 0xe0). */
function intHead(v: number | bigint): number {
  if (v >= 0) return v < 0x80 ? Number(v) : v < 0x100 ? 0xcc : v < 0x10000 ? 0xcd : v < 0x100000000 ? 0xce : 0xcf;
  return v >= -32 ? 0xe0 : v >= -0x80 ? 0xd0 : v >= -0x8000 ? 0xd1 : v >= -0x80000000 ? 0xd2 : 0xd3;
}

/** The type byte of the canonical head of a str, bin, array or map of `n` (`fix`: the fix form's byte, -1 for a
 * bin; `fixMax` its most; `types` the 8-, 16- and 32-bit forms' bytes, -1 for none). */
function lengthType(n: number, fix: number, fixMax: number, types: Heads): number {
  return n <= fixMax && fix >= 0 ? fix : n < 0x100 && types[0] >= 0 ? types[0] : n < 0x10000 ? types[1] : types[2];
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// The reasons are the reference's words (p2pnimmt/protocol/codec.py over msgpack-python), found in its order: a
// value cut short, a reserved type byte and nesting past msgpack's stack as soon as they are read; a str, bin or
// ext over its limit once its bytes are in; an array or map over its limit at its header; a map key of another
// type than str or bin once its value is read; a bin key, then a key twice, once the map is read; bytes after
// the value; then nesting deeper than section 7 allows. So a delivery fault's detail is the same in both.
const msgpackError = (why: string): DecodeError => new DecodeError(`not valid msgpack: ${why}`);
const STACK = 1024; // msgpack-python's stack of open containers

/** Python's repr() of bytes (b'...'). */
function bytesRepr(data: Uint8Array): string {
  let has1 = false;
  let has2 = false;
  for (const b of data) {
    if (b === 0x27) has1 = true;
    if (b === 0x22) has2 = true;
  }
  const quote = has1 && !has2 ? '"' : "'";
  let out = "";
  for (const b of data) {
    const ch = String.fromCharCode(b);
    if (ch === "\\" || ch === quote) out += `\\${ch}`;
    else if (b === 0x09) out += "\\t";
    else if (b === 0x0a) out += "\\n";
    else if (b === 0x0d) out += "\\r";
    else if (b >= 0x20 && b < 0x7f) out += ch;
    else out += `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return `b${quote}${out}${quote}`;
}

/** Python's repr() of a float. */
function floatRepr(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const [mantissa, e] = v.toExponential().split("e") as [string, string];
  const exp = Number(e);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, "0");
  const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : "0";
  return `${sign}${whole}.${frac}`;
}

/** Python's repr() of a decoded value (the reference's words quote values so). */
export function pyValueRepr(v: Value): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  if (v instanceof Float) return floatRepr(v.value);
  if (typeof v === "string") return pyRepr(v);
  if (v instanceof Uint8Array) return bytesRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyValueRepr).join(", ")}]`;
  return `{${[...v].map(([k, x]) => `${pyRepr(k)}: ${pyValueRepr(x)}`).join(", ")}}`;
}

/** CPython's words for the first UTF-8 error in `raw` (its strict decoder's ranges and reasons). */
function utf8Error(raw: Uint8Array): string {
  const fail = (s: number, e: number, reason: string): string => (e - s === 1
    ? `'utf-8' codec can't decode byte 0x${(raw[s] as number).toString(16).padStart(2, "0")} in position ${s}: ${reason}`
    : `'utf-8' codec can't decode bytes in position ${s}-${e - 1}: ${reason}`);
  let i = 0;
  while (i < raw.length) {
    const b = raw[i] as number;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return fail(i, i + 1, "invalid start byte");
    for (let j = 1; j <= need; j++) {
      if (i + j >= raw.length) return fail(i, raw.length, "unexpected end of data");
      const c = raw[i + j] as number;
      if (c < (j === 1 ? lo : 0x80) || c > (j === 1 ? hi : 0xbf)) return fail(i, i + j, "invalid continuation byte");
    }
    i += need + 1;
  }
  return "invalid UTF-8";
}

/** Python's type name of a decoded value (msgpack-python's words for a map key it does not allow). */
function typeName(v: Value): string {
  if (v === null) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number" || typeof v === "bigint") return "int";
  if (v instanceof Float) return "float";
  if (typeof v === "string") return "str";
  if (v instanceof Uint8Array) return "bytes";
  return Array.isArray(v) ? "list" : "dict";
}

/** Short ASCII strings decoded so far (kinds, field names, codes: the same few in every message), by their length
 * and five of their bytes (`shortKey`), with their bytes: each decoded once, then the same string given back, with
 * no decoder call, no new string, its hash for the maps computed once. */
const SHORT_STR = 16;
const MAX_KNOWN_STRINGS = 1024;
const knownStrings = new Map<number, { readonly text: string; readonly bytes: Uint8Array }>();

/** The key of the `n` (1..SHORT_STR) bytes at `at` among the known strings: their length and five of their bytes
 * (first, last, middle and quarters), folded below 2^30 (a small integer to V8). Two strings alike there are told
 * apart by all their bytes (the second is then made at every decode: no two of the names in the project's sources
 * share a key). A node runs its game in V8's baseline code, where every operation is a call: five bytes read, not a
 * hash of every byte. */
function shortKey(data: Uint8Array, at: number, n: number): number {
  return n ^ ((data[at] as number) << 5) ^ ((data[at + (n >> 2)] as number) << 9) ^ ((data[at + (n >> 1)] as number) << 13)
    ^ ((data[at + ((3 * n) >> 2)] as number) << 17) ^ ((data[at + n - 1] as number) << 22);
}

/** The string of the `n` bytes at `at`, if they are ASCII: one known already, or (while there is room) made and kept;
 * null for other bytes (decoded the long way). */
function knownString(data: Uint8Array, at: number, n: number): string | null {
  const key = n === 0 ? 0 : shortKey(data, at, n);
  const known = knownStrings.get(key);
  if (known !== undefined) {
    const bytes = known.bytes; // ASCII: the same bytes are ASCII too
    let i = 0;
    if (bytes.length === n) while (i < n && bytes[i] === data[at + i]) i++;
    if (i === n) return known.text;
  }
  return newString(data, at, n, key, known === undefined);
}

/** knownString's string made and kept (apart from it: every message's decode inlines knownString, and finds its
 * strings known after the first few messages); null if its bytes are not ASCII, or the table is full. */
function newString(data: Uint8Array, at: number, n: number, key: number, keep: boolean): string | null {
  let text = "";
  for (let i = at; i < at + n; i++) {
    const b = data[i] as number;
    if (b >= 0x80) return null;
    text += String.fromCharCode(b);
  }
  if (knownStrings.size >= MAX_KNOWN_STRINGS) return null;
  const kept = internalized(text);
  if (keep) knownStrings.set(key, { text: kept, bytes: data.slice(at, at + n) });
  return kept;
}

/** V8 keeps one copy of each string used as a property name: the protocol's names as its source spells them, so that a
 * map's key and the name looked up compare at once. */
function internalized(text: string): string {
  const holder: Record<string, true> = Object.create(null) as Record<string, true>;
  holder[text] = true;
  return Object.keys(holder)[0] ?? text;
}

class Reader {
  at = 0;
  /** Containers open now that still have entries to read (msgpack-python's stack). */
  private open = 0;
  /** The deepest container read (the outermost is 1). */
  deepest = 0;
  /** The offset of the first head read in another form than its canonical one, -1 if none; the canonical one's type
   * byte (refused once the value is read whole: section 7's order, the reference's). */
  oddAt = -1;
  oddWant = 0;
  /** `views`: a bin is a view of `data`, not a copy (the caller owns `data` and never changes it). */
  /** data's length (a field: in V8's baseline code a typed array's length is a getter's call at every read). */
  private readonly size: number;
  constructor(private readonly data: Uint8Array, private readonly limit: number, private readonly views: boolean) {
    this.size = data.length;
  }

  /** The head at `at` is not in its canonical form, whose type byte is `want`: noted if it is the first. */
  private odd(at: number, want: number): void {
    if (this.oddAt < 0) {
      this.oddAt = at;
      this.oddWant = want;
    }
  }

  /** A length of `size` bytes read for the head of type `b` at `at`, which must be the canonical one for it. */
  private length(size: number, at: number, b: number, fix: number, fixMax: number, types: Heads): number {
    const n = this.uint(size);
    const want = lengthType(n, fix, fixMax, types);
    if (want !== b) this.odd(at, want);
    return n;
  }

  /** An integer read for the head of type `b` at `at`, which must be the canonical one for it. */
  private checked(v: number | bigint, at: number, b: number): number | bigint {
    const want = intHead(v);
    if (want !== b && !(want === 0xe0 && b >= 0xe0)) this.odd(at, want);
    return v;
  }

  private need(n: number): void {
    if (this.at + n > this.size) throw msgpackError("Unpack failed: incomplete input");
  }

  private byte(): number {
    this.need(1);
    return this.data[this.at++] as number;
  }

  private uint(size: number): number {
    this.need(size);
    const data = this.data;
    const at = this.at;
    let v = 0;
    for (let i = 0; i < size; i++) v = v * 256 + (data[at + i] as number);
    this.at = at + size;
    return v;
  }

  private big(size: number, signed: boolean): number | bigint {
    this.need(size);
    let v = 0n;
    for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(this.data[this.at++] as number);
    if (signed && v >= 1n << BigInt(8 * size - 1)) v -= 1n << BigInt(8 * size);
    return Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v ? Number(v) : v;
  }

  /** The next `n` bytes: a view of `data` where nothing keeps them (a str's, read at once), or where the caller
   * asked for views; else a copy. */
  private bytes(n: number, view: boolean): Uint8Array {
    this.need(n);
    const at = this.at;
    const out = view ? this.data.subarray(at, at + n) : this.data.slice(at, at + n);
    this.at = at + n;
    return out;
  }

  private str(n: number): string {
    if (n <= SHORT_STR) {
      this.need(n);
      const known = knownString(this.data, this.at, n);
      if (known !== null) {
        this.at += n;
        return known;
      }
    }
    const raw = this.bytes(n, true);
    if (n > MAX_STR) throw msgpackError(`${n} exceeds max_str_len(${MAX_STR})`);
    try {
      return utf8.decode(raw);
    } catch {
      throw msgpackError(utf8Error(raw));
    }
  }

  private bin(n: number): Uint8Array {
    const raw = this.bytes(n, this.views);
    if (n > this.limit) throw msgpackError(`${n} exceeds max_bin_len(${this.limit})`);
    return raw;
  }

  /** An ext value of `n` data bytes: never allowed (section 7); of none, type -1 (msgpack's timestamp) in
   * msgpack-python's words, another type in the codec's own. */
  private ext(n: number): never {
    const type = this.byte();
    this.bytes(n, true);
    if (n > 0) throw msgpackError(`${n + 1} exceeds max_ext_len(0)`);
    if (type === 0xff) throw msgpackError("invalid timestamp data (length 0)");
    throw new DecodeError(`msgpack ext type ${type >= 0x80 ? type - 0x100 : type} is not allowed`);
  }

  /** A container's header read: msgpack-python's stack, then its limit. */
  private container(n: number, max: number, what: string, depth: number): void {
    if (this.open >= STACK) throw msgpackError("StackError (nested too deep)");
    if (n > max) throw msgpackError(`${n} exceeds max_${what}_len(${max})`);
    this.deepest = Math.max(this.deepest, depth);
  }

  private array(n: number, depth: number): Value[] {
    this.container(n, MAX_ARRAY, "array", depth);
    const out: Value[] = [];
    if (n === 0) return out;
    this.open += 1;
    for (let i = 0; i < n; i++) out.push(this.value(depth + 1));
    this.open -= 1;
    return out;
  }

  private map(n: number, depth: number): MsgMap {
    this.container(n, MAX_MAP, "map", depth);
    const out: MsgMap = new Map();
    let bin: Uint8Array | null = null; // the first bin key
    let twice: Set<string> | null = null; // the str keys found again
    if (n > 0) {
      this.open += 1;
      for (let i = 0; i < n; i++) {
        const key = this.value(depth + 1);
        const value = this.value(depth + 1);
        if (typeof key !== "string" && !(key instanceof Uint8Array)) {
          throw msgpackError(`${typeName(key)} is not allowed for map key when strict_map_key=True`);
        }
        if (typeof key !== "string") bin ??= key;
        else if (out.has(key)) (twice ??= new Set()).add(key);
        else out.set(key, value);
      }
      this.open -= 1;
    }
    if (bin) throw new DecodeError(`map key ${bytesRepr(bin).slice(0, 40)} is not a string`);
    if (twice) { // the first key (where it first came) that came again
      for (const key of out.keys()) if (twice.has(key)) throw new DecodeError(`duplicate map key ${pyRepr(key)}`);
    }
    return out;
  }

  /** One value; `depth` is the depth a container read here would have (the outermost is 1). The types every
   * message is made of (fixints, fixstr, fixmap, fixarray, bin 8, uint 8/16/32, nil, booleans) here; the others apart
   * (`rare`: never met in a game, so never compiled with this, which V8 compiles early and inlines into the
   * containers' readers). */
  value(depth: number): Value {
    const at = this.at; // (byte()'s read, here: the one call every value makes)
    if (at >= this.size) throw msgpackError("Unpack failed: incomplete input");
    const b = this.data[at] as number;
    this.at = at + 1;
    if (b <= 0x7f) return b;
    if (b >= 0xa0 && b <= 0xbf) {
      const n = b & 0x1f;
      if (n <= SHORT_STR && at + 1 + n <= this.size) { // a known string's bytes all here: knownString read in place (str's first path)
        const known = knownString(this.data, at + 1, n);
        if (known !== null) {
          this.at = at + 1 + n;
          return known;
        }
      }
      return this.str(n);
    }
    if (b >= 0x80 && b <= 0x8f) return this.map(b & 0x0f, depth);
    if (b >= 0x90 && b <= 0x9f) return this.array(b & 0x0f, depth);
    if (b === 0xc4) {
      const n = at + 1 < this.size ? this.data[at + 1] as number : -1;
      if (n >= 0 && at + 2 + n <= this.size && n <= this.limit) { // a bin 8 whole: bin's view or copy, read in place
        const from = at + 2;
        this.at = from + n;
        return this.views ? this.data.subarray(from, from + n) : this.data.slice(from, from + n);
      }
      return this.bin(this.uint(1));
    }
    if (b >= 0xe0) return b - 0x100;
    if (b === 0xcc) return this.checked(this.uint(1), at, b);
    if (b === 0xcd) return this.checked(this.uint(2), at, b);
    if (b === 0xce) return this.checked(this.uint(4), at, b);
    if (b === 0xc0) return null;
    if (b === 0xc2) return false;
    if (b === 0xc3) return true;
    return this.rare(b, depth);
  }

  /** A value of the type byte `b` that `value` leaves (read already). */
  private rare(b: number, depth: number): Value {
    const at = this.at - 1;
    switch (b) {
      case 0xc5: return this.bin(this.length(2, at, b, -1, -1, BIN_HEADS));
      case 0xc6: return this.bin(this.length(4, at, b, -1, -1, BIN_HEADS));
      case 0xca: {
        this.odd(at, 0xcb); // a float is a float 64 (what the reference writes)
        this.need(4);
        const v = new DataView(this.data.buffer, this.data.byteOffset + this.at, 4).getFloat32(0);
        this.at += 4;
        return new Float(v);
      }
      case 0xcb: {
        this.need(8);
        const v = new DataView(this.data.buffer, this.data.byteOffset + this.at, 8).getFloat64(0);
        this.at += 8;
        return new Float(v);
      }
      case 0xcf: return this.checked(this.big(8, false), at, b);
      case 0xd0: return this.checked(this.big(1, true), at, b);
      case 0xd1: return this.checked(this.big(2, true), at, b);
      case 0xd2: return this.checked(this.big(4, true), at, b);
      case 0xd3: return this.checked(this.big(8, true), at, b);
      case 0xd9: return this.str(this.length(1, at, b, 0xa0, 31, STR_HEADS));
      case 0xda: return this.str(this.length(2, at, b, 0xa0, 31, STR_HEADS));
      case 0xdb: return this.str(this.length(4, at, b, 0xa0, 31, STR_HEADS));
      case 0xdc: return this.array(this.length(2, at, b, 0x90, 15, ARRAY_HEADS), depth);
      case 0xdd: return this.array(this.length(4, at, b, 0x90, 15, ARRAY_HEADS), depth);
      case 0xde: return this.map(this.length(2, at, b, 0x80, 15, MAP_HEADS), depth);
      case 0xdf: return this.map(this.length(4, at, b, 0x80, 15, MAP_HEADS), depth);
      case 0xd4: return this.ext(1);
      case 0xd5: return this.ext(2);
      case 0xd6: return this.ext(4);
      case 0xd7: return this.ext(8);
      case 0xd8: return this.ext(16);
      case 0xc7: return this.ext(this.uint(1));
      case 0xc8: return this.ext(this.uint(2));
      case 0xc9: return this.ext(this.uint(4));
      default: // 0xc1
        throw msgpackError("FormatError (a reserved or invalid type byte)");
    }
  }
}

/** Decode one untrusted msgpack value of at most `limit` bytes, in its canonical form (section 7: the one `encode`
 * writes); DecodeError naming the first problem. Its bins are
 * copies; with `views`, views of `data` (which the caller then must never change: envelope.ts's own copy of a wire). */
export function decode(data: Uint8Array, limit: number = MAX_MESSAGE, views = false): Value {
  if (data.length > limit) throw new DecodeError(`${data.length} bytes is over the ${limit}-byte limit`);
  if (data.length === 0) throw new DecodeError("no bytes at all");
  const reader = new Reader(data, limit, views);
  const value = reader.value(1);
  if (reader.at !== data.length) throw new DecodeError("trailing bytes after the msgpack value");
  if (reader.oddAt >= 0) throw new NotCanonical(data[reader.oddAt] as number, reader.oddWant, reader.oddAt);
  if (reader.deepest > MAX_DEPTH) throw new DecodeError(`nested deeper than ${MAX_DEPTH} levels`);
  return value;
}

/** A short description of a value for error messages (never its whole content). */
export function describe(value: Value | undefined): string {
  if (value === undefined) return "nothing";
  if (value === null) return "nil";
  if (value instanceof Float) return `float ${value.value}`;
  if (value instanceof Uint8Array) return `bin(${value.length})`;
  if (value instanceof Map) return `a map of ${value.size}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return String(value);
}

// --- encoding: the reference's bytes (msgpack-python's packb with use_bin_type) -------------------------------

/** What encode takes: the decoded values, and plain objects as maps (keys in their order; no integer-like keys). */
export type Encodable = Value | readonly Encodable[] | { readonly [key: string]: Encodable } | ReadonlyMap<string, Encodable>;

const utf8Encoder = new TextEncoder();

/** The bytes written so far, in one buffer that grows by doubling (no array of numbers, no part per value). One
 * writer serves every encode (an encode runs no code of its caller's: it cannot begin another), its buffer kept
 * from one to the next: a message's encode allocates only the bytes it returns. */
class Writer {
  private buf = new Uint8Array(1024);
  /** buf's length (a field: in V8's baseline code a typed array's length is a getter's call at every read). */
  private capacity = 1024;
  private at = 0;

  /** Start a new value (what was written before is left for the next bytes to overwrite; a buffer grown past a
   * message's limit by a large value is not kept). */
  reset(): void {
    this.at = 0;
    if (this.capacity > 2 * MAX_MESSAGE) this.grown(1024);
  }

  private room(n: number): void {
    if (this.at + n <= this.capacity) return;
    let size = this.capacity * 2;
    while (size < this.at + n) size *= 2;
    const before = this.buf;
    this.grown(size);
    this.buf.set(before.subarray(0, this.at));
  }

  /** A new buffer of `size` bytes. */
  private grown(size: number): void {
    this.buf = new Uint8Array(size);
    this.capacity = size;
  }

  /** A type byte and `value` big-endian in `size` bytes. */
  head(type: number, value: number | bigint, size: number): void {
    this.room(1 + size);
    const buf = this.buf; // (locals: in V8's baseline code each read of a field is a call)
    const at = this.at;
    buf[at] = type;
    if (typeof value === "number" && size <= 4) { // below 2^32: the common case, without BigInt
      for (let i = size; i >= 1; i--) {
        buf[at + i] = value & 0xff;
        value >>>= 8;
      }
    } else {
      let v = BigInt(value);
      for (let i = size; i >= 1; i--) {
        buf[at + i] = Number(v & 0xffn);
        v >>= 8n;
      }
    }
    this.at = at + 1 + size;
  }

  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }

  /** A string's UTF-8 after its head: an ASCII one (keys, kinds, codes) written as it is, without a TextEncoder. */
  text(value: string): void {
    const n = value.length;
    const start = this.at;
    lengthHead(this, n, 0xa0, 31, STR_HEADS);
    this.room(n);
    const buf = this.buf; // (locals: in V8's baseline code each read of a field is a call)
    const at = this.at;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c >= 0x80) { // not ASCII: its head and bytes written again from its UTF-8
        this.at = start;
        const bytes = utf8Encoder.encode(value);
        lengthHead(this, bytes.length, 0xa0, 31, STR_HEADS);
        this.raw(bytes);
        return;
      }
      buf[at + i] = c;
    }
    this.at = at + n;
  }

  done(): Uint8Array {
    return this.buf.slice(0, this.at);
  }

  /** The bytes written, a view of this writer's own buffer: good until the next encode. */
  forNow(): Uint8Array {
    return this.buf.subarray(0, this.at);
  }
}

/** The type bytes of a length's 8-, 16- and 32-bit heads (-1: none), made once (not an array a value written). */
type Heads = readonly [number, number, number];
const STR_HEADS: Heads = [0xd9, 0xda, 0xdb];
const BIN_HEADS: Heads = [0xc4, 0xc5, 0xc6];
const ARRAY_HEADS: Heads = [-1, 0xdc, 0xdd];
const MAP_HEADS: Heads = [-1, 0xde, 0xdf];

function lengthHead(w: Writer, n: number, fix: number, fixMax: number, types: Heads): void {
  if (n <= fixMax && fix >= 0) w.byte(fix | n);
  else if (n < 0x100 && types[0] >= 0) w.head(types[0], n, 1);
  else if (n < 0x10000) w.head(types[1], n, 2);
  else w.head(types[2], n, 4);
}

function integer(w: Writer, value: number | bigint): void {
  if (typeof value === "number" && value >= -32 && value <= 0xffffffff) {  // the common case, without BigInt
    // One head for every size, every comparison made at every value: a compiled encoder that never met a value of
    // 128 or more would otherwise be thrown away by V8 at the first (a round's scores), and compiled again.
    const fix = value < 0x80; // a negative or positive fixint: its one byte
    const one = value < 0x100;
    const two = value < 0x10000;
    w.head(fix ? value & 0xff : one ? 0xcc : two ? 0xcd : 0xce, value, fix ? 0 : one ? 1 : two ? 2 : 4);
    return;
  }
  const v = BigInt(value);
  if (v >= 0n) {
    if (v < 0x80n) w.byte(Number(v));
    else if (v < 0x100n) w.head(0xcc, v, 1);
    else if (v < 0x10000n) w.head(0xcd, v, 2);
    else if (v < 0x100000000n) w.head(0xce, v, 4);
    else if (v < 1n << 64n) w.head(0xcf, v, 8);
    else throw new RangeError(`${v} does not fit msgpack`);
  } else {
    const unsigned = (bits: number): bigint => (v + (1n << BigInt(bits))) & ((1n << BigInt(bits)) - 1n);
    if (v >= -32n) w.byte(Number(v) & 0xff);
    else if (v >= -0x80n) w.head(0xd0, unsigned(8), 1);
    else if (v >= -0x8000n) w.head(0xd1, unsigned(16), 2);
    else if (v >= -0x80000000n) w.head(0xd2, unsigned(32), 4);
    else if (v >= -(1n << 63n)) w.head(0xd3, unsigned(64), 8);
    else throw new RangeError(`${v} does not fit msgpack`);
  }
}

function write(w: Writer, value: Encodable): void {
  if (value === null || value === false || value === true) w.byte(value === null ? 0xc0 : value ? 0xc3 : 0xc2); // (one call)
  else if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new TypeError(`${value} is not an integer: wrap a float in Float`);
    integer(w, value);
  } else if (typeof value === "bigint") integer(w, value);
  else if (value instanceof Float) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value.value);
    w.byte(0xcb);
    w.raw(bytes);
  } else if (typeof value === "string") {
    w.text(value);
  } else if (value instanceof Uint8Array) {
    lengthHead(w, value.length, -1, -1, BIN_HEADS);
    w.raw(value);
  } else if (Array.isArray(value)) {
    lengthHead(w, value.length, 0x90, 15, ARRAY_HEADS);
    const items = value as readonly Encodable[];
    for (let i = 0; i < items.length; i++) write(w, items[i] as Encodable);
  } else if (value instanceof Map) { // (forEach: no array of its entries made, no iterator protocol to compile)
    lengthHead(w, value.size, 0x80, 15, MAP_HEADS);
    (value as ReadonlyMap<string, Encodable>).forEach(writeEntry, w);
  } else {
    const entries = Object.entries(value as { readonly [key: string]: Encodable });
    if (entries.some(([key]) => /^(0|[1-9][0-9]*)$/.test(key))) {
      throw new TypeError("an object with integer-like keys loses its key order: use a Map");
    }
    lengthHead(w, entries.length, 0x80, 15, MAP_HEADS);
    for (const [key, item] of entries) {
      write(w, key);
      write(w, item);
    }
  }
}

/** One entry of a map, key then value, into the writer `this` (Map.forEach's callback). */
function writeEntry(this: Writer, item: Encodable, key: string): void {
  write(this, key);
  write(this, item);
}

const writer = new Writer();

/** The msgpack bytes of `value`: shortest integers, str for text, bin for bytes, map keys in the order given. */
export function encode(value: Encodable): Uint8Array {
  const w = writer;
  w.reset();
  write(w, value);
  return w.done();
}

/** `prefix` followed by the msgpack bytes of `value`, in the buffer the next encode fills again (bytes read or copied
 * at once: a transcript's record, hashed and appended to its file). */
export function encodeAfterForNow(prefix: Uint8Array, value: Encodable): Uint8Array {
  const w = writer;
  w.reset();
  w.raw(prefix);
  write(w, value);
  return w.forNow();
}

