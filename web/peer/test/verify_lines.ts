/**
 * A long-lived probe for pytest's differential fuzzer (tests/peer/test_difffuzz_agrees.py): reads one input a line
 * on stdin (hex), answers each with one JSON line. A transcript: the TypeScript verifier's verdict (ok, text,
 * record, peer, unsupported) and the whole of what its replay saw (found: every fault, [record, code, peer, detail,
 * fatal], in order; scores). `c:` and hex: section 7's decoder on those bytes ({value}: the value re-encoded, or
 * {refused}: why). `e:` and hex: section 8's envelope opened ({value}: its seven fields re-encoded, or {refused}).
 * `b:` and hex of msgpack [kind, body]: section 9's body check ({problem}: null or its words; {unknown} for a kind
 * section 9 does not have).
 * {crash} when the code threw anything else (a bug: it must judge every input). One process serves every example,
 * where agree.js serves one batch.
 */
import { createInterface } from "node:readline";
import { fromHex, hex } from "../src/bytes.js";
import { decode, DecodeError, encode, type Encodable, type MsgMap } from "../src/codec.js";
import { open } from "../src/envelope.js";
import { bodyProblem, isKind } from "../src/messages.js";
import { verifyTranscript } from "../src/verify.js";

function refusedOr(work: () => Uint8Array): object {
  try {
    return { value: hex(work()) };
  } catch (e) {
    if (e instanceof DecodeError) return { refused: e.message };
    throw e;
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  let answer: object = {};
  try {
    const input = line.trim();
    if (input.startsWith("c:")) answer = refusedOr(() => encode(decode(fromHex(input.slice(2))) as Encodable));
    else if (input.startsWith("e:")) {
      answer = refusedOr(() => {
        const m = open(fromHex(input.slice(2)));
        return encode([m.version, m.game, m.sender, m.seq, m.prev, m.kind, m.body] as Encodable);
      });
    } else if (input.startsWith("b:")) {
      let value: [string, MsgMap] | null = null;
      try {
        value = decode(fromHex(input.slice(2))) as [string, MsgMap];
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        answer = { refused: e.message };
      }
      if (value) answer = isKind(value[0]) ? { problem: bodyProblem(value[0], value[1]) } : { unknown: value[0] };
    } else {
      const v = verifyTranscript(fromHex(input));
      answer = {
        ok: v.ok, text: v.text, record: v.record, peer: v.peer ? hex(v.peer) : null, unsupported: v.unsupported ?? null,
        found: (v.found ?? []).map(({ record, fault }) => [record, fault.code, fault.peer ? hex(fault.peer) : null, fault.detail, fault.fatal]),
        scores: v.scores ?? [],
      };
    }
  } catch (e) {
    answer = { crash: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
