/**
 * A long-lived probe for pytest's differential fuzzer (tests/peer/test_difffuzz_agrees.py): reads one transcript
 * a line on stdin (hex), answers each with one JSON line: the TypeScript verifier's verdict (ok, text, record,
 * peer, unsupported), or {crash} when verifyTranscript threw (a bug: it must judge every input). One process serves
 * every example, where agree.js serves one batch.
 */
import { createInterface } from "node:readline";
import { fromHex, hex } from "../src/bytes.js";
import { verifyTranscript } from "../src/verify.js";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  let answer: object;
  try {
    const v = verifyTranscript(fromHex(line.trim()));
    answer = { ok: v.ok, text: v.text, record: v.record, peer: v.peer ? hex(v.peer) : null, unsupported: v.unsupported ?? null };
  } catch (e) {
    answer = { crash: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
