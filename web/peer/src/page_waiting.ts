/**
 * While the game waits on someone, a page's node does what a Python node does (p2pnimmt/net/waiting.py; protocol.md
 * 11.1 and 11.2): it asks its peers for what it lacks (each relays only part of the traffic, so a broken link can
 * leave a gap), and after the drop time votes to drop a seat that is absent. Only an absent seat is dropped: one
 * with no link to us whose messages stopped coming; or a linked one whose node did not move when its clock ran out,
 * or when every other seat asked for the stand-in. A seat gone while the game waits on another is voted out too
 * (it would have to vote) where the seats with no link to us can be voted out without one of them
 * (PageSeat.fewEnoughGone), and one that said `bye` before the end is voted out at once, as is one with no link to
 * us that another seat voted out (a vote alone is a claim: never joined against a seat we see playing). The drop time is the one of
 * the node that serves the page (its --drop-after, in the relay's hello).
 */
import type { PageNode } from "./page_node.js";
import { _, fmt } from "./page_words.js";

export const PULL_EVERY = 500;
/** How long a wait on a seat whose message another seat went on from, never passing it on, lasts before the page
 * says why, where its drop time is 0 (it votes nobody out by its timers then): net/waiting.py's TELL_AFTER. */
export const TELL_AFTER = 10_000;

/** Watch `node`'s waits every PULL_EVERY ms; votes after `dropAfter` ms (0: never). Returns the stop. */
export function watchWaiting(node: PageNode, dropAfter: number): () => void {
  let since = new Map<string, number>(); // waited on, at this position, since
  let gone = new Map<string, number>(); // waited on and stalled since
  let unlinked = new Map<number, number>(); // any other seat with no link to us, since
  let heard = new Map<number, number>(); // each seat's messages we hold, at the last look
  // a seat w that went on from the message of x, gone from our view, where we wait on it, and never passed it on
  // (PageSeat.neverPassedOn), since we saw that: the message arriving ends it (we no longer wait there), nothing else
  let passed = new Map<string, { x: number; w: number; since: number }>();
  const told = new Set<string>(); // the waits whose reason we said (net/waiting.py: kept_back)
  const look = (): void => {
    const seat = node.seat;
    if (seat.start === null || node.over()) return;
    const now = performance.now(); // monotonic: a wall clock set back or forward (NTP, a wake) moves no timer
    const me = seat.seat;
    const at = seat.waitingAt();
    const waiting = new Map(seat.waitingFor().map((s) => [`${at}|${s}`, s]));
    since = new Map([...waiting.keys()].map((key) => [key, since.get(key) ?? now]));
    if ([...since.values()].some((start) => now - start >= PULL_EVERY)) node.pull();
    const clock = seat.settings?.clock ?? null;
    // A seat whose reveal names a commit set we cannot build is stalled too: it signed its reveal and will not move
    // again in this turn (protocol.md 11, "A reveal naming another commit set").
    const lying = new Set(seat.disagreeing(seat.round, seat.turn));
    const stalled = [...waiting].filter(([key, s]) => !node.linked(seat.peers[s] as Uint8Array) || lying.has(s)
      || (clock !== null && now - (since.get(key) as number) >= clock * 1000)
      || (seat.phase === "turn" && seat.standInAskedFor(s)));
    const counts = new Map(seat.peers.map((peer, s) => [s, seat.heard(peer)]));
    const moved = new Set([...counts].filter(([s, count]) => heard.get(s) !== count).map(([s]) => s));
    heard = counts;
    gone = new Map(stalled.map(([key, s]) => [key,
      moved.has(s) && !node.linked(seat.peers[s] as Uint8Array) ? now : gone.get(key) ?? now]));
    unlinked = new Map(seat.peers.flatMap((peer, s) => (s === me || node.linked(peer) ? []
      : [[s, moved.has(s) ? now : unlinked.get(s) ?? now] as [number, number]])));
    passed = new Map([...waiting].flatMap(([key, x]) => (node.linked(seat.peers[x] as Uint8Array) || moved.has(x) ? []
      : seat.neverPassedOn(x).map((w) => [`${key}|${w}`, { x, w, since: passed.get(`${key}|${w}`)?.since ?? now }] as const))));
    if (seat.phase === "starting" || me === null) return;
    // 0: this node never starts a vote by its timers; it still joins another's vote on a seat gone from its own view
    const timed = dropAfter > 0;
    const left = (s: number): boolean => node.left(seat.peers[s] as Uint8Array);
    const vote = (s: number, why: string): void => {
      try {
        node.send(seat.voteOut(s));
        node.note(fmt(_("voted to drop {name}: {why}"), { name: seat.names[s] as string, why }));
      } catch {
        // not now (the game moved on, or we voted already): as the reference's LocalError
      }
    };
    // The seats gone (no link to us): a vote naming one of them is cast only where they can be voted out without one
    // of them (PageSeat.fewEnoughGone); else it would count only once one came back and voted the others out, and
    // would then drop that seat for coming back (net/waiting.py: few_enough). Every seat with no link counts, however
    // short its silence: two seats that went together reach the drop time at different moments, and a vote against
    // the first in between would drop it once it came back, or stall the game.
    const named = new Set(waiting.values());
    const absent = [...unlinked.keys()];
    const canVoteOutAbsent = seat.fewEnoughGone(absent);
    if (timed && waiting.size && canVoteOutAbsent) { // a seat gone while the game waits on another would have to vote
      for (const [s, start] of unlinked) {
        if (!named.has(s) && (now - start >= dropAfter || left(s))) vote(s, _("no link to it while the game waits on others"));
      }
    }
    for (const [key, start] of gone) {
      const s = waiting.get(key) as number;
      const linked = node.linked(seat.peers[s] as Uint8Array);
      // Another seat's vote against s is joined at once where we see s gone ourselves (no link, nothing new from
      // it), never against a seat we see playing: a lone vote is a claim, not evidence (protocol.md 11.1).
      const unseen = !linked && !moved.has(s) && seat.votedOut(s);
      if ((!(timed && (now - start >= dropAfter || left(s))) && !unseen) || !(canVoteOutAbsent || linked)) continue;
      vote(s, !linked ? _("no link to it")
        : lying.has(s) ? _("its reveal names a commit set this node does not hold")
        : clock !== null ? _("its node did not move when its clock ran out")
          : _("its node did not move when everyone asked for the stand-in"));
    }
    // A seat that says it holds the message of one gone (a KEEP, or a message for a later position) and never passed
    // it on is voted out with it by the quorum rule (protocol.md 11.1, the node's policy): a vote our timer starts, so
    // never with a drop time of 0; only where the two can be voted out without one of them (five seats and more).
    // Below, the page says why the table waits, so that the people at it may start a new game without that seat.
    for (const [key, { x, w, since }] of passed) {
      const name = seat.names[x] as string;
      if (now - since >= (timed ? dropAfter : TELL_AFTER) && !told.has(key)) {
        told.add(key);
        const names = seat.neverPassedOn(x).map((v) => seat.names[v] as string).join(", ");
        node.note(fmt(_("waiting for {name}: {names} says it has {name}'s move but never passed it on (start a new game without {names} if it stays so)"),
          { name, names }));
      }
      if (timed && now - since >= dropAfter && seat.fewEnoughGone([...absent, x, w])) {
        vote(x, _("no link to it")); // the seat gone first: a voter's first DROPs count for a set
        vote(w, fmt(_("it went on from {name}'s move and never passed it on"), { name }));
      }
    }
  };
  const timer = setInterval(() => {
    try {
      look();
    } catch (error) {
      node.note(fmt(_("waiting: {why}"), { why: (error as Error).message }));
    }
  }, PULL_EVERY);
  return () => clearInterval(timer);
}
