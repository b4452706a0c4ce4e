/**
 * One authenticated link to another peer, as protocol.md's "Network" section says (the reference:
 * p2pnimmt/net/connection.py), over a tunnel channel: frames of a 4-byte big-endian length and a msgpack value;
 * the handshake (each side says ["p2pnimmt-hello", 1, game id, public key, 16-byte nonce], then signs
 * HANDSHAKE_TAG || game id || dialer's nonce || listener's nonce || dialer's key || listener's key); after it,
 * frames are [kind, payload]. A link that breaks the framing or the handshake is closed with the reason.
 */
import type { Encodable, Value } from "./codec.js";
import type { Identity } from "./identity.js";
import { bytes, codec, identity as identities } from "./main.js";
import { neutralUpTo, pyRepr } from "./names.js";
import type { Channel } from "./tunnel.js";

const { ascii, concat, equal } = bytes;
const { decode, encode } = codec;
const { fingerprint, KEY_SIZE, peerId, SIGNATURE_SIZE, verify } = identities;

export const HELLO = "p2pnimmt-hello";
export const HANDSHAKE_VERSION = 1;
export const HANDSHAKE_TAG = ascii("p2pnimmt/handshake/v1");
export const NONCE = 16;
export const FRAME_LIMIT = 64 * 1024 + 1024;
export const HANDSHAKE_TIMEOUT = 5000;
/** A link whose peer sent no frame this long has ended (protocol.md 14: the reference's --link-timeout, 20 s by
 * default; its peers ping every quarter of it). Before session 45 the page ended no silent link: one whose peer's
 * network was cut, with no FIN to reach the relay, stayed a link of the page's for good, which it never dialled again
 * and whose seat it never voted out. */
export const IDLE_TIMEOUT = 20_000;
/** The link timeouts a ping may say, in whole seconds (protocol.md 14, "The link timeout"); nil says none: the
 * peer's is then IDLE_TIMEOUT (a peer of before session 46). The reference's LINK_TIMEOUTS. */
export const LEAST_LINK_TIMEOUT = 1;
export const MOST_LINK_TIMEOUT = 600;
/** What a link says of a ping whose payload is no link timeout (ignored; the reference's NO_LINK_TIMEOUT). */
export const NO_LINK_TIMEOUT = "the peer's ping says no link timeout of 1..600 whole seconds";

/** What our pings say of our link timeout (`ms`): its whole seconds (the reference's said_timeout). */
export function saidTimeout(ms: number): number {
  return Math.floor(ms / 1000);
}

/** The link timeout (ms) a peer's ping says: IDLE_TIMEOUT where it says none (nil), null where it is neither nil nor
 * an integer 1..600 (ignored; the reference's heard_timeout). */
export function heardTimeout(payload: Value): number | null {
  if (payload === null) return IDLE_TIMEOUT;
  if (typeof payload !== "number" || !Number.isInteger(payload) || payload < LEAST_LINK_TIMEOUT
    || payload > MOST_LINK_TIMEOUT) return null;
  return payload * 1000;
}

/** Milliseconds between our pings on a link: a quarter of the shorter of our link timeout and the peer's, so that
 * each end hears the other within its own (the reference's ping_every). */
export function pingEvery(own: number, peer: number): number {
  return Math.min(own, peer) / 4;
}
/** How often a link looks at its silence; a look that comes later (the page's thread busy, a tab in the background)
 * counts at most IDLE_STEP * 2 of silence, so frames queued meanwhile are read before the link is judged silent. */
export const IDLE_STEP = 1000;
/** Bytes of messages a link remembers it carried (Link.sent): a whole game's are well under it. */
export const MAX_SENT_BYTES = 4 * 1024 * 1024;

export function frame(value: Encodable): Uint8Array {
  const data = encode(value);
  const head = new Uint8Array(4);
  new DataView(head.buffer).setUint32(0, data.length);
  return concat(head, data);
}

/** A frame's length over FRAME_LIMIT (the reference's protocol/codec.py FrameTooLarge): said as it is, where a value
 * that is not canonical msgpack is a `bad frame: ...` (frame-vectors, protocol.md 14). */
export class FrameTooLarge extends Error {}

/** What a link says of bytes that are no frame: `error` from Frames.push (the reference's words, net/connection.py). */
export function badFrame(error: Error): string {
  return error instanceof FrameTooLarge ? error.message : `bad frame: ${error.message}`;
}

/** Pieces under this size gather in one tail, sealed as a piece of its own at this size or when a frame needs its
 * bytes (the reference's protocol/pieces.py SEAL): a piece a push held a 64 KiB frame sent a byte at a time, or 64 KiB
 * of 1-byte WebSocket messages, as one Uint8Array a byte (some 200 bytes each with its buffer: 14 MB; session 43). */
export const SEAL = 4096;
const NONE = new Uint8Array(0);

/** Whole frames out of a byte stream, as they complete. The pieces wait apart and are joined only once a frame is
 * whole (or to read a length cut in two), and the frames are read off the joined bytes in place: each byte is copied a
 * bounded number of times, however the stream is cut (session 42's red team: a buffer joined at every piece and cut
 * at every frame cost the page 0.4 s of CPU for one frame at the limit sent a byte at a time, and 0.12 s for a 64 KiB
 * piece of 5-byte frames; quadratic, on a phone four times that). Small pieces gather in a tail (SEAL), so the bytes
 * held are held in about one piece per SEAL bytes however small the pushes. */
export class Frames {
  private parts: Uint8Array[] = []; // sealed pieces, oldest first, then the tail
  private lone: Uint8Array | null = null; // the tail while it is one small piece, held as it came (not copied)
  private buffer: Uint8Array = NONE; // else the tail is buffer[start, end): small pieces copied in as they came
  private start = 0;
  private end = 0;
  private tail = 0; // bytes in the tail
  private held = 0; // bytes in `parts` and the tail
  /** Bytes copied into the tail and by joins (a measure, as the reference's Pieces.copied). */
  copied = 0;

  /** The pieces the bytes held are in (the tail one of them). */
  get pieces(): number {
    return this.parts.length + (this.tail ? 1 : 0);
  }

  /** The frames `bytes` completes, in order. Bytes that are no frame throw, the error's `before` holding the frames
   * completed ahead of them (a hello and garbage in one piece: the hello counts, as the reference reads it). */
  push(bytes: Uint8Array): Value[] {
    const out: Value[] = [];
    try {
      this.take(bytes, out);
    } catch (error) {
      (error as { before?: Value[] }).before = out;
      throw error;
    }
    return out;
  }

  private take(bytes: Uint8Array, out: Value[]): void {
    this.add(bytes);
    while (this.held >= 4) {
      this.need(4);
      if ((this.parts[0] as Uint8Array).length < 4) this.join();
      const first = this.parts[0] as Uint8Array;
      const size = new DataView(first.buffer, first.byteOffset, 4).getUint32(0);
      if (size > FRAME_LIMIT) throw new FrameTooLarge(`frame of ${size} bytes is over the ${FRAME_LIMIT}-byte limit`);
      if (this.held < 4 + size) break;
      this.need(4 + size);
      if (first.length < 4 + size) this.join();
      const whole = this.parts[0] as Uint8Array;
      out.push(decode(whole.subarray(4, 4 + size), FRAME_LIMIT));
      const rest = whole.subarray(4 + size);
      this.held -= 4 + size;
      if (rest.length) this.parts[0] = rest;
      else this.parts.shift();
    }
  }

  private add(bytes: Uint8Array): void {
    if (!bytes.length) return;
    this.held += bytes.length;
    if (bytes.length >= SEAL) {
      this.seal();
      this.parts.push(bytes);
    } else if (!this.tail) {
      this.lone = bytes; // (a frame as it came, most often: read where it lies)
      this.tail = bytes.length;
    } else {
      if (this.lone) {
        const lone = this.lone;
        this.lone = null;
        this.tail = 0;
        this.write(lone);
      }
      this.write(bytes);
    }
  }

  /** `bytes` copied to the tail's end; the tail sealed wherever its buffer fills (at SEAL bytes, a fresh buffer's). */
  private write(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      if (this.end === this.buffer.length) {
        this.buffer = new Uint8Array(SEAL);
        this.start = this.end = 0;
      }
      const room = this.buffer.length - this.end;
      const some = at === 0 && bytes.length <= room ? bytes : bytes.subarray(at, at + room);
      this.buffer.set(some, this.end);
      this.copied += some.length;
      this.end += some.length;
      this.tail += some.length;
      at += some.length;
      if (this.end === this.buffer.length) this.seal();
    }
  }

  /** The tail as a piece of its own (a buffer's next pieces follow it in the buffer). */
  private seal(): void {
    if (this.lone) this.parts.push(this.lone);
    else if (this.end > this.start) this.parts.push(this.buffer.subarray(this.start, this.end));
    this.lone = null;
    this.start = this.end;
    this.tail = 0;
  }

  /** The sealed pieces hold the next `size` bytes held (or every byte held), the tail sealed where they lie in it. */
  private need(size: number): void {
    if (this.held - this.tail < size) this.seal();
  }

  /** Every sealed piece as one. */
  private join(): void {
    const joined = concat(...this.parts);
    this.copied += joined.length;
    this.parts = [joined];
  }
}

const bytesAsText = new TextDecoder("latin1");

/** A wire message's key in a link's `sent`: its bytes one character each (latin1, which maps every byte to a
 * character of its own: two keys are equal only where the bytes are). Made by the browser's decoder, half the size
 * of hex and no string built a byte at a time (hex's garbage was a tenth of the phone page's a turn). */
export function wireKey(wire: Uint8Array): string {
  return bytesAsText.decode(wire);
}

/** A link's budget of asks (`heads`, `ping`, `seen`, `probe`, `where` frames, and since session 45 every other frame but a
 * `msg`: chargedAsAsk), as the reference's net.connection.Asks (protocol.md 14, "Bounds"): a burst of ASKS_BURST, then
 * ASKS_PER_SECOND; an honest peer sends some 15 a second at the most (12 of them pings, seen and where frames at the
 * least link timeout, 1 s: protocol.md 14, "Bounds"). */
export const ASKS = new Set(["heads", "ping", "seen", "probe", "where"]);
export const ASKS_PER_SECOND = 20;
export const ASKS_BURST = 64;
/** Past the burst, asks up to ASKS_SLACK more (filling at ASKS_PER_SECOND as well) are not answered but not counted
 * either: a link that stalled brings what its peer sent meanwhile at once, up to a link timeout's worth (2 x 600 + 8
 * at the longest --link-timeout; the reference's Asks.SLACK, session-32 review). */
export const ASKS_SLACK = 1280;
/** Asks past the budget a link may send before it is closed (the reference's MAX_LINK_FAULTS: bad messages). */
export const MAX_ASKS_OVER = 20;
/** Bad messages a link may carry before it is closed (the reference's net/frames.py MAX_LINK_FAULTS; page_node.ts);
 * none once a link of its key was closed so. */
export const MAX_LINK_FAULTS = 20;
/** Every frame kind of this version (protocol.md 14, the table of frames; the reference's net/frames.py KINDS). A frame
 * of another kind (a later version's, or junk) is ignored, and counted as an ask as every frame but a msg is
 * (chargedAsAsk; since session 45: a seat's tiny frames of a kind nobody knows, sent as fast as its link took them, cut
 * nothing and held the page's main thread busy half the time). */
export const FRAME_KINDS = new Set([...ASKS, "msg", "join", "lobby", "refuse", "bye", "again", "rematch", "probed"]);

/** A frame of `kind` takes from its link's asks budget (protocol.md 14, "Bounds"): every frame but a `msg` (the page
 * hosts no game, so it has no `join` or `again` budget of its own: the reference's frame_verdict, not at a host). */
export function chargedAsAsk(kind: string): boolean {
  return kind !== "msg";
}

/** A frame of `kind` at `now` (milliseconds, monotonic) against its link's asks: "free" (not charged), "taken",
 * "excused" (past the budget, within its slack: not answered, not counted) or "bad" (not answered, counted in
 * `asks.over`: past MAX_ASKS_OVER the link is closed). The reference's net/frames.py frame_verdict decides alike. */
export function askVerdict(asks: Asks, kind: string, now: number): "free" | "taken" | "excused" | "bad" {
  if (!chargedAsAsk(kind)) return "free";
  const over = asks.over;
  if (asks.take(now)) return "taken";
  return asks.over > over ? "bad" : "excused";
}

/** Why a link is closed past its asks' budget: what the asks are, the kind that went over it named (the reference's
 * asks_exceeded: since session 46 the same words for a kind with characters that are not printable or past 40,
 * protocol.md 14 frame-vectors `too_many_asks`; before, the kind raw, cut at 40 UTF-16 units without `…`). */
export function asksExceeded(kind: string): string {
  const said = `more than ${ASKS_PER_SECOND} asks a second (heads, ping, seen, probe, where and other frames but msg`;
  return FRAME_KINDS.has(kind) ? `${said}: this one ${kind})`
    : `${said}: this one of a kind this node does not know, ${pyRepr(neutralUpTo(kind, 40))})`;
}

export class Asks {
  private left = ASKS_BURST;
  private slack = ASKS_SLACK;
  private at: number | null = null;
  /** Asks past the budget and its slack so far (none of them answered). */
  over = 0;

  /** One ask at `now` (milliseconds, monotonic): true if it is within the budget, else false (and it is not). */
  take(now: number): boolean {
    if (this.at !== null) {
      const gained = ((now - this.at) / 1000) * ASKS_PER_SECOND;
      this.left = Math.min(ASKS_BURST, this.left + gained);
      this.slack = Math.min(ASKS_SLACK, this.slack + gained);
    }
    this.at = now;
    if (this.left >= 1) {
      this.left -= 1;
      return true;
    }
    if (this.slack >= 1) this.slack -= 1;
    else this.over += 1;
    return false;
  }
}

export class Link {
  /** [kind, payload] frames after the handshake (from `start` on; those that came before wait for it). */
  private onFrame: ((kind: string, payload: Value) => void) | null = null;
  private readonly early: Value[] = [];
  onClose: (why: string) => void = () => {};
  readonly peer: Uint8Array;
  closed = false;
  /** Session messages sent on this link, or that its peer sent us on it (their wireKey): never sent on it (again).
   * At most MAX_SENT_BYTES of them (remember): past that it starts again (a message sent twice at worst). */
  readonly sent = new Set<string>();
  private sentBytes = 0;
  /** Its heads, pings and seen reports: a rate an honest peer stays well under. */
  readonly asks = new Asks();
  /** Bad messages it carried (page_node.ts: past MAX_LINK_FAULTS it is closed). */
  bad = 0;
  /** Milliseconds of silence after which the link ends (IDLE_TIMEOUT; a test may set less before the first look). */
  idleTimeout = IDLE_TIMEOUT;
  private silent = 0;
  private looked = performance.now();
  private idle: ReturnType<typeof setInterval> | null = null;
  /** A ping that said no link timeout was said (page_node.ts: once a link). */
  warnedPing = false;
  /** The peer's link timeout (ms), as its latest ping said it (heardPing). */
  peerTimeout = IDLE_TIMEOUT;
  private pingedAt = 0;
  private pinger: ReturnType<typeof setTimeout> | null = null;
  private withPing: (() => void) | null = null;

  /** `nonces`: this connection's handshake nonces, [ours, the peer's] (a join's seat-key proof is bound to them,
   * protocol.md 14, "The seat key": each (re)connection has its own). */
  private constructor(private readonly channel: Channel, readonly key: Uint8Array, readonly dialer: boolean,
    readonly nonces: readonly [Uint8Array, Uint8Array]) {
    this.peer = peerId(key);
  }

  /** Run the handshake on a fresh channel; rejects (and closes the channel) if the peer fails it. `admit(key)`:
   * why the peer with this key is not let in, or null. `entropy`: this side's 16-byte nonce (fresh from the browser's
   * CSPRNG unless given: protocol.md 16's handshake-vectors give them). Each refusal's words are the reference's
   * (net/connection.py; handshake-refusals). */
  static open(channel: Channel, identity: Identity, game: Uint8Array, dialer: boolean,
    admit: (key: Uint8Array) => string | null = () => null, entropy?: Uint8Array): Promise<Link> {
    const frames = new Frames();
    const queue: Value[] = [];
    let wake: (() => void) | null = null;
    let ended: string | null = null;
    let link: Link | null = null;
    // Which handshake frame is awaited: bytes that are no frame in its place are said so (the reference's words).
    let awaiting: "hello" | "auth" = "hello";
    let broken: string | null = null;
    channel.onData = (bytes) => {
      let values: Value[];
      let failed: string | null = null;
      try {
        values = frames.push(bytes);
      } catch (error) {
        // The frames ahead of the bad bytes count, as the reference reads them one by one: in the handshake a hello
        // then garbage fails at the auth; after it, a link hands them on and then ends (frame-vectors).
        values = (error as { before?: Value[] }).before ?? [];
        const why = badFrame(error as Error);
        failed = link !== null || awaiting === "auth" || queue.length || values.length ? why
          : `not a p2pnimmt peer (its first bytes are no p2pnimmt hello: ${why})`;
        if (link === null) broken = failed;
      }
      for (const value of values) {
        if (link === null) queue.push(value);
        else if (link.closed) break; // closed by a frame before it (cut off over a cap): none after it is taken, as the
        else link.frame(value); // reference's served link takes none (net/connection.py, _Link: while not conn.closed)
      }
      if (failed !== null) channel.close(failed);
      wake?.();
    };
    channel.onClose = (why) => {
      ended = why;
      wake?.();
      link?.ended(why);
    };
    const next = async (): Promise<Value> => {
      // (a monotonic clock: the wall clock may step, red team of session 43: back an hour, a silent peer held the
      // handshake an hour)
      const deadline = performance.now() + HANDSHAKE_TIMEOUT;
      while (!queue.length) {
        if (ended !== null) throw new Error(broken ?? `connection closed during the handshake: ${ended}`);
        const left = deadline - performance.now();
        if (left <= 0) throw new Error("no answer to the handshake");
        await new Promise<void>((ok) => {
          wake = ok;
          setTimeout(ok, left);
        });
        wake = null;
      }
      return queue.shift() as Value;
    };
    const run = async (): Promise<Link> => {
      const nonce = entropy ?? crypto.getRandomValues(new Uint8Array(NONCE));
      channel.send(frame([HELLO, HANDSHAKE_VERSION, game, identity.publicKey, nonce]));
      const hello = await next();
      awaiting = "auth";
      if (!(Array.isArray(hello) && hello.length === 5 && hello[0] === HELLO)) {
        throw new Error("not a p2pnimmt peer: it did not say a p2pnimmt hello");
      }
      const [, version, theirGame, theirKey, theirNonce] = hello;
      // The integer 1: true and 1.0 are no version (the reference took both as 1 before session 45).
      if (!(typeof version === "bigint" || (typeof version === "number" && Number.isInteger(version)))) {
        throw new Error("the peer's hello has a malformed version");
      }
      if (version !== HANDSHAKE_VERSION) {
        throw new Error(`the peer speaks handshake version ${String(version)}, not ${HANDSHAKE_VERSION}`);
      }
      if (!(theirGame instanceof Uint8Array) || !equal(theirGame, game)) throw new Error("the peer is in another game");
      if (!(theirKey instanceof Uint8Array && theirKey.length === KEY_SIZE && theirNonce instanceof Uint8Array
        && theirNonce.length === NONCE)) throw new Error("the peer's hello has a malformed key or nonce");
      if (equal(theirKey, identity.publicKey)) throw new Error("the peer uses our own key");
      const why = admit(theirKey);
      if (why) throw new Error(why);
      const signed = dialer ? concat(HANDSHAKE_TAG, game, nonce, theirNonce, identity.publicKey, theirKey)
        : concat(HANDSHAKE_TAG, game, theirNonce, nonce, theirKey, identity.publicKey);
      channel.send(frame(["auth", identity.sign(signed)]));
      const auth = await next();
      if (!(Array.isArray(auth) && auth.length === 2 && auth[0] === "auth" && auth[1] instanceof Uint8Array
        && auth[1].length === SIGNATURE_SIZE)) throw new Error("the peer did not authenticate");
      if (!verify(theirKey, auth[1], signed)) {
        throw new Error(`the peer's handshake signature does not verify (claims ${fingerprint(peerId(theirKey))})`);
      }
      link = new Link(channel, theirKey, dialer, [nonce, theirNonce]);
      if (ended !== null) link.closed = true;
      else link.watchSilence();
      link.ping(); // our first frame after the auth says our link timeout (protocol.md 14, "The link timeout")
      link.early.push(...queue.splice(0));
      return link;
    };
    return run().catch((error: Error) => {
      channel.close(error.message);
      throw error;
    });
  }

  /** Take the link's frames from now on, first those that came with or right after the handshake. */
  start(onFrame: (kind: string, payload: Value) => void): void {
    this.onFrame = onFrame;
    const ended = this.closed; // (the peer's end came during the handshake: what it sent before it is still taken)
    for (const value of this.early.splice(0)) {
      if (this.closed && !ended) break; // closed by a frame before it: none after it is taken, as in onData
      this.frame(value);
    }
  }

  /** End the link once its peer has sent no frame for `idleTimeout` (counted only while this thread looked on time). */
  private watchSilence(): void {
    this.looked = performance.now();
    this.idle = setInterval(() => {
      const now = performance.now();
      this.silent += Math.min(now - this.looked, 2 * IDLE_STEP);
      this.looked = now;
      if (this.silent >= this.idleTimeout) this.close(`nothing received for ${this.idleTimeout / 1000} s`);
    }, IDLE_STEP);
    (this.idle as { unref?: () => void }).unref?.(); // (node: a link's look keeps no process alive)
  }

  /** A ping, saying our link timeout. */
  private ping(): void {
    this.send("ping", saidTimeout(this.idleTimeout));
    this.pingedAt = performance.now();
  }

  /** Ping every pingEvery of our timeout and the peer's from now on (the first ping went as the handshake ended),
   * calling `withPing` after each; null: ping no more. */
  keepAlive(withPing: (() => void) | null): void {
    this.withPing = withPing;
    this.pace();
  }

  private pace(): void {
    if (this.pinger !== null) clearTimeout(this.pinger);
    this.pinger = null;
    if (this.closed || this.withPing === null) return;
    const left = Math.max(0, this.pingedAt + pingEvery(this.idleTimeout, this.peerTimeout) - performance.now());
    this.pinger = setTimeout(() => {
      this.pinger = null;
      if (this.closed || this.withPing === null) return;
      this.ping();
      this.withPing();
      this.pace();
    }, left);
    (this.pinger as { unref?: () => void }).unref?.();
  }

  /** The peer's ping: the link timeout it says is the peer's from now on (our pings come sooner where it is shorter);
   * false where it says none that can be (ignored: the caller says so once). */
  heardPing(payload: Value): boolean {
    const timeout = heardTimeout(payload);
    if (timeout === null) return false;
    if (timeout !== this.peerTimeout) {
      this.peerTimeout = timeout;
      this.pace();
    }
    return true;
  }

  private frame(value: Value): void {
    this.silent = 0;
    if (!this.onFrame) {
      this.early.push(value);
      return;
    }
    if (!(Array.isArray(value) && value.length === 2 && typeof value[0] === "string")) {
      this.close("frame is not [kind, payload]");
      return;
    }
    this.onFrame(value[0], value[1] as Value);
  }

  send(kind: string, payload: Encodable): void {
    if (!this.closed) this.channel.send(frame([kind, payload]));
  }

  /** A session message, unless this link carried it before (either way); `key`: its wireKey, where made already. */
  sendMessage(wire: Uint8Array, key = wireKey(wire)): void {
    if (this.sent.has(key)) return;
    this.remember(key);
    this.send("msg", wire);
  }

  /** `key` (a message's wireKey) is one this link carried. Every `msg` frame a peer sends is remembered, held or not:
   * a seat that sent valid-signed messages no inbox keeps (seqs far ahead), each new, grew the set by their bytes for
   * as long as its link lasted (red team, session 43); now the set starts again past MAX_SENT_BYTES. */
  remember(key: string): void {
    if (this.sent.has(key)) return;
    if (this.sentBytes + key.length > MAX_SENT_BYTES) {
      this.sent.clear();
      this.sentBytes = 0;
    }
    this.sent.add(key);
    this.sentBytes += key.length;
  }

  /** The bytes of the messages `sent` remembers now. */
  get remembered(): number {
    return this.sentBytes;
  }

  close(why = "closed"): void {
    this.channel.close(why);
  }

  private ended(why: string): void {
    if (this.idle !== null) clearInterval(this.idle);
    this.idle = null;
    if (this.pinger !== null) clearTimeout(this.pinger);
    this.pinger = null;
    if (this.closed) return;
    this.closed = true;
    this.onClose(why);
  }
}
