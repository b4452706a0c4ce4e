/**
 * The V8 flags the project runs node with (docs/benchmarks.md, issue 25's twenty-second sitting): a node is one
 * process that plays one game of a few rounds, and V8 as shipped spends more warming up to that game than its code
 * then saves (a lone node's 4-round game: 4.3-4.6 ms a turn as shipped, 2.9-3.2 with these).
 * - `--no-lazy`: every function compiled to bytecode when its module is, before the first call, as Python compiles
 *   a module at its import (else some 230 functions are parsed and compiled at their first call in the game);
 * - `--always-sparkplug`: a function's baseline code made at its first call, not after a while in the interpreter;
 * - `--interrupt-budget=1000000` (15 times V8's 67,584): TurboFan optimizes only what runs far more (2 jobs on V8's
 *   worker threads where there were 35, in a 4-round game), each function's baseline code runs longer first.
 * None changes what a node computes, only when and how V8 compiles it. The node processes the project starts (the
 * node of mixed tables, tests/peer/mixed.py; the benchmarks', benchmarks/peer_cpu_bench.py) take them on their
 * command line (tests/peer/nodepeer.py reads this list); `node peer.js verify` sets them itself (`useNodeFlags`). A
 * browser's page has no say in V8's flags and sets none.
 */
export const NODE_FLAGS: readonly string[] = ["--no-lazy", "--always-sparkplug", "--interrupt-budget=1000000"];

/** Set NODE_FLAGS in this running node (node's v8.setFlagsFromString) where its command line did not give them:
 * those V8 reads as it runs (when to make baseline code, when to optimize). `--no-lazy` is left out: V8 reads it when
 * it compiles a script, and this module is compiled already (set late, it would compile whole at their first call
 * the functions not run yet; `node peer.js verify` of the test corpus spends 5-10 % less CPU with the other two alone,
 * and no less with it). */
export function useNodeFlags(v8: { setFlagsFromString(flags: string): void }, given: readonly string[]): void {
  for (const flag of NODE_FLAGS) if (flag !== "--no-lazy" && !given.includes(flag)) v8.setFlagsFromString(flag);
}
