/** protocol.md 14's handshake-vectors, handshake-refusals, frame-vectors, tunnel-vectors and lobby-members, read from
 * the spec itself (the reference reads the same blocks: tests/net/test_network_vectors.py): the bytes the page's link
 * writes in a handshake from fixed keys and nonces, the words it closes a connection with, a link's frames, the
 * tunnel's messages and hello, and the members the page keeps of a lobby frame. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex } from "../src/bytes.js";
import { Identity } from "../src/identity.js";
import { askVerdict, Asks, asksExceeded, FRAME_KINDS, frame, heardTimeout, IDLE_TIMEOUT, LEAST_LINK_TIMEOUT, Link,
  MOST_LINK_TIMEOUT, NO_LINK_TIMEOUT, pingEvery, saidTimeout } from "../src/link.js";
import { batches, MAX_BATCH, notAHello, Tunnel, unbatched } from "../src/tunnel.js";
import { lobbyMembers, lobbySeats } from "../src/page_members.js";
import { goneBy, HOST_GONE, TAKEN_BACK } from "../src/page_host.js";
import { REFUSED } from "../src/page_node.js";
import { refusedFor } from "../src/page_words.js";
import { Float } from "../src/codec.js";
import type { Channel } from "../src/tunnel.js";
import type { Value } from "../src/codec.js";
import { vector } from "./spec.js";

const H = vector("handshake-vectors");
const GAME = fromHex(H.game_id);
const LISTENER = new Identity(fromHex(H.listener_secret));
const DIALER = new Identity(fromHex(H.dialer_secret));

/** One end of a connection whose other end is the test: what the link writes, and bytes the test sends it. */
function end(): { channel: Channel; written: Uint8Array[]; closed: string[]; give: (hexBytes: string) => void } {
  const written: Uint8Array[] = [];
  const closed: string[] = [];
  const channel = {
    onData: (_: Uint8Array) => {},
    onClose: (_: string) => {},
    closed: false,
    send(bytes: Uint8Array) { written.push(bytes); },
    close(why = "closed") {
      if (this.closed) return;
      this.closed = true;
      closed.push(why);
      this.onClose(why);
    },
  };
  return { channel: channel as unknown as Channel, written, closed, give: (h) => channel.onData(fromHex(h)) };
}

const settle = (): Promise<void> => new Promise((ok) => setTimeout(ok, 0));
const writtenHex = (written: Uint8Array[]): string => written.map(hex).join("");

for (const [role, us, them] of [["listener", "listener", "dialer"], ["dialer", "dialer", "listener"]] as const) {
  test(`handshake-vectors: the page's link as the ${role} writes the vectors' bytes, in order`, async () => {
    const { channel, written, give } = end();
    const opening = Link.open(channel, us === "listener" ? LISTENER : DIALER, GAME, us === "dialer", () => null,
      fromHex(H[`${us}_nonce`]));
    assert.equal(writtenHex(written), H[`${us}_hello`]); // its hello before it read a byte
    give(H[`${them}_hello`]);
    await settle();
    assert.equal(writtenHex(written), H[`${us}_hello`] + H[`${us}_auth`]);
    give(H[`${them}_auth`]);
    const link = await opening;
    // its first frame after the auth: a ping saying its link timeout (since session 46)
    assert.equal(writtenHex(written), H[`${us}_hello`] + H[`${us}_auth`] + H.ping);
    assert.equal(hex(link.key), H[`${them}_key`]);
    assert.deepEqual(link.nonces.map(hex), [H[`${us}_nonce`], H[`${them}_nonce`]]);
  });
}

test("handshake-vectors: the hello and the auth as frames of their values", () => {
  assert.equal(hex(frame(["p2pnimmt-hello", 1, GAME, LISTENER.publicKey, fromHex(H.listener_nonce)])), H.listener_hello);
  assert.equal(hex(frame(["auth", LISTENER.sign(fromHex(H.signed))])), H.listener_auth);
  assert.equal(hex(frame(["auth", DIALER.sign(fromHex(H.signed))])), H.dialer_auth);
});

for (const c of vector("handshake-refusals") as { why: string; as: string; sent: string; after_hello?: boolean;
  refusal: string }[]) {
  test(`handshake-refusals: ${c.why}`, async () => {
    const { channel, closed, give } = end();
    const listener = c.as === "listener";
    const opening = Link.open(channel, listener ? LISTENER : DIALER, GAME, !listener, () => null,
      fromHex(listener ? H.listener_nonce : H.dialer_nonce));
    const failed = opening.then(() => "opened", (e: Error) => e.message);
    if (c.after_hello) {
      give(listener ? H.dialer_hello : H.listener_hello);
      await settle();
    }
    give(c.sent);
    assert.equal(await failed, c.refusal);
    assert.deepEqual(closed, [c.refusal]);
  });
}

/** A link whose handshake with the vectors' dialer passed (the page as the listener), the words it closed with, and
 * how to give it bytes from its peer. */
async function opened(): Promise<{ link: Link; closed: string[]; give: (hexBytes: string) => void;
  written: Uint8Array[] }> {
  const { channel, closed, give, written } = end();
  const opening = Link.open(channel, LISTENER, GAME, false, () => null, fromHex(H.listener_nonce));
  give(H.dialer_hello);
  await settle();
  give(H.dialer_auth);
  return { link: await opening, closed, give, written };
}

/** Such a link, then `bytes` from its peer: the frames it hands on and the words it closed with (null: open). */
async function linkGiven(bytes: string): Promise<{ got: [string, Value][]; why: string | null }> {
  const { link, closed, give } = await opened();
  const got: [string, Value][] = [];
  link.start((kind, payload) => got.push([kind, payload]));
  give(bytes);
  await settle();
  return { got, why: closed[0] ?? null };
}

const F = vector("frame-vectors");

test("frame-vectors: each frame's bytes, and a link hands them on as their kinds", async () => {
  const all: string[] = [];
  for (const c of F.frames as { why: string; kind: string; frame?: string; wire?: string; wire_byte?: string; wire_size?: number;
    head?: string; heads?: [string, number][] }[]) {
    let bytes: string;
    if (c.kind === "msg" && c.wire !== undefined) bytes = hex(frame(["msg", fromHex(c.wire)]));
    else if (c.kind === "msg") bytes = hex(frame(["msg", new Uint8Array(c.wire_size as number).fill(fromHex(c.wire_byte as string)[0] as number)]));
    else if (c.kind === "heads") bytes = hex(frame(["heads", (c.heads ?? []).map(([peer, count]) => [fromHex(peer), count])]));
    else bytes = hex(frame([c.kind, null]));
    if (c.frame !== undefined) assert.equal(bytes, c.frame, c.why);
    else assert.equal(bytes, (c.head as string) + (c.wire_byte as string).repeat(c.wire_size as number), c.why);
    all.push(bytes);
  }
  const { got, why } = await linkGiven(all.join(""));
  assert.equal(why, null);
  assert.deepEqual(got.map(([kind]) => kind), F.frames.map((c: { kind: string }) => c.kind));
});

for (const c of F.refusals as { why: string; bytes: string; kinds?: string[]; refusal: string }[]) {
  test(`frame-vectors refusals: ${c.why}`, async () => {
    const { got, why } = await linkGiven(c.bytes);
    assert.deepEqual(got.map(([kind]) => kind), c.kinds ?? []);
    assert.equal(why, c.refusal);
  });
}

for (const c of F.too_many_asks as { why: string; kind: string; words: string }[]) {
  test(`frame-vectors too_many_asks: ${c.why}`, () => {
    assert.equal(asksExceeded(c.kind), c.words);
  });
}

const T = vector("tunnel-vectors");

test("tunnel-vectors: the relay's hello as the page takes it", () => {
  const tunnel = new Tunnel({ send: () => {}, close: () => {} });
  let refused: string | null = null;
  tunnel.onRefused = (why) => { refused = why; };
  tunnel.received(T.hello.text);
  assert.equal(refused, null);
  const hello = tunnel.hello;
  assert.ok(hello !== null);
  assert.equal(hex(hello.game), T.hello.game);
  assert.deepEqual([...hello.host], T.hello.host);
  assert.deepEqual([hello.port, hello.claim, hello.address, hello.dropAfter, hello.keyed],
    [T.hello.port, T.hello.claim, T.hello.address, T.hello.drop_after, T.hello.keyed]);
  for (const c of T.refused_hellos as { why: string; text: string; refusal: string }[]) {
    let parsed: unknown = null;
    try { parsed = JSON.parse(c.text); } catch { parsed = null; }
    assert.equal(notAHello(parsed), c.refusal, c.why);
  }
  for (const [said, taken] of T.drop_after as [number | null, number][]) {
    const t = new Tunnel({ send: () => {}, close: () => {} });
    t.received(JSON.stringify({ ...JSON.parse(T.hello.text), drop_after: said }));
    assert.equal(t.hello?.dropAfter, taken, `drop_after ${String(said)}`);
  }
});

test("tunnel-vectors: each op's message as the page writes it, a BATCH, and the malformed ones", async () => {
  const sent: Uint8Array[] = [];
  const tunnel = new Tunnel({ send: (d) => sent.push(d as Uint8Array), close: () => {} });
  tunnel.received(JSON.stringify({ ...JSON.parse(T.hello.text), batch: false }));
  const ours = (T.ops as { op: number; channel: number; rest: string; message: string }[]).filter((c) => c.op <= 3);
  for (const c of ours) tunnel.put(c.op, c.channel, fromHex(c.rest));
  await Promise.resolve();
  assert.deepEqual(sent.map(hex), ours.map((c) => c.message));
  void tunnel.dial("192.168.1.20", 4000, 1).catch(() => {});
  await Promise.resolve();
  assert.equal(hex(sent.at(-1) as Uint8Array), T.ops[0].message); // the page's first dial: channel 1, JSON unspaced
  for (const c of T.ops as { why: string; op: number; channel: number; rest: string; message: string }[]) {
    const m = fromHex(c.message);
    assert.deepEqual(unbatched(m).map(hex), [c.message]);
    assert.deepEqual([m[0], new DataView(m.buffer, m.byteOffset).getUint32(1), hex(m.subarray(5))], [c.op, c.channel, c.rest], c.why);
  }
  const messages = (T.batch.messages as string[]).map(fromHex);
  assert.deepEqual(batches(messages).map(hex), [T.batch.batch]);
  assert.deepEqual(unbatched(fromHex(T.batch.batch)).map(hex), T.batch.messages);
  for (const c of T.malformed as { why: string; message: string }[]) assert.deepEqual(unbatched(fromHex(c.message)), [], c.why);
  assert.equal(MAX_BATCH, T.split.max_batch);
  const sized = (T.split.sizes as number[]).map((size) => { const m = new Uint8Array(size); m[0] = 2; return m; });
  assert.equal(batches(sized).length, T.split.messages);
});

test("a link whose peer sends nothing for its idle timeout ends, saying so as the reference does; a frame resets it", async () => {
  const { link, closed, give } = await opened();
  link.idleTimeout = 2500; // (IDLE_TIMEOUT is 20 s: the reference's default --link-timeout)
  link.start(() => {});
  const at = performance.now();
  await new Promise((ok) => setTimeout(ok, 1500));
  give("0000000792a470696e67c0"); // a ping: heard
  while (!link.closed && performance.now() - at < 10_000) await new Promise((ok) => setTimeout(ok, 100));
  assert.deepEqual(closed, ["nothing received for 2.5 s"]);
  assert.ok(performance.now() - at >= 1500 + 2500 - 100, "the ping reset its silence");
});

/** A vector's value as on the wire: a str beginning `bin:` is the bytes of the hex after it (a JSON object a map). */
function binned(value: unknown): Value {
  if (typeof value === "string" && value.startsWith("bin:")) return fromHex(value.slice(4));
  if (Array.isArray(value)) return value.map(binned);
  if (value !== null && typeof value === "object") return new Map(Object.entries(value).map(([k, v]) => [k, binned(v)]));
  return value as Value;
}

for (const c of vector("lobby-members").cases as { why: string; members: unknown[]; kept: string[];
  relays?: unknown[] }[]) {
  test(`lobby-members: ${c.why}`, () => {
    const { members } = lobbyMembers(c.members.map(binned));
    assert.deepEqual(members.map((m) => m.name), c.kept);
    if (c.relays !== undefined) assert.deepEqual(members.map((m) => m.relay), c.relays);
  });
}

const LT = vector("link-timeouts");

test("link-timeouts: what a ping says of a link timeout, and its frame", () => {
  assert.deepEqual([LT.unsaid * 1000, LT.least, LT.most], [IDLE_TIMEOUT, LEAST_LINK_TIMEOUT, MOST_LINK_TIMEOUT]);
  for (const [seconds, said, framed] of LT.said as [number, number, string][]) {
    assert.equal(saidTimeout(seconds * 1000), said);
    assert.equal(hex(frame(["ping", said])), framed);
  }
});

for (const c of LT.heard as { why: string; frame: string; timeout?: number; ignored?: string }[]) {
  test(`link-timeouts heard: ${c.why}`, async () => {
    const { got, why } = await linkGiven(c.frame);
    assert.equal(why, null); // (the link stays open whatever the ping says)
    assert.deepEqual(got.map(([kind]) => kind), ["ping"]);
    const [, payload] = got[0] as [string, Value];
    const { link } = await opened();
    const taken = link.heardPing(payload);
    assert.equal(heardTimeout(payload), c.timeout === undefined ? null : c.timeout * 1000);
    assert.equal(taken, c.timeout !== undefined);
    assert.equal(link.peerTimeout, (c.timeout ?? LT.unsaid) * 1000); // an ignored one leaves the peer's as it was
    if (c.ignored !== undefined) assert.equal(NO_LINK_TIMEOUT, c.ignored);
    link.close();
  });
}

test("link-timeouts: how often a side pings", () => {
  for (const [own, peer, every] of LT.every as [number, number | null, number][]) {
    assert.equal(pingEvery(own * 1000, (peer ?? LT.unsaid) * 1000), every * 1000, `${own} ${String(peer)}`);
  }
});

test("a link pings sooner once its peer's ping says a shorter link timeout", async () => {
  const { link, written, give } = await opened();
  link.start((kind, payload) => { if (kind === "ping") link.heardPing(payload); });
  let pings = 0;
  link.keepAlive(() => { pings += 1; });
  give("0000000792a470696e6704"); // the peer's ping: its link timeout is 4 s
  const at = performance.now();
  while (pings < 2 && performance.now() - at < 10_000) await new Promise((ok) => setTimeout(ok, 50));
  assert.ok(pings >= 2, "two pings within 10 s: every 1 s at the peer's 4 s, not every 5 s at its own 20 s");
  assert.ok(written.filter((w) => hex(w) === H.ping).length >= 3); // the handshake's and those, each saying 20 s
  link.close();
});

const W = vector("wire-words");

test("wire-words: the words the page decides by (protocol.md 14, \"Words a page reads\")", () => {
  assert.deepEqual([HOST_GONE, TAKEN_BACK, REFUSED], [W.host_gone.code, W.taken_back, W.dial_refused]);
  for (const [reason, how] of W.host_gone.reasons as [string, string][]) assert.equal(goneBy(reason), how, reason);
  for (const [text, kind] of W.refusals as [string, string][]) assert.equal(refusedFor(text), kind, text);
});

const LOBBY = vector("lobby-members");
for (const c of LOBBY.seats as { why: string; seats: unknown; kept: number }[]) {
  test(`lobby-members seats: ${c.why}`, () => {
    const seats = typeof c.seats === "string" && c.seats.startsWith("float:") ? new Float(Number(c.seats.slice(6))) : binned(c.seats);
    assert.equal(lobbySeats(seats, LOBBY.had as number), c.kept);
  });
}

test("seen-reports: the page takes no report (protocol.md 14: it dials no address only a report gave), each an ask", () => {
  const cases = vector("seen-reports").cases as { why: string }[];
  assert.ok(cases.length > 0 && FRAME_KINDS.has("seen"));
  const asks = new Asks();
  assert.deepEqual(cases.map(() => askVerdict(asks, "seen", 0)), cases.map(() => "taken"));
});

for (const c of vector("join-refusals") as { why: string; refusal: string; page: string }[]) {
  test(`join-refusals: ${c.why}`, () => {
    assert.equal(refusedFor(c.refusal), c.page);
  });
}
