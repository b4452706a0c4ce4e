/**
 * Whose link the phone page takes as its host's (session 42's red team): a relay other than the page's own names in
 * its hello the address the page dials for its host, and whatever answers there with the game's id was taken as the
 * host, and its rematch and new-start offers with it. After the START the page knows the host's key (the START's
 * signer: the game id is bound to it, protocol.md 8), and where it joined a host before, that host's key: a link that
 * answers as anyone else is no host of this page's (page.ts leaves that relay for the next). Before the START, on a
 * page's first join, it cannot know, and takes the relay's word (docs/phone.md, "What a phone player still trusts").
 */
import { equal, hex } from "./bytes.js";
import type { MsgMap } from "./codec.js";
import { fingerprint, gameIdFor, peerId } from "./identity.js";
import { _, fmt } from "./page_words.js";

/** What is wrong with the key that answered at the host's address `address` (`peer`, its peer id; `key`, its public
 * key), or null where it may be the host: `had` is the host's key the page joined before (a rematch: the finished
 * game's host), `signer` the peer id that signed the START of the game (null before it). */
/** The close code of a relay that leaves because its host left the lobby (web/relay.py: HOST_GONE; protocol.md 14,
 * "Words a page reads", wire-words). */
export const HOST_GONE = 4001;
/** The close code of a tunnel whose page came back on a new one with its port's claim (web/relay.py: TAKEN_BACK):
 * this page is open again elsewhere (a second tab or window of this browser, which holds the same key and seat). */
export const TAKEN_BACK = 4002;

/** How the host left, by a HOST_GONE close's reason: exactly `host gone: bye` is "bye" (it said `bye`), any other
 * "refused" (nothing listens where it was; protocol.md 14, "Words a page reads"). */
export function goneBy(reason: string): "bye" | "refused" {
  return reason === "host gone: bye" ? "bye" : "refused";
}

export function hostProblem(address: string, key: Uint8Array, had: Uint8Array | null, signer: Uint8Array | null): string | null {
  const peer = peerId(key);
  const words = { address, key: fingerprint(peer) };
  if (had !== null && !equal(key, had)) {
    return fmt(_("{address} answers as {key}, not as the host this page joined ({had})"), { ...words, had: fingerprint(peerId(had)) });
  }
  if (signer !== null && !equal(peer, signer)) {
    return fmt(_("{address} answers as {key}, not as the host that signed this game's START ({signer})"),
      { ...words, signer: fingerprint(signer) });
  }
  return null;
}

/** Whether the page's game moved on without it, to the one game that the relays `named` (relay url -> game id in hex,
 * each the latest hello of another game than ours, none of ours since) name: at least two of the `known` relays (the
 * one, where the page knows one) named it, and no other. A new start or a rematch whose offer came while the page's
 * tunnel was down (review of session 42: the page refused every such relay at once, for ever); one relay alone
 * cannot pull the page away from its game. */
export function movedOn(known: readonly string[], named: ReadonlyMap<string, string>): boolean {
  const games = known.flatMap((relay) => named.get(relay) ?? []);
  return new Set(games).size === 1 && games.length >= Math.min(2, known.length);
}

/** A START's carry refused by a seat that follows no new start (the reference's app.anew.carries_nothing). */
export function carriesNothing(body: MsgMap): string | null {
  const carry = body.get("carry");
  return carry instanceof Map
    ? `it carries the scores of game ${hex(carry.get("game") as Uint8Array)}, and this node continues no game it played`
    : null;
}

/** The game a page played, as the START of a game it follows from it is checked against (followProblem). */
export interface Played {
  readonly game: Uint8Array;
  /** Its START's `previous` (null: none). */
  readonly previous: Uint8Array | null;
  /** Its host's public key (null: the page never learnt it). */
  readonly host: Uint8Array | null;
  /** Its end is in the page's record. */
  readonly over: boolean;
  /** Why a new start's START does not carry the page's own record of it (Session.carryProblem), or null. */
  readonly carry: (body: MsgMap) => string | null;
}

/** Why the START of `game`, a game the page follows from the one it `played` on a relay's word alone (two relays
 * named it, page_host.movedOn, or the relay of a finished game moved on: no offer from the host), is not that game's
 * next one (protocol.md 14, "Rematch", "A new start"), or null. Its host must be the host the page played under (the
 * game id binds the START's signer, protocol.md 8), and its `previous` the game played (a rematch; its carry none), or,
 * while the page's record of that game has no end, what that game's START carried (a new start: its carry the page's
 * own record, as a seat that takes the host's new-start offer checks it). Red team, session 44: two relays colluding
 * with a stranger led the page into the stranger's game, its seat in its own game voted out. */
export function followProblem(body: MsgMap, game: Uint8Array, played: Played): string | null {
  const salt = body.get("salt");
  if (played.host !== null && !(salt instanceof Uint8Array && equal(gameIdFor(played.host, salt), game))) {
    return `its host is not ${fingerprint(peerId(played.host))}, the host of game ${hex(played.game)} this page played`;
  }
  const said = body.get("previous");
  const previous = said instanceof Uint8Array ? said : null;
  if (previous !== null && equal(previous, played.game)) return carriesNothing(body); // a rematch of it
  const same = previous === null ? played.previous === null : played.previous !== null && equal(previous, played.previous);
  if (!played.over && same) return played.carry(body); // a new start of it
  return `its previous game is ${previous === null ? "none" : hex(previous)}, not game ${hex(played.game)} this page played`;
}
