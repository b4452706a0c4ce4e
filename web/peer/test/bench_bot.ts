/**
 * What the CPU benchmarks of TypeScript nodes share (test/bench.ts: the nodes in one process; test/bench_apart.ts:
 * each node in its own): the bot, the crypto backend with its calls counted, and the CPU of the process's threads
 * one by one (Linux's per-thread `schedstat`: nanoseconds run, exact for the calling thread, where
 * `process.cpuUsage` brings V8's worker threads' CPU into the total only at their scheduler ticks).
 */
import { openSync, readdirSync, readFileSync, readSync } from "node:fs";
import * as crypto from "node:crypto";
import { type Card } from "../src/cards.js";
import * as bytes from "../src/bytes.js";
import * as cli from "../src/cli.js";
import { nodeEd25519, nodeScalarMult, nodeSha256, nodeSha512, nodeSodium } from "../src/cli.js";
import { useSha256, useSha512 } from "../src/hash.js";
import { type Ed25519, portableEd25519, useEd25519 } from "../src/identity.js";
import * as group from "../src/sealed_group.js";
import { nobleX, type ScalarMult, useScalarMult } from "../src/sealed_group.js";
import { Seat } from "../src/seat.js";
import { cmp, commitStep } from "../src/steps.js";

/** A node whose bot plays its lowest card and takes row 0. */
export class BotSeat extends Seat {
  /** Cards played from a hidden hand (sealed): `${round}|${card}`. */
  readonly played = new Set<string>();

  /** The move owed now: a card to commit, a row to choose, or nothing. */
  due(): { card: Card } | { row: number } | null {
    const seat = this.seat;
    const at = this.waitsOn();
    if (seat === null || this.phase !== "turn" || !at || !this.missing(at).includes(seat)) return null;
    if (cmp(at, [this.round, commitStep(this.turn), 0]) === 0) {
      const open = this.hands[seat];
      const cards = open ? [...open] : [...(this.hiddenHand(seat)?.keys() ?? [])].filter((c) => !this.played.has(`${this.round}|${c}`));
      return { card: Math.min(...cards) };
    }
    if (cmp(at, [this.round, commitStep(this.turn) + 2, 0]) === 0) return { row: 0 };
    return null;
  }
}

/** The signatures made and checked and the X25519 computed (by this process's nodes). */
export const calls = { sign: 0, verify: 0, x: 0 };

/** Ed25519, X25519 and the hashes as `node peer.js verify` runs them (`native`: libsodium then OpenSSL), or the
 * portable code a browser runs; each call counted in `calls`. The backend's name, and the two to time. */
export function useBackend(native: boolean): { backend: string; ed: Ed25519; mult: ScalarMult } {
  const sodium = native ? nodeSodium() : null;
  const backend = native ? (sodium ? "libsodium, then OpenSSL" : "OpenSSL") : "portable";
  const ed: Ed25519 = native ? nodeEd25519(crypto as unknown as Parameters<typeof nodeEd25519>[0], sodium) : portableEd25519;
  const mult: ScalarMult = native ? nodeScalarMult(crypto as unknown as Parameters<typeof nodeScalarMult>[0], sodium) : nobleX;
  useEd25519({ sign: (secret, data) => (calls.sign++, ed.sign(secret, data)),
    verify: (key, signature, data) => (calls.verify++, ed.verify(key, signature, data)) });
  useScalarMult((scalar, point) => (calls.x++, mult(scalar, point)));
  if (native) {
    useSha256(nodeSha256(crypto as unknown as Parameters<typeof nodeSha256>[0]));
    useSha512(nodeSha512(crypto as unknown as Parameters<typeof nodeSha512>[0]));
    sameBytesByNode();
    fieldByWasm();
  }
  return { backend, ed, mult };
}

/** The twin keys in WebAssembly where a tree of session 39 has them as a choice (`useFieldWasm`; a benchmark's
 * `--against` runs an older tree's sources under these files); since session 40 they are always WebAssembly. */
function fieldByWasm(): void {
  (group as unknown as { useFieldWasm?: () => boolean }).useFieldWasm?.();
}

type Same = (a: Uint8Array, b: Uint8Array) => boolean;

/** Long byte strings compared by node's memcmp, as `node peer.js` does (cli.ts), where the sources have it: a
 * benchmark's `--against` runs an older tree's sources under these files. */
function sameBytesByNode(): void {
  const use = (bytes as unknown as { useSameBytes?: (fn: Same) => void }).useSameBytes;
  const node = (cli as unknown as { nodeSameBytes?: () => Same | null }).nodeSameBytes;
  if (use && node) use(node() ?? bytes.equal);
}

/** The main thread's schedstat, open once (read again from offset 0 each time: one pread, about 1.5 µs); null
 * where there is none (not Linux). */
const mainStat = (() => {
  try {
    return openSync("/proc/thread-self/schedstat", "r");
  } catch {
    return null;
  }
})();
const statBytes = new Uint8Array(64);

/** CPU nanoseconds the main thread has run (its own only: no other thread's), or NaN without schedstat. The kernel
 * brings a running thread's figure up to date at its scheduler ticks and switches only, and when the thread asks for
 * the process's CPU (getrusage): so process.cpuUsage first, then the figure, exact to that call. */
export function mainThreadNs(): number {
  if (mainStat === null) return NaN;
  process.cpuUsage();
  const n = readSync(mainStat, statBytes, 0, 64, 0);
  let ns = 0;
  for (let k = 0; k < n; k++) {
    const c = statBytes[k] as number;
    if (c === 32) break;
    ns = ns * 10 + (c - 48);
  }
  return ns;
}

/** The CPU µs the main thread's clock adds to a call it times (two readings of mainThreadNs around nothing, best
 * of 5 batches of 2000): what the per-call figures by that clock hold beyond the call. */
export function mainThreadClockUs(): number {
  let best = Infinity;
  for (let batch = 0; batch < 5; batch++) {
    let sum = 0;
    for (let k = 0; k < 2000; k++) {
      const before = mainThreadNs();
      sum += mainThreadNs() - before;
    }
    best = Math.min(best, sum / 2000 / 1000);
  }
  return best;
}

/** CPU nanoseconds each of this process's other threads has run (V8's compiler and collector workers, libuv's
 * pool), by thread id; a thread gone since keeps its time in the process's total only (threads here live as long as
 * the process). Empty without /proc. */
export function otherThreadsNs(): Map<string, number> {
  const out = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return out;
  }
  for (const task of tasks) {
    if (task === String(process.pid)) continue;
    try {
      out.set(task, Number(readFileSync(`/proc/self/task/${task}/schedstat`, "latin1").split(" ")[0]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** The main thread's scheduler counts (Linux's /proc/thread-self/sched, where the kernel has it): the times it was
 * preempted (involuntary switches: its own, not its V8 workers'), moved to another core (migrations: its caches left
 * behind), and the nanoseconds it waited runnable (schedstat's second field). Null without them. */
export function mainThreadSched(): { preempted: number; migrations: number; waitedNs: number } | null {
  try {
    const text = readFileSync("/proc/thread-self/sched", "latin1");
    const field = (name: string): number => Number(new RegExp(`^${name.replace(".", "\\.")}\\s*:\\s*(\\d+)`, "m").exec(text)?.[1] ?? NaN);
    const waited = Number(readFileSync("/proc/thread-self/schedstat", "latin1").split(" ")[1]);
    return { preempted: field("nr_involuntary_switches"), migrations: field("se.nr_migrations"), waitedNs: waited };
  } catch {
    return null;
  }
}

/** Milliseconds the other threads ran between two readings of otherThreadsNs (a thread new since counts whole). */
export function otherThreadsMs(before: Map<string, number>, after: Map<string, number>): number {
  let ns = 0;
  for (const [task, at] of after) ns += at - (before.get(task) ?? 0);
  return ns / 1e6;
}

/** Wait until the process spends no CPU while its main thread sleeps (V8's worker threads done: under 0.5 ms of
 * CPU in 20 ms, three times in a row, at most 5 s): how long it took (ms) and the CPU spent meanwhile (ms). */
export async function quiet(): Promise<{ ms: number; cpuMs: number }> {
  const since = Date.now();
  const cpuSince = process.cpuUsage();
  for (let calm = 0; calm < 3 && Date.now() - since < 5000;) {
    const before = process.cpuUsage();
    await new Promise((done) => setTimeout(done, 20));
    const spent = process.cpuUsage(before);
    calm = spent.user + spent.system < 500 ? calm + 1 : 0;
  }
  const spent = process.cpuUsage(cpuSince);
  return { ms: Date.now() - since, cpuMs: (spent.user + spent.system) / 1000 };
}
