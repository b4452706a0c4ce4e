/**
 * A probe for tests/peer/test_golden_agrees.py: plays the reference's golden games again with TypeScript nodes.
 * Reads on stdin {"peers": [{"secret", "label", "inputs"}]}: each node's Ed25519 key, the label of its pinned
 * entropy (SHA-256(label "/" counter), cut to the length asked, as tests/protocol/harness.py draws it) and every
 * input the reference's node had, in order: ["host", salt, settings, roster], ["receive", wire, via],
 * ["play", card], ["row", row], ["pick", card], ["drop", seat], ["restart"] (the node restarted from its transcript and
 * secrets; bytes in hex). Prints, per node, what each input gave to send
 * ([wire, to, skip, watchers only]), its transcript and its secrets records (hex), or the error that stopped it.
 */
import { readFileSync } from "node:fs";
import { ascii, fromHex, hex } from "../src/bytes.js";
import { sha256 } from "../src/hash.js";
import { Identity } from "../src/identity.js";
import { type Member, type Outgoing, Seat } from "../src/seat.js";
import type { Settings } from "../src/session.js";

type Input = ["host", string, Record<string, unknown>, [string, string, boolean][]] | ["receive", string, string | null]
  | ["play" | "row" | "pick" | "drop", number] | ["restart"];

interface Peer {
  secret: string;
  label: string;
  inputs: Input[];
}

function pinned(label: string): (n: number) => Uint8Array {
  let counter = 0;
  return (n) => {
    counter += 1;
    return sha256(ascii(`${label}/${counter}`)).slice(0, n);
  };
}

const shown = (out: Outgoing[]): unknown[] =>
  out.map((o) => [hex(o.wire), o.to === null ? null : hex(o.to), o.skip.map(hex), o.watchersOnly]);

function play(peer: Peer): unknown {
  const identity = new Identity(fromHex(peer.secret));
  const entropy = pinned(peer.label);
  let seat = new Seat(identity, entropy);
  const outputs: unknown[] = [];
  try {
    for (const input of peer.inputs) {
      switch (input[0]) {
        case "host": {
          const [, salt, s, roster] = input;
          const settings: Settings = { variant: s.variant as Settings["variant"], deal: s.deal as Settings["deal"],
            pointLimit: s.point_limit as number | null, maxRounds: s.max_rounds as number | null, clock: (s.clock as number | null) ?? null };
          const members: Member[] = roster.map(([key, name, bot]) => ({ key: fromHex(key), name, bot }));
          outputs.push(shown(seat.hostGame(fromHex(salt), settings, members)));
          break;
        }
        case "receive":
          outputs.push(shown(seat.deliver(fromHex(input[1]), input[2] === null ? null : fromHex(input[2]))));
          break;
        case "play":
          outputs.push(shown(seat.play(input[1])));
          break;
        case "row":
          outputs.push(shown(seat.chooseRow(input[1])));
          break;
        case "pick":
          outputs.push(shown(seat.pick(input[1])));
          break;
        case "drop":
          outputs.push(shown(seat.voteOut(input[1])));
          break;
        case "restart": {
          const restarted = Seat.restart(identity, entropy, seat.transcript.bytes(), seat.secrets);
          seat = restarted.seat;
          outputs.push(shown(restarted.out));
          break;
        }
      }
    }
  } catch (e) {
    return { outputs, error: String((e as Error).stack ?? e) };
  }
  return { outputs, transcript: hex(seat.transcript.bytes()), secrets: hex(seat.secretsBytes()), phase: seat.phase,
    faults: seat.fault ? [seat.fault.code, seat.fault.detail] : null };
}

const request = JSON.parse(readFileSync(0, "utf8")) as { peers: Peer[] };
process.stdout.write(JSON.stringify(request.peers.map(play)));
