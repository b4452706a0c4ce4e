/**
 * Where a member listens, in its own signed word (protocol.md 14, "Where a member listens"; red team, session 40;
 * the reference's p2pnimmt/net/where.py): [serial, port, addresses, signature], the Ed25519 signature of the
 * member's key over whereBytes, bound to the game id. The host forwards a member's record in its lobby frames but
 * cannot forge it; a page dials a player whose record it holds at the record's port, never at a port the host's word
 * alone gives, and keeps the record whatever later lobby frames say.
 */
import type { Encodable, Value } from "./codec.js";
import { ascii, concat, equal, hex, u16, u64 } from "./bytes.js";
import { peerId, verify, type Identity } from "./identity.js";

export const DOMAIN = "p2pnimmt/where/v1";
export const MAX_ADDRESSES = 8;
export const MAX_RECORDS = 20;
/** Members a page reads of a lobby frame: the reference's bound (p2pnimmt/net/lobby.py: MAX_SPECTATORS + 10; a lobby
 * frame lists at most 10 players and 32 spectators, protocol.md 14, "Bounds"). */
export const MAX_LOBBY_MEMBERS = 32 + 10;
/** Signatures a book remembers it found false (then it forgets them all and starts again). */
const MAX_REFUSED = 256;

/** Signature checks whereFrom made (a count the tests read: a record a book would refuse is never checked). */
export let whereChecks = 0;

export interface Where {
  readonly key: Uint8Array;
  readonly serial: number;
  readonly port: number;
  readonly addresses: readonly string[];
  readonly signature: Uint8Array;
}

/** What a member signs: the domain, the game id, its key, the serial (8 bytes), the port (2), the number of
 * addresses (1), each address as its length (1) and its ASCII text. */
export function whereBytes(game: Uint8Array, key: Uint8Array, serial: number, port: number, addresses: readonly string[]): Uint8Array {
  const parts = [ascii(DOMAIN), game, key, u64(serial), u16(port), Uint8Array.of(addresses.length)];
  for (const address of addresses) parts.push(Uint8Array.of(address.length), ascii(address));
  return concat(...parts);
}

export function signWhere(identity: Identity, game: Uint8Array, port: number, addresses: readonly string[], serial = Date.now()): Where {
  const signature = identity.sign(whereBytes(game, identity.publicKey, serial, port, addresses));
  return { key: identity.publicKey, serial, port, addresses: [...addresses], signature };
}

/** As a join, a lobby member and a `where` frame carry it. */
export function record(where: Where): Encodable {
  return [where.serial, where.port, [...where.addresses], where.signature];
}

/** An IP address as text: a dotted IPv4 one (no leading zeros) or an IPv6 one (as the reference's ipaddress). */
export function isIp(text: string): boolean {
  if (text.length > 45 || !/^[\x21-\x7e]+$/.test(text)) return false;
  if (/^\d+(\.\d+){3}$/.test(text)) return text.split(".").every((p) => p === String(Number(p)) && Number(p) <= 255);
  if (!/^[0-9A-Fa-f:.]+$/.test(text) || !text.includes(":")) return false;
  try {
    new URL(`ws://[${text}]/`);
    return true;
  } catch {
    return false;
  }
}

/** `key`'s record for `game` as it came, checked (its form, its signature); null for anything else. */
export function whereFrom(value: Value | undefined, key: Value | undefined, game: Uint8Array): Where | null {
  if (!Array.isArray(value) || value.length !== 4 || !(key instanceof Uint8Array) || key.length !== 32) return null;
  const [serial, port, addresses, signature] = value;
  if (typeof serial !== "number" || !Number.isSafeInteger(serial) || serial < 0) return null;
  if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  if (!Array.isArray(addresses) || addresses.length > MAX_ADDRESSES) return null;
  if (!addresses.every((a) => typeof a === "string" && isIp(a))) return null;
  if (!(signature instanceof Uint8Array) || signature.length !== 64) return null;
  const texts = addresses as string[];
  whereChecks++;
  if (!verify(key, signature, whereBytes(game, key, serial, port, texts))) return null;
  return { key, serial, port, addresses: texts, signature };
}

/** What a refused record is remembered by: its key and every field. By its signature alone (session 40), a copy of
 * seat Y's true record under another key, or with a field changed, in a START, a lobby or a `where` frame, had Y's own
 * record refused after it for the rest of the game (review, session 41). Null: not a record's form (not remembered). */
function refusalId(key: Uint8Array, value: readonly Value[]): string | null {
  const [serial, port, addresses, signature] = value;
  if (typeof serial !== "number" || typeof port !== "number" || !Array.isArray(addresses)
    || !addresses.every((a) => typeof a === "string") || !(signature instanceof Uint8Array)) return null;
  return `${hex(key)} ${serial} ${port} ${JSON.stringify(addresses)} ${hex(signature)}`;
}

/** A page's records of where the players are (by peer id in hex): the latest (highest serial) of each. */
export class Book {
  readonly records = new Map<string, Where>();

  /** Keep `where` if it is newer than what we hold for its key and `player` says it is one: true if it is news. */
  take(where: Where, player: (peer: Uint8Array) => boolean): boolean {
    const peer = peerId(where.key);
    const key = hex(peer);
    const held = this.records.get(key);
    if (!player(peer) || (held !== undefined && held.serial >= where.serial)) return false;
    this.records.set(key, where);
    if (this.records.size > MAX_RECORDS) {
      for (const [k, w] of [...this.records]) if (!player(peerId(w.key))) this.records.delete(k);
    }
    return true;
  }

  of(peer: Uint8Array): Where | undefined {
    return this.records.get(hex(peer));
  }

  /** Records found not to be their key's signed word, by key and every field (refusalId): not checked again. */
  private readonly refused = new Set<string>();

  /** `key`'s record as it came, checked only where it could be news (review, session 40: each lobby and `where` frame
   * had every record checked, one Ed25519 verification each, however often it came): "stale" where we hold a record
   * of that key with a serial as high or higher (take would refuse it), its signature unchecked; null where it is not
   * the key's signed word (whereFrom; one found so is remembered, and not checked again). */
  check(value: Value | undefined, key: Value | undefined, game: Uint8Array): Where | "stale" | null {
    if (!(key instanceof Uint8Array) || key.length !== 32 || !Array.isArray(value) || value.length !== 4) return null;
    const [serial, , , signature] = value;
    const held = this.records.get(hex(peerId(key)));
    if (held !== undefined && typeof serial === "number" && Number.isSafeInteger(serial) && held.serial >= serial) return "stale";
    const id = refusalId(key, value);
    if (id !== null && this.refused.has(id)) return null;
    const where = whereFrom(value, key, game);
    if (where === null && id !== null && signature instanceof Uint8Array && signature.length === 64) {
      if (this.refused.size >= MAX_REFUSED) this.refused.clear();
      this.refused.add(id);
    }
    return where;
  }

  /** A `where` frame from the link of peer `from` (protocol.md 14: [key, record] entries, no more than the START has
   * `seats`): the records in it that are news, each checked; null (the whole frame ignored) where `from` is no seat
   * of the START, or at its first entry that is not an entry, names a key twice (session 42), or is not its key's
   * signed record (review, session 40: any lobby player's frame counted, and its good entries before a bad one). Our own key's entry (`me`) is passed over
   * unchecked. */
  frame(payload: Value, from: Uint8Array, seats: readonly Uint8Array[], game: Uint8Array, me: Uint8Array,
    own: Where | null = null): Where[] | null {
    if (!seats.some((k) => equal(peerId(k), from))) return null;
    if (!Array.isArray(payload) || payload.length > seats.length) return null;
    // a key's latest record only, seen before any is checked: ten of one key, each newer, were ten checks a frame
    // (red team, session 42)
    const keys = payload.map((entry) => (Array.isArray(entry) && entry[0] instanceof Uint8Array ? hex(entry[0]) : ""));
    if (new Set(keys).size < keys.length) return null;
    const found: Where[] = [];
    for (const entry of payload) {
      if (!(Array.isArray(entry) && entry.length === 2 && entry[0] instanceof Uint8Array)) return null;
      if (equal(entry[0], me)) {
        if (own !== null) this.ours(entry[1], own, game);
        continue;
      }
      const where = this.check(entry[1], entry[0], game);
      if (where === null) return null;
      if (where !== "stale") found.push(where);
    }
    return found;
  }

  /** The highest serial of a record of ours a seat holds, as new as the one we sign now or newer (`own`), checked: we
   * signed it before the wall clock stepped back (red team, session 43: the seats kept it as the newer, at the port of
   * its relay then, and the page's records of after were refused as stale); the page signs its next past it. */
  ownPast = 0;

  private ours(value: Value | undefined, own: Where, game: Uint8Array): void {
    if (!Array.isArray(value) || value.length !== 4) return;
    const [serial, , , signature] = value;
    if (typeof serial !== "number" || serial < own.serial || serial <= this.ownPast) return;
    if (signature instanceof Uint8Array && equal(signature, own.signature)) return; // ours as we sign it now
    if (whereFrom(value, own.key, game) !== null) this.ownPast = serial;
  }

  /** The records of a lobby frame's `members` a page reads (the first MAX_LOBBY_MEMBERS; a player's own signed
   * word, checked where it could be news), but ours (`me`). */
  lobby(members: readonly Value[], game: Uint8Array, me: Uint8Array): Where[] {
    const found: Where[] = [];
    for (const m of members.slice(0, MAX_LOBBY_MEMBERS)) {
      if (!(m instanceof Map) || m.get("role") !== "player") continue;
      const key = m.get("key");
      if (key instanceof Uint8Array && equal(key, me)) continue;
      const where = this.check(m.get("where"), key, game);
      if (where !== null && where !== "stale") found.push(where);
    }
    return found;
  }
}
