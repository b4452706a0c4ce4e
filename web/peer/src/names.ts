/**
 * Names (section 9, **Names**), as p2pnimmt/protocol/names.py has them: 1..40 code points, each allowed by Unicode
 * 14.0.0's categories; written plainly (NFKC); no space at either end nor two in a row; no combining mark first and
 * at most 3 in a row. Two names look alike when their skeletons (UTS #39, confusables 13.0.0, then full case
 * folding) are equal: no two seats of a START may. The tables are the reference's own (scripts/gen_name_ranges.py);
 * node and the browser are asked for NFKC and NFD only, which are stable for every code point a name may hold.
 */
import {
  FOLD_COUNT, FOLDS, MARK_COUNT, MARKS, PACKED, PROTOTYPE_COUNT, PROTOTYPES, RANGE_COUNT,
} from "./name_ranges.js";

export const NAME_LENGTH = 40;
export const MAX_MARKS = 3;

type Ranges = readonly (readonly [number, number])[];

function unpackRanges(packed: string, count: number): Ranges {
  const numbers = packed.split(",").map((n) => parseInt(n, 16));
  const out: [number, number][] = [];
  let end = -1;
  for (let i = 0; i < numbers.length; i += 2) {
    const first = end + 1 + (numbers[i] as number);
    end = first + (numbers[i + 1] as number);
    out.push([first, end]);
  }
  if (out.length !== count) throw new Error("the name table is damaged");
  return out;
}

function unpackMap(packed: string, count: number): ReadonlyMap<number, string> {
  const out = new Map<number, string>();
  let source = -1;
  for (const entry of packed.split(",")) {
    const [gap, to] = entry.split(":") as [string, string];
    source += parseInt(gap, 16) + 1;
    out.set(source, String.fromCodePoint(...to.split(".").map((n) => parseInt(n, 16))));
  }
  if (out.size !== count) throw new Error("the name table is damaged");
  return out;
}

/** The allowed ranges, [first, last] inclusive, ascending. */
export const NAME_RANGES: Ranges = unpackRanges(PACKED, RANGE_COUNT);
/** The combining marks' ranges (general category Mn, Mc or Me in Unicode 14.0.0). */
export const MARK_RANGES: Ranges = unpackRanges(MARKS, MARK_COUNT);
/** UTS #39's prototypes (confusables 13.0.0) of the code points a name may hold. */
export const NAME_PROTOTYPES: ReadonlyMap<number, string> = unpackMap(PROTOTYPES, PROTOTYPE_COUNT);
/** Full case folding (CaseFolding.txt, status C and F) where it changes a code point. */
export const NAME_FOLDS: ReadonlyMap<number, string> = unpackMap(FOLDS, FOLD_COUNT);

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
    return `a name holds no U+${bad.toString(16).toUpperCase().padStart(4, "0")} (no control, format, private-use `
      + "or unassigned character, and no space but the plain one)";
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
