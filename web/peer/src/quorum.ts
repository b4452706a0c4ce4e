/**
 * Dropping several seats gone at once: the quorum rule of protocol.md 11.1 ("Several seats gone together", "Void,
 * with sets"), as the reference's p2pnimmt/protocol/quorum.py.
 *
 * One seat is dropped at a position once every other active seat voted it out there (the one-seat rule, in the
 * session). Two seats gone together can never be dropped that way (each drop needs the other's vote), so a *set* of
 * two or more seats is dropped together once every active seat outside the set voted out each of its seats, counting
 * of each voter only the first m = floor((n - 1) / 2) seats it named at that position (by `seq`). A voter holds back
 * its later messages until its votes are decided (`undecided`): every seat it named is dropped there, or every way of
 * dropping it is void (`setVoid`).
 */
import type { Envelope } from "./envelope.js";
import type { Pos } from "./steps.js";

/** What the quorum rule reads of a session (a view, so that the two do not import each other). */
export interface QuorumTable {
  /** Seats active at `at`. */
  activeAt(at: Pos): readonly number[];
  /** Seats active at `at` counting no drop made at `at` itself. */
  seatedBefore(at: Pos): number[];
  /** The seats some DROP at `at` names, in seat order. */
  targets(at: Pos): number[];
  /** `voter`'s DROP (kind "DROP") or KEEP at `at` naming `target`, if in its slot. */
  vote(kind: "DROP" | "KEEP", voter: number, at: Pos, target: number): Envelope | undefined;
  /** `seat` went on from `target`'s message at `at` (11.1). */
  wentOn(seat: number, target: number, at: Pos): boolean;
  isExpelled(seat: number): boolean;
  readonly n: number;
}

/** How many of a voter's DROPs at `at` count towards a set (0 or 1 below five seats: only the one-seat rule drops). */
export function mostNamed(t: QuorumTable, at: Pos): number {
  return Math.floor((t.seatedBefore(at).length - 1) / 2);
}

/** The seats `voter`'s DROPs at `at` name, in the order it signed them. */
export function names(t: QuorumTable, voter: number, at: Pos): number[] {
  const signed: [number, number][] = [];
  for (const target of t.targets(at)) {
    const env = t.vote("DROP", voter, at, target);
    if (env) signed.push([env.seq, target]);
  }
  return signed.sort((a, b) => a[0] - b[0]).map(([, target]) => target);
}

/** `seat` signed a DROP or a KEEP at `at`: it was there, alive, while the game waited. */
export function votesAt(t: QuorumTable, seat: number, at: Pos): boolean {
  for (const kind of ["DROP", "KEEP"] as const) {
    for (let target = 0; target < t.n; target++) if (t.vote(kind, seat, at, target)) return true;
  }
  return false;
}

/** The seats `voter` named at `at` that count towards dropping a set: the first `mostNamed`. */
export function counted(t: QuorumTable, voter: number, at: Pos): Set<number> {
  return new Set(names(t, voter, at).slice(0, mostNamed(t, at)));
}

/** The active seats at `at` whose DROP there names `target`. */
export function voters(t: QuorumTable, at: Pos, target: number): number[] {
  return t.activeAt(at).filter((v) => t.vote("DROP", v, at, target) !== undefined);
}

/** A seat active at `at` that did not vote to drop `target` there went on from its message: the one-seat drop can
 * never complete. (An expelled seat goes on by its messages up to the one that expelled it only; one that did not is
 * not needed: `excused`.) */
export function voteVoid(t: QuorumTable, at: Pos, target: number): boolean {
  const voted = new Set(voters(t, at, target));
  return t.activeAt(at).some((s) => s !== target && !voted.has(s) && t.wentOn(s, target, at));
}

/** `seat` is expelled and did not go on from `target`'s message at `at` by its messages up to the one that expelled
 * it: it is not needed to drop `target` there, alone or in a set (11.1, "An expelled seat"). */
export function excused(t: QuorumTable, seat: number, at: Pos, target: number): boolean {
  return t.isExpelled(seat) && !t.wentOn(seat, target, at);
}

/** The largest set of two or more seats active at `at` that every other active seat voted out there with its counted
 * names (empty if none), an expelled seat that did not go on excused (`excused`), one seat outside at least naming
 * them all: sets that qualify are closed under union, so seats some voter outside did not name are removed until
 * nothing changes. */
export function droppedTogether(t: QuorumTable, at: Pos): number[] {
  const targets = t.targets(at);
  if (targets.length < 2 || mostNamed(t, at) < 2) return [];
  const active = t.activeAt(at);
  let group = targets.filter((x) => active.includes(x));
  const known = new Map<number, Set<number>>();
  const countedOf = (v: number): Set<number> => {
    let got = known.get(v);
    if (!got) {
      got = counted(t, v, at);
      known.set(v, got);
    }
    return got;
  };
  while (group.length >= 2) {
    const rest = active.filter((s) => !group.includes(s));
    const kept = group.filter((d) => rest.every((v) => countedOf(v).has(d) || excused(t, v, at, d)));
    if (kept.length === group.length) return rest.some((v) => group.every((d) => countedOf(v).has(d))) ? group : [];
    group = kept;
  }
  return [];
}

/** `seat` will never have a counted DROP of `target` at `at`, and is needed: it went on from `target`'s message
 * there, or its counted names are all used. An expelled seat is needed only where it went on (`excused`). */
export function neverNames(t: QuorumTable, seat: number, at: Pos, target: number): boolean {
  if (counted(t, seat, at).has(target)) return false;
  if (t.isExpelled(seat)) return t.wentOn(seat, target, at);
  return t.wentOn(seat, target, at) || names(t, seat, at).length >= mostNamed(t, at);
}

/** The set can never be dropped together at `at`: a seat active there, outside it, never names one of its seats. */
export function setVoid(t: QuorumTable, at: Pos, group: readonly number[]): boolean {
  return t.activeAt(at).some((w) => !group.includes(w) && group.some((d) => neverNames(t, w, at, d)));
}

/** Every subset of two or more of `seats`, in the reference's order (by size, then itertools.combinations'). */
function subsets(seats: readonly number[]): number[][] {
  const out: number[][] = [];
  const pick = (size: number, from: number, chosen: number[]): void => {
    if (chosen.length === size) {
      out.push(chosen.slice());
      return;
    }
    for (let i = from; i < seats.length; i++) pick(size, i + 1, [...chosen, seats[i] as number]);
  };
  for (let size = 2; size <= seats.length; size++) pick(size, 0, []);
  return out;
}

/** `voter` named a seat at `at` that may yet be dropped there, alone or in a set: it holds back. */
export function undecided(t: QuorumTable, voter: number, at: Pos): boolean {
  const active = t.activeAt(at);
  const named = names(t, voter, at).filter((x) => active.includes(x));
  if (named.some((x) => !voteVoid(t, at, x))) return true;
  if (named.length < 2) return false;
  const mine = counted(t, voter, at);
  return subsets(named.filter((x) => mine.has(x))).some((group) => !setVoid(t, at, group));
}

/** `target` may yet be dropped at `at`, alone or in a set with other seats some voter of it named. */
export function mayDrop(t: QuorumTable, at: Pos, target: number): boolean {
  if (!voteVoid(t, at, target)) return true;
  const active = t.activeAt(at);
  for (const voter of voters(t, at, target)) {
    const mine = [...counted(t, voter, at)].filter((x) => active.includes(x));
    if (mine.includes(target) && subsets(mine).some((group) => group.includes(target) && !setVoid(t, at, group))) return true;
  }
  return false;
}
