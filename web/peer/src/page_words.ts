/**
 * The phone page's words (issue 23): English in the source, marked `_("...")` (pybabel extracts them, babel.cfg),
 * in the language its link names (`?lang=de`: the host's language, app/web.py) from the compiled catalog that
 * /static/strings.js holds (made by `python -m p2pnimmt.web.strings`), as the TV page's table.js does. Text the
 * page's HTML marks `data-i18n` is translated once at load (translatePage).
 */
type Strings = Record<string, string | string[]>;

const all: Record<string, Strings> =
  (globalThis as { P2PNIMMT_STRINGS?: Record<string, Strings> }).P2PNIMMT_STRINGS ?? {};
const wanted = typeof location === "undefined" ? "en" : new URLSearchParams(location.search).get("lang") ?? "en";
/** The page's language: the link's, if the catalog has it; else English. */
export const lang: string = all[wanted] !== undefined ? wanted : "en";
const strings: Strings = all[lang] ?? {};

/** `text` in the page's language. */
export function _(text: string): string {
  const found = strings[text];
  return typeof found === "string" ? found : text;
}

/** The form of `one`/`many` for `n` in the page's language (German, like English, has two). */
export function ngettext(one: string, many: string, n: number): string {
  const found = strings[one];
  if (Array.isArray(found)) return (n === 1 ? found[0] : found[1]) ?? (n === 1 ? one : many);
  return n === 1 ? one : many;
}

/** `text` with its `{field}`s filled (after translation: the fields stay where the language puts them). */
export function fmt(text: string, fields: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, key: string) => (key in fields ? String(fields[key]) : whole));
}

/** The HTML's marked text (data-i18n) in the page's language, and <html lang>. */
export function translatePage(): void {
  document.documentElement.lang = lang;
  for (const element of Array.from(document.querySelectorAll("[data-i18n]"))) {
    const text = element.textContent?.trim() ?? "";
    if (text) element.textContent = _(text);
  }
}

/** The protocol layer's texts that number a round of their own game (the reference's i18n._ROUND_TEXTS, the same
 * words session.ts writes), each the whole of a fault's detail or a void round's reason, its groups the rounds. A
 * text is matched whole, so that only these words are renumbered, never a player's name in it ("round 2" is a
 * name): the seat it blames stands before the words (in the audit's, after them), the greedy start takes the longest,
 * and each text's own words are longer than a name can be (40). What the session adds after a detail ("; it loses
 * its seat ...") may follow. */
const AFTER = String.raw`(?:; [\s\S]*)?`;
const ROUND_TEXTS: readonly RegExp[] = [
  String.raw`[\s\S]* sent [A-Z_]+ for round (\d+), turn \d+, (?:after|skipping ahead of) its message for round (\d+), turn \d+`
    + AFTER,
  String.raw`[\s\S]* sent (?:DROP|KEEP) naming seat \d+ at round (\d+), step \d+(?:, place \d+)?, after (?:it went on from that `
    + String.raw`seat's message there|its own DROP of that seat there)` + AFTER,
  String.raw`[\s\S]* sent pick \d+ of round (\d+), which is seat \d+'s` + AFTER,
  String.raw`[\s\S]* chose a row for turn \d+ of round (\d+), which is over` + AFTER,
  String.raw`[\s\S]*'s seed reveal for round (\d+) does not match its commitment` + AFTER,
  String.raw`[\s\S]* committed on a different game state \(round (\d+), turn \d+\)` + AFTER,
  String.raw`[\s\S]*: its shuffle for round (\d+): shuffle output[ :][\s\S]*`,
  String.raw`[\s\S]*: its unlock for round (\d+): seat \d+'s unlock[\s\S]*`,
  String.raw`the audit of round (\d+) found [\s\S]*`,
].map((pattern) => new RegExp(`^(?:${pattern})$`, "d"));

/** A text of the protocol layer (a fault's detail: English, as every record) that numbers the rounds of its own game
 * (`round 1`: the game's first), with the evening's numbers every screen shows (the page's status says
 * `seat.before + seat.round + 1`): a game that carries `before` rounds of the game it continues counts on from them
 * (the reference's i18n.evening_rounds). Only the protocol's own words are renumbered (ROUND_TEXTS), never a name;
 * any other text (a forfeit's "forfeited in round N", the evening's already) is left as it is. */
export function eveningRounds(text: string, before: number): string {
  if (!before) return text;
  for (const pattern of ROUND_TEXTS) {
    const match = pattern.exec(text);
    if (match?.indices === undefined) continue;
    let said = "";
    let at = 0;
    for (let group = 1; group < match.length; group++) {
      const span = match.indices[group];
      if (span === undefined) continue;
      said += text.slice(at, span[0]) + String(Number(match[group]) + before);
      at = span[1];
    }
    return said + text.slice(at);
  }
  return text;
}
