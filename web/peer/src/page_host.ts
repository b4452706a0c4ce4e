/**
 * Whose link the phone page takes as its host's (session 42's red team): a relay other than the page's own names in
 * its hello the address the page dials for its host, and whatever answers there with the game's id was taken as the
 * host, and its rematch and new-start offers with it. After the START the page knows the host's key (the START's
 * signer: the game id is bound to it, protocol.md 8), and where it joined a host before, that host's key: a link that
 * answers as anyone else is no host of this page's (page.ts leaves that relay for the next). Before the START, on a
 * page's first join, it cannot know, and takes the relay's word (docs/phone.md, "What a phone player still trusts").
 */
import { equal } from "./bytes.js";
import { fingerprint, peerId } from "./identity.js";
import { _, fmt } from "./page_words.js";

/** What is wrong with the key that answered at the host's address `address` (`peer`, its peer id; `key`, its public
 * key), or null where it may be the host: `had` is the host's key the page joined before (a rematch: the finished
 * game's host), `signer` the peer id that signed the START of the game (null before it). */
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
