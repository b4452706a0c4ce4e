/** Section 14's handshake over a link (link.ts): each side keeps the connection's two nonces, which a join's seat-key
 * proof is bound to ("The seat key"): the joiner's proof from its side is the one the host checks from its side. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { equal, hex } from "../src/bytes.js";
import { Identity } from "../src/identity.js";
import { concat } from "../src/bytes.js";
import { frame, HANDSHAKE_TIMEOUT, Link, MAX_SENT_BYTES } from "../src/link.js";
import { joinProof, seatSecret } from "../src/seatkey.js";
import { Channel, DATA, Tunnel } from "../src/tunnel.js";

/** Two ends of a connection in memory, as a tunnel's channels are to the link. */
function pipe(): [Channel, Channel] {
  const make = () => ({ onData: (_: Uint8Array) => {}, onClose: (_: string) => {}, closed: false, other: null as unknown,
    send(bytes: Uint8Array) { const to = this.other as { onData: (b: Uint8Array) => void }; queueMicrotask(() => to.onData(bytes)); },
    close() { this.closed = true; } });
  const a = make();
  const b = make();
  a.other = b;
  b.other = a;
  return [a as unknown as Channel, b as unknown as Channel];
}

test("a link keeps its handshake's nonces, each side's own first; a join's proof holds from the host's side", async () => {
  const game = new Uint8Array(16).fill(7);
  const joiner = new Identity(new Uint8Array(32).fill(1));
  const host = new Identity(new Uint8Array(32).fill(2));
  const links: [Link, Link][] = [];
  for (let i = 0; i < 2; i++) {
    const [a, b] = pipe();
    links.push(await Promise.all([Link.open(a, joiner, game, true), Link.open(b, host, game, false)]));
  }
  const secret = await seatSecret(game, "7Q2K");
  const proofs = links.map(([dialled, accepted]) => {
    assert.equal(dialled.nonces[0].length, 16);
    assert.ok(equal(dialled.nonces[0], accepted.nonces[1]) && equal(dialled.nonces[1], accepted.nonces[0]));
    assert.ok(equal(dialled.key, host.publicKey) && equal(accepted.key, joiner.publicKey));
    const proof = joinProof(secret, game, dialled.nonces[0], dialled.nonces[1], joiner.publicKey);
    // the host's check: the joiner's nonce is the one it received, its own the one it sent
    assert.equal(hex(joinProof(secret, game, accepted.nonces[1], accepted.nonces[0], accepted.key)), hex(proof));
    return hex(proof);
  });
  const [first, second] = links;
  assert.ok(first && second && !equal(first[0].nonces[0], second[0].nonces[0]), "each connection draws its own nonce");
  assert.notEqual(proofs[0], proofs[1], "a proof of one link is not another's");
});

test("a handshake with a silent peer ends within HANDSHAKE_TIMEOUT though the wall clock steps back (session 43)", async () => {
  const game = new Uint8Array(16).fill(7);
  const [a] = pipe(); // the other end never answers
  const now = Date.now;
  try {
    const opened = Link.open(a, new Identity(new Uint8Array(32).fill(1)), game, true).then(() => "opened", (e: Error) => e.message);
    Date.now = () => now() - 3_600_000; // the wall clock an hour back, once the handshake has begun
    let guard: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<string>((ok) => { guard = setTimeout(() => ok("still waiting"), 4 * HANDSHAKE_TIMEOUT); });
    assert.equal(await Promise.race([opened, late]), "no answer to the handshake");
    clearTimeout(guard);
  } finally {
    Date.now = now;
    a.onClose("the test is over"); // (a handshake still waiting ends: on the code before, an hour's timer)
  }
});

test("a link remembers at most MAX_SENT_BYTES of the messages it carried (red team, session 43)", async () => {
  // Every `msg` frame a peer sends is remembered (page_node.ts), held or not: 500 new ones of 60 KiB were 30 MB a link.
  const game = new Uint8Array(16).fill(7);
  const [a, b] = pipe();
  const [link] = await Promise.all([Link.open(a, new Identity(new Uint8Array(32).fill(1)), game, true),
    Link.open(b, new Identity(new Uint8Array(32).fill(2)), game, false)]);
  const big = (n: number): string => `${n} `.padEnd(60 * 1024, "x");
  for (let n = 0; n < 500; n++) link.remember(big(n));
  assert.ok(link.remembered <= MAX_SENT_BYTES, `${link.remembered}`);
  assert.ok(link.sent.has(big(499)) && link.sent.size <= MAX_SENT_BYTES / (60 * 1024));
  link.remember(big(499));
  assert.equal(link.sent.has(big(499)), true, "one remembered is remembered once");
});

/** A link at a page (its end a tunnel's real Channel, the relay between) to a peer (an end of `pipe`), handshake done:
 * the page's link and its channel. */
async function pageLink(game: Uint8Array): Promise<[Link, Channel]> {
  const [, peer] = pipe();
  const tunnel = new Tunnel({ send: (data) => { // the relay: the page's DATA on channel 1 goes to the peer's end
    const bytes = data as Uint8Array;
    if (bytes[0] === DATA) queueMicrotask(() => peer.onData(bytes.subarray(5)));
  }, close: () => {} });
  const page = new Channel(tunnel, 1);
  (peer as unknown as { other: unknown }).other = page; // what the peer's end sends reaches the page's channel
  const [link] = await Promise.all([Link.open(page, new Identity(new Uint8Array(32).fill(1)), game, false),
    Link.open(peer, new Identity(new Uint8Array(32).fill(2)), game, true)]);
  return [link, page];
}

test("a link closed by one of its frames takes none after it, as the reference's served link (session 45 review)", async () => {
  // The page cuts a peer off over a cap before the START as one of its msg frames arrives (page_node.ts, inbox.ts:
  // what the peer held is dropped). Before, the frames after it in the same bytes from the relay, or among those that
  // came before start(), were still taken: the peer, cut, held messages again.
  const game = new Uint8Array(16).fill(7);
  const msgs = (...names: string[]): Uint8Array => concat(...names.map((n) => frame(["msg", n])));
  const cut = "cut off: it sent more than 1024 messages or 262144 bytes before START";
  const cases = [
    { early: ["a", "b"], later: [], closer: "a", want: ["a"] }, // both came before start()
    { early: [], later: ["a", "b", "c", "d"], closer: "b", want: ["a", "b"] }, // in one DATA from the relay
  ];
  for (const { early, later, closer, want } of cases) {
    const [link, page] = await pageLink(game);
    if (early.length) page.onData(msgs(...early));
    const taken: string[] = [];
    link.start((kind, payload) => {
      if (kind === "ping") return; // (each side's first frame after the auth, protocol.md 14's link timeout)
      taken.push(payload as string);
      if (payload === closer) link.close(cut);
    });
    if (later.length) page.onData(msgs(...later));
    assert.deepEqual(taken, want, "a frame after the one that closed the link was taken");
    assert.ok(link.closed && page.closed);
  }
});
