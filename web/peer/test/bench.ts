/**
 * CPU per peer per turn of TypeScript nodes (issue 25's target: at 10 seats, at most the reference's figure of the
 * same sitting; benchmarks/peer_cpu_bench.py prints both). `node dist/test/bench.js SEATS DEAL ROUNDS [native]`.
 *
 * SEATS signing nodes (web/peer/src/seat.ts) in one process, linked in memory: every message a node sends goes to
 * the peers it addresses (relayed copies included, as on a real mesh), and each node checks every signature itself.
 * Each node plays its lowest card and takes row 0 when it chooses. The process's CPU time (process.cpuUsage) from the
 * START to the end is divided among the nodes and turns: routing and the moves' choice are counted too (an upper
 * bound). And as the reference's benchmarks/turn_cpu_bench.py counts: each node's own calls (its deliveries, moves
 * and the START) timed one by one with process.cpuUsage (about 1 µs a call, a few per cent of the figure), the
 * busiest node's CPU over the turns, and the mean of the nodes. With `native`, Ed25519 runs on libsodium then
 * OpenSSL (sodium-native where it loads, as the reference's PyNaCl then OpenSSL) and X25519 likewise, as
 * `node peer.js verify` does from web/peer (a browser has the portable code); `backend` says which. The same two for the calls begun in a
 * turn only (turn_only_*: no deal, no round end, so no sealed audit). Prints one JSON line: {seats, deal, rounds,
 * turns, cpu_ms_per_peer_per_turn, busiest_ms_per_turn, mean_ms_per_turn, per_node, turn_only_busiest_ms,
 * turn_only_mean_ms, wall_s, messages, held_mb, idle_ms, idle_cpu_ms, ...}.
 *
 * Charged as the reference charges (issue 25's fourteenth sitting): the clock starts once the start-up's work on
 * V8's background threads is over (`quiet`: the reference has no thread that goes on after its imports), and the
 * routing between the calls makes no garbage (V8 would collect it inside a node's call; the reference's harness
 * frees its own at once). Background threads' CPU during a call stays in that call's figure (process.cpuUsage).
 *
 * That figure leaves CPU out and puts CPU in the wrong place (issue 25's twentieth sitting): the kernel brings V8's
 * worker threads' CPU into the process's total only at their scheduler ticks, so a call is charged whatever lump
 * lands in it, and what lands between the calls (the routing) or after the last is charged to no node. Beside it:
 * `other_threads_ms` (the workers' CPU from the START until they are done with the game, read per thread from /proc)
 * and, with BENCH_CLOCK=thread, each call by the main thread's own CPU (test/bench_bot.ts) and `threads_*`: a node's
 * calls plus an even share of the workers. And all ten nodes share V8's compiled code and its compile work here, as
 * no two players' nodes do: test/bench_alone.ts plays a game recorded here (BENCH_RECORD=FILE) again with each node
 * alone in its own process.
 */
import { createHash, randomBytes as systemBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Identity } from "../src/identity.js";
import { clamp } from "../src/sealed_group.js";
import type { Member, Outgoing } from "../src/seat.js";
import type { Settings } from "../src/session.js";
import { BotSeat, calls, mainThreadClockUs, mainThreadNs, otherThreadsMs, otherThreadsNs, quiet, useBackend } from "./bench_bot.js";

/** With BENCH_SEED set, every random byte drawn from SHA-256(seed | counter): the same game in every build (to
 * compare two builds by instructions counted, e.g. under valgrind, which the load does not move). */
const seed = process.env.BENCH_SEED;
let drawn = 0;
function randomBytes(n: number): Uint8Array {
  if (seed === undefined) return new Uint8Array(systemBytes(n));
  const out = new Uint8Array(n);
  for (let at = 0; at < n; at += 32) out.set(createHash("sha256").update(`${seed}|${drawn++}`).digest().subarray(0, n - at), at);
  return out;
}

const [seats, deal, rounds, native] = [Number(process.argv[2] ?? 10), (process.argv[3] ?? "open") as Settings["deal"],
  Number(process.argv[4] ?? 1), process.argv[5] === "native"];
/** BENCH_CLOCK=thread: each call timed by the main thread's own CPU (schedstat), not the process's (cpuUsage): no
 * worker thread's CPU in it; the workers' CPU over the game is then given out evenly (`threads_*` figures). */
const threadClock = process.env.BENCH_CLOCK === "thread";
/** With it: what the clock adds to each call it times (µs), taken off each call's figure. */
const clockMs = threadClock ? mainThreadClockUs() / 1000 : 0;
const { backend, ed, mult } = useBackend(native);
const identities = Array.from({ length: seats }, () => new Identity(new Uint8Array(randomBytes(32))));
/** BENCH_RECORD=FILE: what each node was given (its secret, its random bytes, its calls in order) written to FILE
 * as JSON for test/bench_alone.ts, which plays each node again alone in its own process. The recording makes
 * garbage in the routing: this run's own figures are not the ones to read. */
const record = process.env.BENCH_RECORD;
type Call = ["host", string] | ["deliver", string, number] | ["play", number] | ["row", number];
const recorded = identities.map((id) => ({ secret: hex(id.secret), drawn: [] as string[], calls: [] as Call[] }));
function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}
const nodes = identities.map((id, i) => new BotSeat(id, (n) => {
  const bytes = new Uint8Array(randomBytes(n));
  if (record) recorded[i]?.drawn.push(hex(bytes));
  return bytes;
}));
let messages = 0;

const spentBy = new Array<number>(seats).fill(0);
/** By node, its CPU in the calls it began in a turn (phase "turn"): a turn's own cost, without the deal before the
 * first turn and the round end (a sealed deal's audit) after the last. */
const inTurns = new Array<number>(seats).fill(0);
/** The CPU of node i's one call (its time added to spentBy and inTurns). The routing around the calls makes no
 * garbage (no closure, array or tuple per delivery): V8 collects garbage inside whichever call runs then, so the
 * bench's own would be charged to the nodes, where the reference's harness frees its own at once (refcounts). */
function charge(i: number, inTurn: boolean, before: NodeJS.CpuUsage): void {
  const after = process.cpuUsage(before);
  const ms = (after.user + after.system) / 1000;
  spentBy[i] = (spentBy[i] as number) + ms;
  if (inTurn) inTurns[i] = (inTurns[i] as number) + ms;
}
/** The same by the main thread's own CPU (BENCH_CLOCK=thread): `before` from mainThreadNs. */
function chargeThread(i: number, inTurn: boolean, before: number): void {
  const ms = (mainThreadNs() - before) / 1e6 - clockMs;
  spentBy[i] = (spentBy[i] as number) + ms;
  if (inTurn) inTurns[i] = (inTurns[i] as number) + ms;
}

/** What is to be delivered, in the order sent: a ring of (sender, outgoing) pairs in two arrays. */
let queueFrom: number[] = new Array<number>(1024).fill(0);
let queueOut: (Outgoing | null)[] = new Array<Outgoing | null>(1024).fill(null);
let head = 0;
let size = 0;
function route(from: number, out: Outgoing[]): void {
  for (let k = 0; k < out.length; k++) {
    if (size === queueFrom.length) { // grow: the ring unrolled into arrays twice as long
      const n = queueFrom.length;
      const froms = new Array<number>(2 * n).fill(0);
      const outs = new Array<Outgoing | null>(2 * n).fill(null);
      for (let j = 0; j < n; j++) {
        froms[j] = queueFrom[(head + j) % n] as number;
        outs[j] = queueOut[(head + j) % n] as Outgoing;
      }
      queueFrom = froms;
      queueOut = outs;
      head = 0;
    }
    const at = (head + size) % queueFrom.length;
    queueFrom[at] = from;
    queueOut[at] = out[k] as Outgoing;
    size += 1;
  }
}

/** Whether two peer ids are the same bytes. */
function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Whether node i is one `o` goes to. */
function addressed(o: Outgoing, i: number): boolean {
  const peer = (identities[i] as Identity).peer;
  if (o.to !== null && !same(o.to, peer)) return false;
  for (let k = 0; k < o.skip.length; k++) if (same(o.skip[k] as Uint8Array, peer)) return false;
  return true;
}

const started = Date.now();
/* Start-up is over (quiet): no CPU spent by the process while its main thread sleeps (V8's background threads
 * finished the start-up's work: optimizing the loops that unpack the name tables and the curve's tables at import,
 * collecting). The game's clock starts then, as a node's game starts long after its process did: the reference's
 * figure has no start-up in it either (its imports and sessions made before the game, with no thread to go on after
 * them). `idle`: how long it took (ms), and the CPU the process spent meanwhile (ms), which the first calls of the game
 * were charged before. BENCH_NO_QUIET set: the clock starts at once (as before). */
const idle = process.env.BENCH_NO_QUIET ? { ms: 0, cpuMs: 0 } : await quiet();
const othersBefore = otherThreadsNs(); // read before the process's clock starts: its reads are in no figure
const mainBefore = mainThreadNs();
const cpuBefore = process.cpuUsage();
const settings: Settings = { variant: "standard", deal, pointLimit: null, maxRounds: rounds, clock: null };
const roster: Member[] = identities.map((id, i) => ({ key: id.publicKey, name: `p${i}`, bot: true }));
{
  const host = nodes[0] as BotSeat;
  const salt = new Uint8Array(randomBytes(16));
  if (record) recorded[0]?.calls.push(["host", hex(salt)]);
  const before = process.cpuUsage();
  const beforeNs = threadClock ? mainThreadNs() : 0;
  const out = host.hostGame(salt, settings, roster);
  if (threadClock) chargeThread(0, false, beforeNs);
  else charge(0, false, before);
  route(0, out);
}
for (let quiet = false; !quiet;) {
  while (size) {
    const from = queueFrom[head] as number;
    const o = queueOut[head] as Outgoing;
    queueOut[head] = null;
    head = (head + 1) % queueFrom.length;
    size -= 1;
    if (o.watchersOnly) continue;
    const sender = (identities[from] as Identity).peer;
    for (let i = 0; i < seats; i++) {
      if (i === from || !addressed(o, i)) continue;
      const node = nodes[i] as BotSeat;
      messages += 1;
      const inTurn = node.phase === "turn";
      if (record) recorded[i]?.calls.push(["deliver", hex(o.wire), from]);
      const before = process.cpuUsage();
      const beforeNs = threadClock ? mainThreadNs() : 0;
      const out = node.deliver(o.wire, sender);
      if (threadClock) chargeThread(i, inTurn, beforeNs);
      else charge(i, inTurn, before);
      route(i, out);
    }
  }
  quiet = true;
  for (let i = 0; i < seats; i++) {
    const node = nodes[i] as BotSeat;
    const move = node.due();
    if (!move) continue;
    quiet = false;
    if ("card" in move) node.played.add(`${node.round}|${move.card}`);
    const inTurn = node.phase === "turn";
    if (record) recorded[i]?.calls.push("card" in move ? ["play", move.card] : ["row", move.row]);
    const before = process.cpuUsage();
    const beforeNs = threadClock ? mainThreadNs() : 0;
    const out = "card" in move ? node.play(move.card) : node.chooseRow(move.row);
    if (threadClock) chargeThread(i, inTurn, beforeNs);
    else charge(i, inTurn, before);
    route(i, out);
  }
}
const over = nodes.every((n) => n.phase === "over");
if (!over) throw new Error(`the game did not end: ${nodes.map((n) => n.phase).join(", ")}`);
const turns = rounds * 10;
if (record) writeFileSync(record, JSON.stringify({ seats, deal, rounds, native, keys: identities.map((id) => hex(id.publicKey)), nodes: recorded }));
const spent = process.cpuUsage(cpuBefore);
const total = (spent.user + spent.system) / 1000;
const mainMs = (mainThreadNs() - mainBefore) / 1e6;
/** The other threads' CPU from the START to the end, and once they are done with what the game gave them (their
 * compile and collector jobs run on after the last call): no node's call holds it whole, each caused part of it. */
const end = await quiet();
const othersMs = otherThreadsMs(othersBefore, otherThreadsNs());
/** What the nodes hold at the game's end (MB of V8's heap after a full collection; node run with its expose-gc flag,
 * else null): every message and transcript each node keeps, which each young collection copies once or twice. */
const collect = (globalThis as { gc?: () => void }).gc;
collect?.();
const heldMb = collect ? process.memoryUsage().heapUsed / 2 ** 20 : null;
/** CPU µs of one call, best of 5 batches of `n` (as the reference's turn_cpu_bench measures its signatures). */
function perCall(n: number, call: (i: number) => void): number {
  let best = Infinity;
  for (let batch = 0; batch < 5; batch++) {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) call(i);
    const spent = process.cpuUsage(before);
    best = Math.min(best, (spent.user + spent.system) / n);
  }
  return best;
}
const sample = identities[0] as Identity;
const data = new Uint8Array(randomBytes(160));
const signature = ed.sign(sample.secret, data);
const scalar = clamp(new Uint8Array(randomBytes(32)));
const points = Array.from({ length: 50 }, () => mult(clamp(new Uint8Array(randomBytes(32))), (identities[1] as Identity).publicKey));
const cost = { sign: perCall(200, () => ed.sign(sample.secret, data)), verify: perCall(200, () => ed.verify(sample.publicKey, signature, data)),
  x: perCall(50, (i) => mult(scalar, points[i] as Uint8Array)) };
console.log(JSON.stringify({ seats, deal, rounds, turns, native, backend, cpu_ms_per_peer_per_turn: total / seats / turns,
  per_node: spentBy.map((s) => s / turns), busiest_ms_per_turn: Math.max(...spentBy) / turns, mean_ms_per_turn: spentBy.reduce((a, b) => a + b, 0) / seats / turns,
  turn_only_busiest_ms: Math.max(...inTurns) / turns, turn_only_mean_ms: inTurns.reduce((a, b) => a + b, 0) / seats / turns,
  clock: threadClock ? "main thread" : "process", clock_us: clockMs * 1000,
  // The process's threads apart (Linux): the main thread's CPU from the START to the end (routing included), the
  // other threads' (V8's compiler and collector) until they were done with the game (end_quiet_ms after its end),
  // that over seats x turns, and the busiest and mean node with it added evenly (with BENCH_CLOCK=thread: a node's
  // own calls on the main thread, plus its even share of the workers: every CPU second of the game counted once).
  main_thread_ms: mainMs, other_threads_ms: othersMs, other_threads_ms_per_peer_per_turn: othersMs / seats / turns,
  threads_busiest_ms_per_turn: threadClock ? Math.max(...spentBy) / turns + othersMs / seats / turns : null,
  threads_mean_ms_per_turn: threadClock ? spentBy.reduce((a, b) => a + b, 0) / seats / turns + othersMs / seats / turns : null,
  end_quiet_ms: end.ms,
  wall_s: (Date.now() - started) / 1000, messages, held_mb: heldMb, idle_ms: idle.ms, idle_cpu_ms: idle.cpuMs,
  // per node and turn: the calls, their cost each (µs, best of 5), and what they cost together (the floor)
  signs_per_turn: calls.sign / seats / turns, verifies_per_turn: calls.verify / seats / turns, x25519_per_turn: calls.x / seats / turns,
  sign_us: cost.sign, verify_us: cost.verify, x25519_us: cost.x,
  floor_ms_per_turn: (calls.sign * cost.sign + calls.verify * cost.verify + calls.x * cost.x) / seats / turns / 1000 }));
