/**
 * Where a member listens, in its own signed word (protocol.md 14, "Where a member listens"; red team, session 40;
 * the reference's p2pnimmt/net/where.py): [serial, port, addresses, signature], the Ed25519 signature of the
 * member's key over whereBytes, bound to the game id. The host forwards a member's record in its lobby frames but
 * cannot forge it; a page dials a player whose record it holds at the record's port, never at a port the host's word
 * alone gives, and keeps the record whatever later lobby frames say.
 */
import type { Encodable, Value } from "./codec.js";
import { ascii, concat, hex, u16, u64 } from "./bytes.js";
import { peerId, verify, type Identity } from "./identity.js";

export const DOMAIN = "p2pnimmt/where/v1";
export const MAX_ADDRESSES = 8;
export const MAX_RECORDS = 20;

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
    new URL(`http://[${text}]/`);
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
  if (!verify(key, signature, whereBytes(game, key, serial, port, texts))) return null;
  return { key, serial, port, addresses: texts, signature };
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
}
