/**
 * A split commit (protocol.md 12): a seat signs two different PLAY_COMMITs for one turn, with one seq, one prev and
 * one state (they differ in `commit` alone), and shows each to other peers. It is the one equivocation that costs its signer its seat, not the others their
 * game: no node resolves the turn until every seat's PLAY_REVEAL names the commit set it holds, so the turn's
 * reveals decide, the same on every node. Every other proof of equivocation stays fatal.
 */
import { equal } from "./bytes.js";
import { DecodeError } from "./codec.js";
import { type Envelope, open } from "./envelope.js";
import { commitSet } from "./hashes.js";
import { bodyProblem } from "./messages.js";

/** The PLAY_COMMITs a proof of equivocation shows, if it may be a split commit; null if it is fatal. Two messages
 * with one seq: both PLAY_COMMITs of one round and turn on one state, with one prev. A fork on a held PLAY_COMMIT
 * (the next message names another one as its previous): that commit, whose other version may come, relayed. */
export function splitVersions(evidence: readonly Uint8Array[]): Envelope[] | null {
  if (evidence.length !== 2) return null;
  let first: Envelope;
  let second: Envelope;
  try {
    first = open(evidence[0] as Uint8Array);
    second = open(evidence[1] as Uint8Array);
  } catch (e) {
    if (e instanceof DecodeError) return null;
    throw e;
  }
  if (first.kind !== "PLAY_COMMIT" || !equal(first.sender, second.sender) || bodyProblem("PLAY_COMMIT", first.body)) return null;
  if (second.seq === first.seq + 1) return [first];
  if (second.seq !== first.seq || second.kind !== "PLAY_COMMIT" || !equal(second.prev, first.prev)) return null;
  if (bodyProblem("PLAY_COMMIT", second.body)) return null;
  const at = (e: Envelope): string => `${e.body.get("round") as number}|${e.body.get("turn") as number}`;
  if (at(first) !== at(second)) return null;
  // Another `state` is no split commit but a fatal proof: the turn's state check, before any reveal, would give the
  // versions different results, so what a node did there would depend on which one it took first (chaos seed 52).
  return equal(first.body.get("state") as Uint8Array, second.body.get("state") as Uint8Array) ? [first, second] : null;
}

/** Each commit set a reveal may name, with the version (hex hash) of each split seat in it. `seats`: the seats in
 * the set, in seat order; a seat with versions may be there with any of them, every other with its commit. */
export function commitSets(seats: readonly number[], commits: ReadonlyMap<number, Envelope>,
  versions: ReadonlyMap<number, ReadonlyMap<string, Envelope>>): { digest: Uint8Array; picked: Map<number, string> }[] {
  const split = seats.filter((s) => (versions.get(s)?.size ?? 0) > 1);
  let choices: Map<number, string>[] = [new Map()];
  for (const s of split) {
    const hashes = [...(versions.get(s) as ReadonlyMap<string, Envelope>).keys()].sort();
    choices = choices.flatMap((c) => hashes.map((h) => new Map([...c, [s, h]])));
  }
  return choices.map((picked) => ({
    picked,
    digest: commitSet(seats.map((s) => {
      const h = picked.get(s);
      return h === undefined ? (commits.get(s) as Envelope).hash : ((versions.get(s) as ReadonlyMap<string, Envelope>).get(h) as Envelope).hash;
    })),
  }));
}


