/**
 * The V8 flags the project runs node with (docs/benchmarks.md, issue 25's twenty-second sitting): a node is one
 * process that plays one game of a few rounds, and V8 as shipped spends more warming up to that game than its code
 * then saves (a lone node's 4-round game: 4.3-4.6 ms a turn as shipped, 2.9-3.2 with these).
 * - `--no-lazy`: every function compiled to bytecode when its module is, before the first call, as Python compiles
 *   a module at its import (else some 230 functions are parsed and compiled at their first call in the game);
 * - `--always-sparkplug`: a function's baseline code made at its first call, not after a while in the interpreter;
 * - `--interrupt-budget=1000000` (15 times V8's 67,584): TurboFan optimizes only what runs far more (2 jobs on V8's
 *   worker threads where there were 35, in a 4-round game), each function's baseline code runs longer first;
 * - `--max-semi-space-size=4` (MiB; V8's own cap 16): the young generation, where a message's short-lived objects
 *   are made, stays at 2 x 4 MiB, memory the node's start-up has touched already. Grown to 2 x 8 MiB and more at the
 *   start (the modules' compile keeps much of what it makes), it was fresh pages the game then touched one by one,
 *   each a page fault in which the kernel zeroes 4 KiB (~1.7 µs): some 2,900 of them in a lone node's 4-round open
 *   game, 6,500 in a sealed one, where there are now 550 and 1,800 (docs/benchmarks.md, the twenty-third sitting).
 * None changes what a node computes, only when and how V8 compiles it and where it makes its objects. The node
 * processes the project starts (the node of mixed tables, tests/peer/mixed.py; the benchmarks',
 * benchmarks/peer_cpu_bench.py) take them on their command line (tests/peer/nodepeer.py reads this list); `node
 * peer.js verify` sets those it can itself (`useNodeFlags`). A
 * browser's page has no say in V8's flags and sets none.
 */
export const NODE_FLAGS: readonly string[] = ["--no-lazy", "--always-sparkplug", "--interrupt-budget=1000000",
  "--max-semi-space-size=4"];

/** The flags V8 reads only when it starts (a script's compile, the heap's sizes): no use set in a running node. */
const AT_START: readonly string[] = ["--no-lazy", "--max-semi-space-size=4"];

/** Set NODE_FLAGS in this running node (node's v8.setFlagsFromString) where its command line did not give them:
 * those V8 reads as it runs (when to make baseline code, when to optimize). AT_START's are left out: V8 reads
 * `--no-lazy` when it compiles a script, and this module is compiled already (set late, it would compile whole at
 * their first call the functions not run yet; `node peer.js verify` of the test corpus spends 5-10 % less CPU with the
 * two tiering flags alone, and no less with it), and the young generation's size when it makes the heap. */
export function useNodeFlags(v8: { setFlagsFromString(flags: string): void }, given: readonly string[]): void {
  for (const flag of NODE_FLAGS) if (!AT_START.includes(flag) && !given.includes(flag)) v8.setFlagsFromString(flag);
}
