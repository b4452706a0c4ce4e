/**
 * What a probe costs (protocol.md 14, "A probe"): `node dist/test/bench_probe.js [TIMES]` prints, in ms per call and
 * best of 5 runs of TIMES (500), a seat's answer (its heads of 10 senders encoded and signed) and a page's judgement
 * of one (the signature verified and the heads read), with this process's Ed25519 (the page's @noble/curves).
 */
import { Identity } from "../src/identity.js";
import { answeredHeads, probeAnswer } from "../src/page_probe.js";

const times = Number(process.argv[2] ?? 500);
const me = new Identity(new Uint8Array(32).fill(5));
const [game, ours, theirs, nonce] = [3, 1, 2, 9].map((b) => new Uint8Array(16).fill(b)) as Uint8Array[];
const heads = Array.from({ length: 10 }, (_, i) => [new Uint8Array(16).fill(i), 40 + i] as [Uint8Array, number]);
const answer = probeAnswer(me, game!, [theirs!, ours!], nonce!, heads);
const best = (run: () => void): number => {
  let low = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    for (let i = 0; i < times; i++) run();
    low = Math.min(low, (performance.now() - start) / times);
  }
  return low;
};
const answering = best(() => probeAnswer(me, game!, [theirs!, ours!], nonce!, heads));
const judging = best(() => {
  if (answeredHeads(me.publicKey, game!, [ours!, theirs!], nonce!, answer) === null) throw new Error("no answer");
});
console.log(JSON.stringify({ answer_ms: Number(answering.toFixed(3)), judge_ms: Number(judging.toFixed(3)) }));
