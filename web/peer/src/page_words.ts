/**
 * The phone page's words (issue 23): English in the source, marked `_("...")` (pybabel extracts them, babel.cfg),
 * in the language its link names (`?lang=de`: the host's language, app/web.py) from the compiled catalog that
 * /static/strings.js holds (made by `python -m p2pnimmt.web.strings`), as the TV page's table.js does. Text the
 * page's HTML marks `data-i18n` is translated once at load (translatePage).
 */
import { ROUND_TEXTS } from "./round_texts.js";

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

/** The protocol layer's texts that number a round of their own game, each the whole of a fault's detail or a void
 * round's reason, its groups the rounds: the reference's patterns (round_texts.ts, written from i18n.round_patterns,
 * made from protocol/round_texts.py: the words session.ts writes too). A text is matched whole, so that only these
 * words are renumbered, never a player's name in it ("round 2" is a name). */
const PATTERNS: readonly RegExp[] = ROUND_TEXTS.map((pattern) => new RegExp(`^(?:${pattern})$`, "ds"));

/** A text of the protocol layer (a fault's detail: English, as every record) that numbers the rounds of its own game
 * (`round 1`: the game's first), with the evening's numbers every screen shows (the page's status says
 * `seat.before + seat.round + 1`): a game that carries `before` rounds of the game it continues counts on from them
 * (the reference's i18n.evening_rounds). Only the protocol's own words are renumbered (PATTERNS), never a name;
 * any other text (a forfeit's "forfeited in round N", the evening's already) is left as it is. */
export function eveningRounds(text: string, before: number): string {
  if (!before) return text;
  for (const pattern of PATTERNS) {
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

/** What a host's refusal is about: "seat-key" (the seat key was missing or wrong, protocol.md 14), "seat-key-tries"
 * (too many wrong keys from this address, the host's or the phone relay's), "relay" (the phone relay refused to pass
 * the join on: its node holds no seat key to check it with; its "wrong seat key" and "too many wrong seat keys" are
 * the host's, checked for it at the relay: protocol.md 14, "A phone relay checks its pages' joins"), "link-secret"
 * (the link secret after the seat key in the page's link is not the host's: "The link secret"), else "other"
 * (too many from too many addresses, too: the host's words). By its text's beginning (protocol.md 14, "Words a page
 * reads", wire-words); each refusal of a join: protocol.md 14, vectors `join-refusals`. */
export function refusedFor(why: string): string {
  return why.startsWith("the seat key is missing") || why.startsWith("wrong seat key") ? "seat-key"
    : why.startsWith("too many wrong seat keys from this address") ? "seat-key-tries"
    : why.startsWith("wrong link secret") ? "link-secret"
    : why.startsWith("the phone relay") ? "relay" : "other";
}

/** The host's refusals with a field in them (net/lobby.py; the reference's i18n _PEER_TEXTS, their fields' patterns):
 * the page says them in its language as the reference's `said` does (since session 46: before, in English). */
const REFUSAL_TEMPLATES: readonly string[] = [
  "too many spectators ({n})",
  "the name {name} looks like {twin}'s, who has a seat here: choose another name (--name NAME, or the menu)",
];
let refusalPatterns: [RegExp, string][] | null = null;

/** A host's refusal of our join in the page's language (protocol.md 14, vectors `join-refusals`, `de`): its words
 * as they are in the catalog, else one of REFUSAL_TEMPLATES with its fields as the host wrote them. */
export function refusalSaid(why: string): string {
  if (_(why) !== why) return _(why);
  refusalPatterns ??= REFUSAL_TEMPLATES.map((template) => [new RegExp(`^${template.split(/(\{\w+\})/).map((part) =>
    /^\{\w+\}$/.test(part) ? `(?<${part.slice(1, -1)}>${part === "{n}" ? "\\d+" : ".+"})` : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("")}$`, "s"), template]);
  for (const [pattern, template] of refusalPatterns) {
    const found = pattern.exec(why);
    if (found?.groups) return fmt(_(template), found.groups);
  }
  return why;
}
