/**
 * A probe for pytest's cross-implementation check of the drop vote's count of the absent (tests/peer/
 * test_waiting_agrees.py; protocol.md 11.1, net/waiting.py: few_enough, PageSeat.fewEnoughGone): reads one JSON
 * request on stdin, {"cases": [{"game": hex, "wires": [hex, ...], "absent": [[seat, ...], ...]}]}, gives each case's
 * messages, in order, to a page's seat without a seat at the table (a spectator's view: it signs nothing), and
 * prints for each case the seats the game waits on, for each absent set, whether they can be voted out without
 * one of them, and the seats another seat voted to drop where the game waits (PageSeat.votedOut: a vote the page
 * joins at once against a seat it sees gone, never against one it sees playing; net/waiting.py: voted_out_unseen),
 * and for each seat the seats that went on from its message where the game waits on it without passing it on
 * (Seat.neverPassedOn: voted out with it; net/waiting.py: never_passed_on).
 */
import { readFileSync } from "node:fs";
import { fromHex } from "../src/bytes.js";
import { Identity } from "../src/identity.js";
import { PageSeat } from "../src/page_seat.js";

interface Case {
  game: string;
  wires: string[];
  absent: number[][];
}

const request = JSON.parse(readFileSync(0, "utf8")) as { cases: Case[] };
const answers = request.cases.map(({ game, wires, absent }) => {
  const watcher = new PageSeat(new Identity(new Uint8Array(32).fill(7)), (n) => new Uint8Array(n), fromHex(game));
  for (const wire of wires) watcher.deliver(fromHex(wire));
  const voted = watcher.peers.map((_, x) => x).filter((x) => watcher.votedOut(x));
  const passed = watcher.peers.map((_, x) => watcher.neverPassedOn(x));
  return { phase: watcher.phase, waiting: watcher.waitingFor(), few: absent.map((seats) => watcher.fewEnoughGone(seats)),
    voted, passed };
});
process.stdout.write(JSON.stringify(answers));
