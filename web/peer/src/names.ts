/** Names (section 9, **Names**): 1..40 code points, each allowed by Unicode 14.0.0's categories. */
import { PACKED, RANGE_COUNT } from "./name_ranges.js";

export const NAME_LENGTH = 40;

/** The allowed ranges, [first, last] inclusive, ascending. */
export const NAME_RANGES: readonly (readonly [number, number])[] = (() => {
  const numbers = PACKED.split(",").map((n) => parseInt(n, 16));
  const out: [number, number][] = [];
  let end = -1;
  for (let i = 0; i < numbers.length; i += 2) {
    const first = end + 1 + (numbers[i] as number);
    end = first + (numbers[i + 1] as number);
    out.push([first, end]);
  }
  if (out.length !== RANGE_COUNT) throw new Error("the name table is damaged");
  return out;
})();

export function allowedInName(codePoint: number): boolean {
  let lo = 0;
  let hi = NAME_RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = NAME_RANGES[mid] as readonly [number, number];
    if (codePoint < first) hi = mid - 1;
    else if (codePoint > last) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Whether `text` is a name: a string of 1..40 code points, every one allowed. */
export function isName(text: unknown): text is string {
  if (typeof text !== "string") return false;
  const points = [...text].map((ch) => ch.codePointAt(0) as number);
  return points.length >= 1 && points.length <= NAME_LENGTH && points.every(allowedInName);
}
