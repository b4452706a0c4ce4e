/** The page's tunnel (tunnel.ts; the relay: p2pnimmt/web/relay.py): what one step sends goes as one BATCH, in order. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ACCEPTED, BATCH, batches, CLOSE, DATA, DIAL, DIAL_WITHIN, DialUnanswered, MAX_ACCEPTED, MAX_BATCH, MAX_HOST, notAHello, OPENED, Tunnel, unbatched } from "../src/tunnel.js";
import { thisMachine } from "../src/page_node.js";

/** The BATCH of [DATA 1 "ab", CLOSE 2 ""] as both sides write it (tests/web/test_relay_bounds.py has the same bytes). */
const SAMPLE = "060000000000000007020000000161620000000503" + "00000002";

const hexOf = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const op = (code: number, id: number, rest: number[] = []): Uint8Array =>
  new Uint8Array([code, (id >>> 24) & 255, (id >>> 16) & 255, (id >>> 8) & 255, id & 255, ...rest]);

const HELLO = { game: "00", host: ["127.0.0.1", 1], port: 2, claim: "c", address: "127.0.0.1", drop_after: 60 };

test("a step's messages go as one BATCH, in order, after the step; one alone goes as itself", async () => {
  const sent: Uint8Array[] = [];
  const tunnel = new Tunnel({ send: (d) => sent.push(d as Uint8Array), close: () => {} });
  tunnel.received(JSON.stringify({ ...HELLO, batch: true }));
  tunnel.put(DATA, 1, new Uint8Array([0x61, 0x62]));
  tunnel.put(CLOSE, 2, new Uint8Array());
  assert.equal(sent.length, 0);
  await Promise.resolve();
  assert.deepEqual(sent.map(hexOf), [SAMPLE]);
  tunnel.put(DATA, 3, new Uint8Array([1]));
  await Promise.resolve();
  assert.deepEqual(sent.slice(1).map(hexOf), [hexOf(op(DATA, 3, [1]))]);
});

test("to a relay whose hello does not say it takes BATCHes, each message goes alone", async () => {
  const sent: Uint8Array[] = [];
  const tunnel = new Tunnel({ send: (d) => sent.push(d as Uint8Array), close: () => {} });
  tunnel.received(JSON.stringify(HELLO));
  tunnel.put(DATA, 1, new Uint8Array([0x61, 0x62]));
  tunnel.put(CLOSE, 2, new Uint8Array());
  await Promise.resolve();
  assert.deepEqual(sent.map(hexOf), [hexOf(op(DATA, 1, [0x61, 0x62])), hexOf(op(CLOSE, 2))]);
});

test("batches split past MAX_BATCH and unbatched gives back the messages; a bad BATCH gives none", () => {
  const big = (id: number): Uint8Array => op(DATA, id, Array(MAX_BATCH / 2 - 100).fill(7));
  const messages = [big(1), big(2), big(3), op(CLOSE, 4)];
  const out = batches(messages);
  assert.equal(out.length, 2);
  assert.deepEqual(out.flatMap(unbatched).map(hexOf), messages.map(hexOf));
  const sample = Uint8Array.from(Buffer.from(SAMPLE, "hex"));
  assert.equal(unbatched(sample).length, 2);
  assert.deepEqual(unbatched(sample.subarray(0, sample.length - 1)), []);  // a length past the end
  const nested = batches([sample, op(DATA, 1)]);
  assert.equal(nested[0]?.[0], BATCH);
  assert.deepEqual(unbatched(nested[0] as Uint8Array), []);  // a BATCH in a BATCH
  assert.deepEqual(unbatched(new Uint8Array([BATCH, 0, 0, 0, 0, 0, 0, 0, 4, 2, 0, 0, 0, 1])), []);  // shorter than an op
});

test("a received BATCH is taken message by message, in order", async () => {
  const tunnel = new Tunnel({ send: () => {}, close: () => {} });
  tunnel.received(JSON.stringify(HELLO)); // a relay says its hello first (ops before it are ignored)
  const seen: string[] = [];
  tunnel.onAccept = (channel) => {
    seen.push(`accepted ${channel.id}`);
    channel.onData = (bytes) => seen.push(`data ${channel.id} ${hexOf(bytes)}`);
    channel.onClose = (why) => seen.push(`closed ${channel.id} ${why}`);
  };
  const dialled = tunnel.dial("127.0.0.1", 9);
  await Promise.resolve();
  const [batch] = batches([op(OPENED, 1), op(ACCEPTED, 7), op(DATA, 7, [5]), op(CLOSE, 7, [0x78])]);
  tunnel.received(batch as Uint8Array);
  assert.equal((await dialled).id, 1);
  assert.deepEqual(seen, ["accepted 7", "data 7 05", "closed 7 x"]);
  assert.equal(DIAL, 1);
});

/** Red team, session 43: a "relay" that is none, or a hostile one. Its first message must be a relay's hello, else the
 * page is told why and leaves it (page.ts); it cannot make the page hold channels without end. */
test("a first message that is no relay's hello is refused, saying why, and takes no op", () => {
  for (const said of ["<html><body>printer ready</body></html>", "{}", "[1, 2]", "null", "\u0000\u0001",
    JSON.stringify({ ...HELLO, game: 7 }), JSON.stringify({ ...HELLO, game: "xyz" }), JSON.stringify({ ...HELLO, host: "a" }),
    JSON.stringify({ ...HELLO, host: ["127.0.0.1", 0] }), JSON.stringify({ ...HELLO, port: "2" })]) {
    const tunnel = new Tunnel({ send: () => {}, close: () => {} });
    const refused: string[] = [];
    tunnel.onRefused = (why) => refused.push(why);
    let accepted = 0;
    tunnel.onAccept = () => accepted++;
    assert.doesNotThrow(() => tunnel.received(said), said);
    assert.equal(tunnel.hello, null, said);
    assert.equal(refused.length, 1, said);
    assert.match(refused[0] as string, /hello|first message/, said);
    tunnel.received(op(ACCEPTED, 5));
    assert.equal(accepted, 0, said); // no hello, no channel
  }
});

test("a relay's flood of OPENED and ACCEPTED holds at most MAX_ACCEPTED channels: the oldest accepted is cut", () => {
  const sent: Uint8Array[] = [];
  const tunnel = new Tunnel({ send: (d) => sent.push(d as Uint8Array), close: () => {} });
  tunnel.received(JSON.stringify(HELLO));
  let open = 0;
  let cut = 0;
  tunnel.onAccept = (channel) => {
    open++;
    channel.onClose = (why) => {
      open--;
      if (why.startsWith("cut: too many")) cut++;
    };
  };
  const count = 20000;
  for (let id = 1; id <= count; id++) tunnel.received(op(OPENED, id)); // dials the page never asked for
  for (let id = 1 << 31; id < (1 << 31) + count; id++) tunnel.received(op(ACCEPTED, id));
  tunnel.received(op(ACCEPTED, ((1 << 31) + count - 1) >>> 0)); // an accepted channel's number again: not a new one
  const held = (tunnel as unknown as { channels: Map<number, unknown> }).channels.size;
  assert.equal(open, MAX_ACCEPTED);
  assert.equal(held, MAX_ACCEPTED);
  assert.equal(cut, count - MAX_ACCEPTED);
});

/** The same cases as tests/net/test_member_addresses.py: a member's address on the dialler's own machine. */
test("a loopback or unspecified address a member names is the dialler's own machine (never dialled)", () => {
  for (const own of ["127.0.0.1", "127.9.8.7", "0.0.0.0", "::1", "0:0:0:0:0:0:0:1", "::", "::ffff:127.0.0.1", "::ffff:0.0.0.0"]) {
    assert.equal(thisMachine(own), true, own);
  }
  for (const other of ["192.168.1.20", "10.0.0.1", "100.64.0.7", "fd7a:115c:a1e0::7", "::ffff:192.168.1.2", "fe80::1", "1.127.0.0"]) {
    assert.equal(thisMachine(other), false, other);
  }
});

test("a relay's hello may name its game's host by a DNS name of up to 253 characters (a joiner's --peer as given)", () => {
  const long = "gamebox-livingroom.home.example-family-net.org"; // 46 characters: refused by the red team's first bound
  assert.equal(notAHello({ ...HELLO, host: [long, 9000] }), null);
  const longest = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
  assert.equal(longest.length, MAX_HOST);
  assert.equal(notAHello({ ...HELLO, host: [longest, 9000], address: longest }), null);
  assert.equal(notAHello({ ...HELLO, host: [`${longest}e`, 9000] }), "its hello names no host");
  assert.equal(notAHello({ ...HELLO, host: ["", 9000] }), "its hello names no host");
  assert.equal(notAHello({ ...HELLO, address: `${longest}e` }), "its hello names no port for the page");
});

test("a dial the relay answers neither way within its time fails as unanswered, and says CLOSE (review, session 43)", async () => {
  const sent: Uint8Array[] = [];
  const tunnel = new Tunnel({ send: (d) => sent.push(d as Uint8Array), close: () => {} });
  tunnel.received(JSON.stringify(HELLO));
  assert.equal(DIAL_WITHIN, 10_000); // the relay's DIAL_TIMEOUT (web/relay.py: 5 s) and as much again
  const mute = tunnel.dial("127.0.0.1", 1, 20);
  await assert.rejects(mute, (error) => error instanceof DialUnanswered && /within 0.02 s/.test(error.message));
  await Promise.resolve();
  const id = (sent[0] as Uint8Array)[4] as number;
  assert.deepEqual(sent.map(hexOf), [hexOf(op(DIAL, id, [...new TextEncoder().encode('["127.0.0.1",1]')])), hexOf(op(CLOSE, id))]);
  tunnel.received(op(OPENED, id)); // too late: no dial of ours any more, nothing opens; the page closes it again
  tunnel.received(op(OPENED, id)); // (once: a relay's OPENEDs without end get no answer each)
  await Promise.resolve();
  assert.deepEqual(sent.slice(2).map(hexOf), [hexOf(op(CLOSE, id))]); // (red team, session 44: on main, nothing)
  // one answered in time is the channel, and no timeout fails it after
  const answered = tunnel.dial("127.0.0.1", 1, 20);
  tunnel.received(op(OPENED, id + 1));
  const channel = await answered;
  assert.equal(channel.id, id + 1);
  await new Promise((ok) => setTimeout(ok, 40));
  assert.equal(sent.length, 4); // its DIAL alone since: no CLOSE of a timed-out dial
});
