/**
 * Who is in a lobby, as a page reads the host's lobby frame (p2pnimmt/net/members.py: member_from, and
 * net/lobby.py: lobby_members): of the first MAX_LOBBY_MEMBERS entries, those that are members (protocol.md 14: a
 * malformed member is left out), the later of two with one key in the earlier's place (vectors: `lobby-members`).
 */
import type { MsgMap, Value } from "./codec.js";
import { hex } from "./bytes.js";
import { peerId } from "./identity.js";
import { MAX_PLAYERS, MIN_PLAYERS } from "./cards.js";
import { isName } from "./names.js";
import { isIp, MAX_LOBBY_MEMBERS } from "./where.js";

/** Addresses a member may give besides the one the host saw (protocol.md 14, `join`; net/members.py). */
export const MAX_ADDRESSES = 8;

/** A member of the lobby, as the host's lobby frame says. */
export interface LobbyMember {
  readonly key: Uint8Array;
  /** Its peer id (of `key`, once per lobby frame). */
  readonly peer: Uint8Array;
  readonly name: string;
  readonly role: string;
  readonly bot: boolean;
  readonly host: string;
  readonly port: number;
  readonly addresses: readonly string[];
  /** Where its node relays phone pages: [address, port, token] (protocol.md 14, since issue 26), or null. */
  readonly relay: readonly [string, number, string] | null;
}

/** A lobby frame's members as a page keeps them, and the entries they came from (each player's `where` is read
 * from those alone). */
export interface LobbyRead {
  readonly members: LobbyMember[];
  readonly entries: MsgMap[];
}

/** A lobby frame's `seats` as a page takes it: an integer MIN_PLAYERS..MAX_PLAYERS, else the seats it had (net/lobby.py:
 * lobby_seats; protocol.md 14, vectors `lobby-members`, `seats`; before session 46 any number but a float). */
export function lobbySeats(value: Value | undefined, had: number): number {
  return typeof value === "number" && Number.isInteger(value) && value >= MIN_PLAYERS && value <= MAX_PLAYERS ? value : had;
}

export function lobbyMembers(value: readonly Value[]): LobbyRead {
  const entries: MsgMap[] = [];
  const byPeer = new Map<string, LobbyMember>();
  for (const entry of value.slice(0, MAX_LOBBY_MEMBERS)) {
    const member = memberOf(entry);
    if (member === null) continue;
    entries.push(entry as MsgMap);
    byPeer.set(hex(member.peer), member);
  }
  return { members: [...byPeer.values()], entries };
}

const isPort = (port: Value | undefined): port is number =>
  typeof port === "number" && Number.isInteger(port) && port >= 1 && port <= 65535;

/** A member of the lobby frame, or null where `m` is none (net/members.py: member_from). */
export function memberOf(m: Value): LobbyMember | null {
  if (!(m instanceof Map)) return null;
  if (!["key", "name", "role", "bot", "host", "port"].every((k) => m.has(k))) return null;
  const [key, name, role, bot, host, port] = ["key", "name", "role", "bot", "host", "port"].map((k) => m.get(k));
  const addresses = m.has("addresses") ? m.get("addresses") : []; // since issue 27; an older lobby's member has none
  if (!(key instanceof Uint8Array && key.length === 32 && isName(name) && (role === "player" || role === "spectator")
    && typeof bot === "boolean" && (host === "" || (typeof host === "string" && isIp(host))) && isPort(port)
    && Array.isArray(addresses) && addresses.length <= MAX_ADDRESSES
    && addresses.every((a) => typeof a === "string" && a !== "" && isIp(a)))) return null;
  return { key, peer: peerId(key), name, role, bot, host, port, addresses: addresses as string[], relay: relayOf(m.get("relay")) };
}

/** A member's `relay`, [IP address, port, token], or null where it has none (or one not of that form). */
function relayOf(value: Value | undefined): readonly [string, number, string] | null {
  if (!Array.isArray(value) || value.length !== 3) return null;
  const [address, port, token] = value;
  if (typeof address !== "string" || !isIp(address) || !isPort(port)) return null;
  if (typeof token !== "string" || !/^[A-Za-z0-9_-]{8,64}$/.test(token)) return null;
  return [address, port, token];
}
