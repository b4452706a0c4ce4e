/**
 * Names (section 9, **Names**), as p2pnimmt/protocol/names.py has them: 1..40 code points, each allowed by Unicode
 * 14.0.0's categories; written plainly (NFKC); no space at either end nor two in a row; no combining mark first and
 * at most 3 in a row. Two names look alike when their skeletons (UTS #39, confusables 13.0.0, then full case
 * folding) are equal: no two seats of a START may. The tables are the reference's own (scripts/gen_name_ranges.py);
 * node and the browser are asked for NFKC and NFD only, which are stable for every code point a name may hold.
 */
import { hex } from "./bytes.js";
import { sha256 } from "./hash.js";
import {
  DERIVED, DIGITS, FINAL, FOLD_COUNT, FOLDS, MARK_COUNT, MARKS, PACKED, PRINTABLE_BEYOND_NAMES, PROTOTYPE_COUNT,
  PROTOTYPE_DIGEST, PROTOTYPES, RANGE_COUNT,
} from "./name_ranges.js";

export const NAME_LENGTH = 40;
export const MAX_MARKS = 3;

type Ranges = readonly (readonly [number, number])[];

const DAMAGED = "the name table is damaged";

/** The numbers of a table (scripts/gen_name_ranges.py: self-delimiting, DIGITS' first FINAL digits end one). */
function numbers(packed: string): number[] {
  const carry = DIGITS.length - FINAL;
  const out: number[] = [];
  let n = 0;
  for (const ch of packed) {
    const digit = DIGITS.indexOf(ch);
    if (digit < 0) throw new Error(DAMAGED);
    if (digit < FINAL) {
      out.push(n * FINAL + digit);
      n = 0;
    } else {
      n = n * carry + digit - FINAL;
    }
  }
  return out;
}

function unpackRanges(packed: string, count?: number): Ranges {
  const values = numbers(packed);
  const out: [number, number][] = [];
  let end = -1;
  for (let i = 0; i < values.length; i += 2) {
    const first = end + 1 + (values[i] as number);
    end = first + (values[i + 1] as number);
    out.push([first, end]);
  }
  if (count !== undefined && out.length !== count) throw new Error(DAMAGED);
  return out;
}

/** Runs of sources, each mapped to a string: see the script's docstring. */
function unpackMap(packed: string): Map<number, string> {
  const values = numbers(packed);
  const out = new Map<number, string>();
  let source = -1;
  for (let at = 0; at < values.length;) {
    const [gap, run, length, z] = values.slice(at, at + 4) as [number, number, number, number];
    const rest = String.fromCodePoint(...values.slice(at + 4, at + 3 + length));
    at += 3 + length;
    source += gap + 1;
    const step = (run % 2) + 1;
    const distance = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    for (let k = 0; k <= run >> 1; k++) out.set(source + k * step, String.fromCodePoint(source + k * step + distance) + rest);
    source += (run >> 1) * step;
  }
  return out;
}

/** The prototypes: those written out, and the DERIVED ones (NFKD, then each code point by its prototype), in the
 * order of their sources; checked against protocol.md's digest (vector name-rules). */
function unpackPrototypes(): ReadonlyMap<number, string> {
  const table = unpackMap(PROTOTYPES);
  const written = new Map(table);
  for (const [first, last] of unpackRanges(DERIVED)) {
    for (let cp = first; cp <= last; cp++) {
      let prototype = "";
      for (const ch of String.fromCodePoint(cp).normalize("NFKD")) prototype += written.get(ch.codePointAt(0) as number) ?? ch;
      table.set(cp, prototype);
    }
  }
  const sources = [...table.keys()].sort((a, b) => a - b);
  const out = new Map<number, string>();
  const digested: number[] = [];
  for (const source of sources) {
    const prototype = table.get(source) as string;
    out.set(source, prototype);
    const points = [...prototype].map((ch) => ch.codePointAt(0) as number);
    const u32 = (n: number): number[] => [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
    digested.push(...u32(source), points.length, ...points.flatMap(u32));  // as protocol.md's digest is taken
  }
  if (out.size !== PROTOTYPE_COUNT || hex(sha256(Uint8Array.from(digested))) !== PROTOTYPE_DIGEST) {
    throw new Error(`${DAMAGED} (this engine's NFKD is not Unicode's)`);
  }
  return out;
}

/** The allowed ranges, [first, last] inclusive, ascending. */
export const NAME_RANGES: Ranges = unpackRanges(PACKED, RANGE_COUNT);
/** The combining marks' ranges (general category Mn, Mc or Me in Unicode 14.0.0). */
export const MARK_RANGES: Ranges = unpackRanges(MARKS, MARK_COUNT);
/** UTS #39's prototypes (confusables 13.0.0) of the code points a name may hold. */
export const NAME_PROTOTYPES: ReadonlyMap<number, string> = unpackPrototypes();
/** Full case folding (CaseFolding.txt, status C and F) where it changes a code point. */
export const NAME_FOLDS: ReadonlyMap<number, string> = unpackMap(FOLDS);
if (NAME_FOLDS.size !== FOLD_COUNT) throw new Error(DAMAGED);

function inRanges(table: Ranges, codePoint: number): boolean {
  let lo = 0;
  let hi = table.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = table[mid] as readonly [number, number];
    if (codePoint < first) hi = mid - 1;
    else if (codePoint > last) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Whether a name may hold this code point (Unicode 14.0.0's printable ones). */
export function allowedInName(codePoint: number): boolean {
  return inRanges(NAME_RANGES, codePoint);
}

/**
 * The code points printable in Unicode 14.0.0 (what Python 3.11's `str.isprintable` takes) that no name may hold
 * (protocol.md 9, **Names**, rule 1: the Default_Ignorable ones that are not format characters, and U+2800), as
 * [first, last, a combining mark]: a printable code point is one a name may hold or one of these (protocol.md 13,
 * "The words of the report"). The reference's table (p2pnimmt/protocol/name_ranges.py), written into
 * name_ranges.ts: both verifiers read it, never their runtime's Unicode (tests/peer/test_difffuzz_agrees.py).
 */
export { PRINTABLE_BEYOND_NAMES };

function beyondNames(codePoint: number): readonly [number, number, boolean] | undefined {
  return PRINTABLE_BEYOND_NAMES.find(([first, last]) => first <= codePoint && codePoint <= last);
}

/** Printable in Unicode 14.0.0, as Python 3.11's `str.isprintable` says of one code point (protocol.md 13). */
export function isPrintable(codePoint: number): boolean {
  return allowedInName(codePoint) || beyondNames(codePoint) !== undefined;
}

/** A printable combining mark (general category Mn, Mc or Me in Unicode 14.0.0), one a name may not hold included. */
export function isPrintableMark(codePoint: number): boolean {
  return isMark(codePoint) || (beyondNames(codePoint)?.[2] ?? false);
}

/** A combining mark: general category Mn, Mc or Me in Unicode 14.0.0. */
export function isMark(codePoint: number): boolean {
  return inRanges(MARK_RANGES, codePoint);
}

/** Why `text` is not a name, in the reference's words; null when it is one. */
export function nameProblem(text: unknown): string | null {
  if (typeof text !== "string") return "a name is text";
  const points = [...text].map((ch) => ch.codePointAt(0) as number);
  if (points.length < 1 || points.length > NAME_LENGTH) {
    return `a name is 1 to ${NAME_LENGTH} characters, this one has ${points.length}`;
  }
  if (text.startsWith(" ") || text.endsWith(" ") || text.includes("  ")) {
    return "a name neither begins nor ends with a space, nor has two in a row";
  }
  if (points.every((cp) => cp < 0x80)) {
    return points.every((cp) => cp >= 0x20 && cp < 0x7f) ? null : "a name holds no control character";
  }
  const bad = points.find((cp) => !allowedInName(cp));
  if (bad !== undefined) {
    return `a name holds no U+${bad.toString(16).toUpperCase().padStart(4, "0")} (no control, format, private-use, `
      + "unassigned or invisible character, and no space but the plain one)";
  }
  if (text.normalize("NFKC") !== text) {
    return "a name is written plainly (in Unicode's NFKC form: no fullwidth, styled or composed-apart letters)";
  }
  let run = 0;
  for (const [i, cp] of points.entries()) {
    if (!isMark(cp)) {
      run = 0;
      continue;
    }
    run += 1;
    if (i === 0) return "a name does not begin with a combining mark";
    if (run > MAX_MARKS) return `a name has at most ${MAX_MARKS} combining marks on one letter`;
  }
  return null;
}

/** Whether `text` is a name (section 9, **Names**). */
export function isName(text: unknown): text is string {
  return nameProblem(text) === null;
}

/** What `name` looks like: UTS #39's skeleton (NFD, each code point by its prototype, NFD again), case-folded. */
export function skeleton(name: string): string {
  let mapped = "";
  for (const ch of name.normalize("NFD")) mapped += NAME_PROTOTYPES.get(ch.codePointAt(0) as number) ?? ch;
  let folded = "";
  for (const ch of mapped.normalize("NFD")) folded += NAME_FOLDS.get(ch.codePointAt(0) as number) ?? ch;
  return folded;
}

/** Whether two names look alike (their skeletons are equal). */
export function lookAlike(a: string, b: string): boolean {
  return skeleton(a) === skeleton(b);
}

/**
 * Text from a peer made safe to print, as the reference's `neutral` (p2pnimmt/neutral.py): every code point Python's
 * `str.isprintable` refuses written as an escape, at most MAX_MARKS combining marks in a row (the rest escaped). Since
 * session 36 the command line prints its report through this: before, it printed it raw, so a verdict quoting a text of
 * four marks in a row got other words from each verifier. (One argument: `lines.map(neutral)` stays right.)
 */
export function neutral(text: string): string {
  let out = "";
  let marks = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (!isPrintable(cp)) {
      out += escape(cp);
      marks = 0;
    } else if (isPrintableMark(cp)) {
      marks += 1;
      out += marks <= MAX_MARKS ? ch : escape(cp);
    } else {
      marks = 0;
      out += ch;
    }
  }
  return out;
}

/** `neutral` of at most `limit` code points of `text`, with `…` when cut: the reference's `neutral(text, limit)` (since
 * session 46 the page's words for a frame of a kind it does not know, link.ts asksExceeded). */
export function neutralUpTo(text: string, limit: number): string {
  const points = Array.from(text);
  return points.length > limit ? `${neutral(points.slice(0, limit).join(""))}…` : neutral(text);
}

/** A code point written as Python's repr escapes it: \xhh, \uhhhh or \Uhhhhhhhh. */
function escape(cp: number): string {
  return cp < 0x100 ? `\\x${cp.toString(16).padStart(2, "0")}` : cp < 0x10000 ? `\\u${cp.toString(16).padStart(4, "0")}` : `\\U${cp.toString(16).padStart(8, "0")}`;
}

/** A string as Python's repr() writes it (the reference's verdicts quote names and codes this way). */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (isPrintable(cp)) out += ch;
    else out += escape(cp);
  }
  return quote + out + quote;
}
