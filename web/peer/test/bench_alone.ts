/**
 * CPU per peer per turn of TypeScript nodes, EACH ALONE IN ITS OWN node PROCESS, as a phone's page or a laptop's
 * `node peer.js` is one process for one node: `node dist/test/bench_alone.js RECORDING [NODE [GAMES]]`.
 *
 * RECORDING: a game test/bench.ts played with BENCH_RECORD (every node's secret, the random bytes it drew and its
 * calls in order: the bytes delivered and by whom, its moves). Without NODE this process starts one process per node
 * (this file with the node's index), one after the other, and prints one JSON line over them all: {seats, deal,
 * rounds, turns, busiest_ms_per_turn, mean_ms_per_turn, per_node, main_ms_per_turn, calls_main_ms_per_turn,
 * other_threads_ms_per_turn, process_ms_per_turn, between_calls_ms_per_turn, clock_us, deliveries, startup_ms (the
 * process's CPU before the game: node's start, the imports, the recording's parse), flags}. With NODE: that
 * node plays its game again alone (the same bytes in and, from the same random bytes, the same bytes out) and prints
 * its own line.
 *
 * A node's figure (own_ms_per_turn) is its process's CPU from the game's first call to its last, V8's worker
 * threads' included once they are done with what the game gave them (compiling, collecting: nothing shared with
 * another node, each pays its own warm-up, as on its own device): its main thread's (main_ms_per_turn) and the
 * others'. The main thread's between the calls is in it (between_calls_ms_per_turn: the loop that hands the node its
 * next call is next to nothing, but V8 installs compiled code and collects there too, work the node caused), as the
 * reference's whole figure has its loop. The main thread's CPU is read at the game's two ends only (Linux's
 * schedstat, test/bench_bot.ts), as benchmarks/turn_cpu_alone.py reads the reference's: no clock inside the game on
 * either side. With BENCH_PER_CALL=1 each call is timed too (calls_main_ms_per_turn, between_calls_ms_per_turn;
 * else null), the clock's own cost (µs a reading pair, best of 5 batches) taken off: a reading pair costs more in
 * the game than in the calibration's loop, so that figure holds about 0.1 ms a turn of clock (the twenty-first
 * sitting). The workers' CPU is counted whole from /proc over the game, not in lumps at their ticks.
 * The node runs with this process's node flags (process.execArgv), handed on to the one process a node when
 * NODE is not given: run it as the project runs node (web/peer/node-flags.txt, docs/benchmarks.md's twenty-second
 * sitting), e.g. `node $(cat node-flags.txt) dist/test/bench_alone.js RECORDING`.
 * A node's line also gives its game's minor faults, voluntary switches and preemptions (the process's: every thread's),
 * and its main thread's own (Linux's /proc/thread-self/sched and schedstat; null elsewhere): main_preempted (the
 * times the main thread was preempted), main_migrations (moved to another core) and main_waited_ms (the time it
 * waited runnable for a core): what the machine's load did to the game (docs/benchmarks.md, session 41).
 * GAMES (with NODE; default 1): the node plays its game that many times in the one process, a new node each time,
 * and the line is the last game's: what V8's warm-up costs a node's first game (a process that plays on, rematches,
 * pays it once). BENCH_CALLS=N: only the node's first N calls, no check of the game's end (under valgrind, the
 * instructions of a game are those of the whole run less those of a run with N = 0). BENCH_NO_QUIET set: no wait
 * for a quiet process before and after the game (under valgrind, with node single-threaded: the waits' loops, timed
 * by the wall clock, put a few million instructions more or less into a run). BENCH_GC set, and node run with
 * --expose-gc: two full collections before the game (under valgrind, start-up's incremental marking otherwise runs
 * on into the game in some runs and not others: the game's count then moves by up to 140 M, some of it outside the
 * collector's own functions; docs/benchmarks.md, the twenty-ninth sitting).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Identity } from "../src/identity.js";
import type { Member, Outgoing } from "../src/seat.js";
import type { Settings } from "../src/session.js";
import { BotSeat, mainThreadClockUs, mainThreadNs, mainThreadSched, otherThreadsMs, otherThreadsNs, quiet, useBackend } from "./bench_bot.js";

type Call = ["host", string] | ["deliver", string, number] | ["play", number] | ["row", number];
interface Recording {
  seats: number;
  deal: Settings["deal"];
  rounds: number;
  native: boolean;
  keys: string[];
  nodes: { secret: string; drawn: string[]; calls: Call[] }[];
}
/** One node's line (ms a turn but clock_us). */
interface Alone { own_ms_per_turn: number; main_ms_per_turn: number; calls_main_ms_per_turn: number | null;
  other_threads_ms_per_turn: number; process_ms_per_turn: number; between_calls_ms_per_turn: number | null;
  clock_us: number | null; deliveries: number; minor_faults: number; switches: number; preempted: number;
  main_preempted: number | null; main_migrations: number | null; main_waited_ms: number | null; startup_ms: number;
  flags: string[] }

const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, "hex"));

/** Node `index` of the recording in FILE plays its game again alone in this process. Only its own calls are kept
 * from the recording (the rest let go before the game: a heap the node does not hold would cost the collector). */
async function alone(file: string, index: number): Promise<Alone> {
  let game: Recording | null = JSON.parse(readFileSync(file, "utf8")) as Recording;
  useBackend(game.native);
  const mine = game.nodes[index];
  if (!mine) throw new RangeError(`no node ${index} in the recording`);
  const drawn = mine.drawn.map(bytes);
  let draws = 0;
  const node = new BotSeat(new Identity(bytes(mine.secret)), (n) => {
    const next = drawn[draws++];
    if (!next || next.length !== n) throw new Error(`node ${index} drew other random bytes than recorded`);
    return next;
  });
  const ids = game.nodes.map((n) => new Identity(bytes(n.secret)).peer);
  const settings: Settings = { variant: "standard", deal: game.deal, pointLimit: null, maxRounds: game.rounds, clock: null };
  const roster: Member[] = game.keys.map((key, i) => ({ key: bytes(key), name: `p${i}`, bot: true }));
  // Every call's arguments made before the clock starts (the routing, as in bench.ts, makes no garbage in the game).
  const calls = mine.calls.map((c) => (c[0] === "host" ? { kind: 0, wire: bytes(c[1]), from: null as Uint8Array | null, n: 0 }
    : c[0] === "deliver" ? { kind: 1, wire: bytes(c[1]), from: ids[c[2]] as Uint8Array, n: 0 }
      : { kind: c[0] === "play" ? 2 : 3, wire: new Uint8Array(0), from: null, n: c[1] }));
  const rounds = game.rounds;
  const limit = process.env.BENCH_CALLS === undefined ? null : Number(process.env.BENCH_CALLS);
  if (limit !== null) calls.length = Math.min(calls.length, limit);
  game = null;
  mine.drawn = [];
  mine.calls = [];
  const perCall = process.env.BENCH_PER_CALL === "1";
  const clockUs = perCall ? mainThreadClockUs() : 0;
  const settle = process.env.BENCH_NO_QUIET ? async () => {} : quiet;
  await settle(); // the start-up's work (imports, the recording's parse, the clock's calibration) done
  const gc = process.env.BENCH_GC ? (globalThis as { gc?: () => void }).gc : undefined;
  if (gc) { // start-up's garbage collected before the game: its marking does not run on into the game's count
    gc();
    gc();
  }
  const usage = process.resourceUsage();
  const sched = mainThreadSched();
  const since = { process: process.cpuUsage(), main: mainThreadNs(), others: otherThreadsNs() };
  let callsNs = 0;
  let sent = 0;
  for (let k = 0; k < calls.length; k++) {
    const c = calls[k] as (typeof calls)[number];
    const before = perCall ? mainThreadNs() : 0;
    const out: Outgoing[] = c.kind === 1 ? node.deliver(c.wire, c.from) : c.kind === 0 ? node.hostGame(c.wire, settings, roster)
      : c.kind === 2 ? node.play(c.n) : node.chooseRow(c.n);
    if (perCall) callsNs += mainThreadNs() - before;
    sent += out.length;
  }
  const main = (mainThreadNs() - since.main) / 1e6;
  const used = process.resourceUsage();
  const schedAfter = mainThreadSched();
  await settle(); // the workers' compile and collector jobs the game gave them, done
  const spent = process.cpuUsage(since.process);
  const others = otherThreadsMs(since.others, otherThreadsNs());
  if (limit === null && (node.phase !== "over" || draws !== drawn.length)) throw new Error(`node ${index} did not play its game again: ${node.phase}, ${draws} of ${drawn.length} draws (${sent} sent)`);
  const turns = rounds * 10;
  const clock = calls.length * clockUs / 1000;
  const callsMain = callsNs / 1e6 - clock;
  return { own_ms_per_turn: (main - clock + others) / turns, main_ms_per_turn: (main - clock) / turns,
    calls_main_ms_per_turn: perCall ? callsMain / turns : null, other_threads_ms_per_turn: others / turns,
    process_ms_per_turn: (spent.user + spent.system) / 1000 / turns,
    between_calls_ms_per_turn: perCall ? (main - clock - callsMain) / turns : null,
    clock_us: perCall ? clockUs : null, deliveries: calls.length,
    minor_faults: used.minorPageFault - usage.minorPageFault, switches: used.voluntaryContextSwitches - usage.voluntaryContextSwitches,
    preempted: used.involuntaryContextSwitches - usage.involuntaryContextSwitches,
    main_preempted: sched && schedAfter ? schedAfter.preempted - sched.preempted : null,
    main_migrations: sched && schedAfter ? schedAfter.migrations - sched.migrations : null,
    main_waited_ms: sched && schedAfter ? (schedAfter.waitedNs - sched.waitedNs) / 1e6 : null,
    startup_ms: (since.process.user + since.process.system) / 1000, flags: process.execArgv };
}

const [file, which, games] = [process.argv[2] as string, process.argv[3], Number(process.argv[4] ?? 1)];
if (which !== undefined) {
  for (let game = 1; game < games; game++) await alone(file, Number(which));
  console.log(JSON.stringify(await alone(file, Number(which))));
} else {
  const game = JSON.parse(readFileSync(file, "utf8")) as Pick<Recording, "seats" | "deal" | "rounds" | "nodes">;
  const here = fileURLToPath(import.meta.url);
  const lines = game.nodes.map((_, i) => JSON.parse(execFileSync(process.execPath, [...process.execArgv, here, file, String(i)], { encoding: "utf8" })) as Alone);
  const own = lines.map((l) => l.own_ms_per_turn);
  const mean = (f: (l: Alone) => number | null): number | null => lines.some((l) => f(l) === null) ? null
    : lines.reduce((a, l) => a + (f(l) as number), 0) / lines.length;
  console.log(JSON.stringify({ seats: game.seats, deal: game.deal, rounds: game.rounds, turns: game.rounds * 10,
    busiest_ms_per_turn: Math.max(...own), mean_ms_per_turn: mean((l) => l.own_ms_per_turn), per_node: own,
    main_ms_per_turn: mean((l) => l.main_ms_per_turn), calls_main_ms_per_turn: mean((l) => l.calls_main_ms_per_turn),
    other_threads_ms_per_turn: mean((l) => l.other_threads_ms_per_turn), process_ms_per_turn: mean((l) => l.process_ms_per_turn),
    between_calls_ms_per_turn: mean((l) => l.between_calls_ms_per_turn),
    clock_us: mean((l) => l.clock_us), deliveries: mean((l) => l.deliveries), startup_ms: mean((l) => l.startup_ms),
    flags: process.execArgv }));
}
