/**
 * A page's TCP connections through the node that served it (issue 26; the relay is p2pnimmt/web/relay.py): one
 * WebSocket carries every connection as a numbered channel. The relay's first message says the game id, where
 * the game's host is and the port it listens on for the page; then binary messages: an op byte, a 4-byte channel
 * number, the rest; or several of them in one BATCH (channel 0; each as a 4-byte length and its bytes, in order,
 * never a BATCH in a BATCH): the relay sends what one pass of its event loop gathered as one message, the page what
 * one step of its session sent (all it put before its next microtask), so a turn costs the browser a few WebSocket
 * messages, not one a frame. Each side sends BATCHes only where the other said it takes them (the page asks the
 * relay with `batch=1`, the relay's hello says `"batch": true`): a page and a relay node of different versions
 * still talk. The relay only moves bytes: everything on a channel is the mesh's own protocol
 * (link.ts).
 */
import { bytes } from "./main.js";

const { concat, fromHex } = bytes;

export const DIAL = 1;
export const DATA = 2;
export const CLOSE = 3;
export const OPENED = 4;
export const ACCEPTED = 5;
export const BATCH = 6;
/** How long a dial through the relay may go unanswered (neither OPENED nor CLOSE): the relay's own dial timeout
 * (web/relay.py: DIAL_TIMEOUT, 5 s) and as much again for a loaded machine. A relay that answers no dial (review,
 * session 43: a hostile spectator's, which the page moved to in the lobby, held its join for ever and the page
 * missed the START) is no relay of the game: the page leaves it for the next (page_node.ts, page.ts). */
export const DIAL_WITHIN = 10_000;

/** A dial the relay answered within DIAL_WITHIN neither way. */
export class DialUnanswered extends Error {}

/** Bytes of the messages one BATCH gathers (one larger goes alone; the relay takes at most 256 KiB a message). */
export const MAX_BATCH = 128 * 1024;

/** Tunnel messages as the fewest WebSocket messages, in order: one alone as itself, more in BATCHes. */
export function batches(messages: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let group: Uint8Array[] = [];
  let size = 0;
  const close = (): void => {
    if (group.length === 1) out.push(group[0] as Uint8Array);
    else if (group.length > 1) {
      const joined = new Uint8Array(5 + size);
      joined[0] = BATCH;
      const view = new DataView(joined.buffer);
      let at = 5;
      for (const message of group) {
        view.setUint32(at, message.length);
        joined.set(message, at + 4);
        at += 4 + message.length;
      }
      out.push(joined);
    }
  };
  for (const message of messages) {
    if (group.length > 0 && size + 4 + message.length > MAX_BATCH) {
      close();
      group = [];
      size = 0;
    }
    group.push(message);
    size += 4 + message.length;
  }
  close();
  return out;
}

/** The tunnel messages of one WebSocket message (a BATCH's, else itself), in order; [] where it is not well formed. */
export function unbatched(data: Uint8Array): Uint8Array[] {
  if (data.length < 5) return [];
  if (data[0] !== BATCH) return [data];
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  const found: Uint8Array[] = [];
  let at = 5;
  while (at < data.length) {
    if (at + 4 > data.length) return [];
    const size = view.getUint32(at);
    if (size < 5 || at + 4 + size > data.length || data[at + 4] === BATCH) return [];
    found.push(data.subarray(at + 4, at + 4 + size));
    at += 4 + size;
  }
  return found;
}

/** The drop time where the relay does not say one (the nodes' default, --drop-after). */
export const DROP_AFTER = 60;
/** The shortest drop time a relay can set (seconds). */
export const MIN_DROP_AFTER = 2;
/** Channels accepted on the page's port a tunnel holds open at once (the relay's own bound, web/relay.py: INBOUND):
 * one more cuts the oldest. A relay that said ACCEPTED for new channel numbers without end (or OPENED for dials the
 * page never asked) had the page keep a channel for each, and run a handshake on each accepted one, for as long as
 * the tunnel lasted (red team, session 43). */
export const MAX_ACCEPTED = 24;
/** Dials given up (past DIAL_WITHIN) remembered, so that an OPENED for one that comes after is closed at once: the
 * newest this many (red team, session 44: the page ignored such an OPENED, and the relay held its connection to the
 * member for nobody for as long as the tunnel lasted). */
export const MAX_GIVEN_UP = 64;

/** The longest host a relay's hello may name: a DNS name's 253 characters (an IPv6 address is 45). */
export const MAX_HOST = 253;

/** Why `said` (the relay's first message) is no p2pnimmt relay's hello, or null where it is one. */
export function notAHello(said: unknown): string | null {
  if (typeof said !== "object" || said === null || Array.isArray(said)) return "its first message is not a relay's hello";
  const { game, host, port, address } = said as Record<string, unknown>;
  if (typeof game !== "string" || game.length === 0 || game.length > 128 || game.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(game)) {
    return "its hello names no game";
  }
  const isPort = (p: unknown): boolean => typeof p === "number" && Number.isInteger(p) && p >= 1 && p <= 65535;
  // A host or an address is an IP address or a DNS name (up to 253 characters: a joiner's --peer may name its host
  // so, and its relay says the name as given; session 43's review found the red team's 45 refusing such a relay).
  const named = (h: unknown): boolean => typeof h === "string" && h.length >= 1 && h.length <= MAX_HOST;
  if (!Array.isArray(host) || host.length !== 2 || !named(host[0]) || !isPort(host[1])) {
    return "its hello names no host";
  }
  if (!isPort(port) || !named(address)) return "its hello names no port for the page";
  return null;
}

/** What the relay says first. */
export interface Hello {
  readonly game: Uint8Array;
  readonly host: readonly [string, number];
  readonly port: number;
  /** The relay's token for `port`: with it a page that comes back asks for the port again (no one else gets it). */
  readonly claim: string;
  readonly address: string;
  /** Seconds the serving node waits on a player before voting to drop it (its --drop-after; 0: never). */
  readonly dropAfter: number;
  /** The serving node holds a seat key for its game (protocol.md 14, "The seat key"; never the key itself): a page
   * whose link has none says so rather than joining to be refused. False from a relay of before session 34. */
  readonly keyed: boolean;
}

/** The part of a WebSocket a tunnel uses (a browser's WebSocket with binaryType "arraybuffer"). */
export interface Socket {
  send(data: Uint8Array | string): void;
  close(): void;
}

/** One connection: bytes in and out, and its end. */
export class Channel {
  onData: (bytes: Uint8Array) => void = () => {};
  onClose: (why: string) => void = () => {};
  closed = false;

  constructor(private readonly tunnel: Tunnel, readonly id: number) {}

  send(bytes: Uint8Array): void {
    if (!this.closed) this.tunnel.put(DATA, this.id, bytes);
  }

  close(why = "closed"): void {
    if (this.closed) return;
    this.tunnel.put(CLOSE, this.id, new Uint8Array());
    this.ended(why);
  }

  ended(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.tunnel.forget(this.id);
    this.onClose(why);
  }
}

export class Tunnel {
  /** A peer dialled the page's port: the channel, to run the handshake on as the listener. */
  onAccept: (channel: Channel) => void = () => {};
  private readonly channels = new Map<number, Channel>();
  private readonly dials = new Map<number, { ok: (c: Channel) => void; fail: (why: string) => void }>();
  private next = 1;
  private outbox: Uint8Array[] = [];
  /** The relay takes BATCHes (its hello said so). */
  private batching = false;
  hello: Hello | null = null;
  onHello: (hello: Hello) => void = () => {};
  /** The relay's first message is no relay's hello (notAHello says why): the page leaves it (red team, session 43). */
  onRefused: (why: string) => void = () => {};
  /** The channels accepted on the page's port, oldest first. */
  private readonly accepted = new Set<number>();
  /** Dials given up (no answer within their time), oldest first: an OPENED for one is closed at once. */
  private readonly givenUp = new Set<number>();

  constructor(private readonly socket: Socket) {}

  /** A message from the relay (a string: its hello; else an op). */
  received(data: Uint8Array | string): void {
    if (typeof data === "string") {
      // One hello a tunnel (web/relay.py says it once, as the tunnel opens): a second one is the relay's word alone,
      // and taking it would start a second node on this tunnel, for whatever game it names, beside the first
      // (session 42's red team). Ignored: the tunnel goes on with the game and port it was opened for.
      if (this.hello !== null) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        parsed = null;
      }
      const refused = notAHello(parsed);
      if (refused !== null) {
        this.onRefused(refused);
        return;
      }
      const said = parsed as {
        game: string; host: [string, number]; port: number; claim?: string; address: string; drop_after?: number;
        batch?: boolean; keyed?: boolean };
      // The relay's word, with a floor: a relay cannot make the page vote out a seat at its first hiccup.
      const dropAfter = typeof said.drop_after !== "number" || !(said.drop_after >= 0) ? DROP_AFTER
        : said.drop_after === 0 ? 0 : Math.max(MIN_DROP_AFTER, said.drop_after);
      const claim = typeof said.claim === "string" ? said.claim : "";
      this.batching = said.batch === true;
      this.hello = { game: fromHex(said.game), host: said.host, port: said.port, claim, address: said.address, dropAfter,
        keyed: said.keyed === true };
      this.onHello(this.hello);
      return;
    }
    if (this.hello === null) return; // a relay says its hello first: ops before it are no relay's
    for (const message of unbatched(data)) this.take(message);
  }

  private take(data: Uint8Array): void {
    const op = data[0] as number;
    const id = new DataView(data.buffer, data.byteOffset + 1, 4).getUint32(0);
    const rest = data.subarray(5);
    if (op === OPENED) {
      const waiting = this.dials.get(id);
      if (waiting === undefined) {
        // a dial of ours given up: the relay opened it late, and holds its connection till we close it (once)
        if (this.givenUp.delete(id)) this.put(CLOSE, id, new Uint8Array());
        return; // else no dial of ours: nothing to open
      }
      this.dials.delete(id);
      const channel = new Channel(this, id);
      this.channels.set(id, channel);
      waiting?.ok(channel);
    } else if (op === ACCEPTED) {
      if (this.channels.has(id) || this.dials.has(id)) return; // a channel of ours already: not a new one
      if (this.accepted.size >= MAX_ACCEPTED) {
        const oldest = this.accepted.values().next().value as number;
        this.channels.get(oldest)?.close("cut: too many connections to the page's port");
        this.accepted.delete(oldest);
      }
      const channel = new Channel(this, id);
      this.channels.set(id, channel);
      this.accepted.add(id);
      this.onAccept(channel);
    } else if (op === DATA) {
      this.channels.get(id)?.onData(rest.slice());
    } else if (op === CLOSE) {
      const why = new TextDecoder().decode(rest);
      this.givenUp.delete(id);
      const waiting = this.dials.get(id);
      this.dials.delete(id);
      waiting?.fail(why);
      this.channels.get(id)?.ended(why);
    }
  }

  /** The WebSocket is gone: every channel with it. */
  lost(): void {
    for (const channel of [...this.channels.values()]) channel.ended("the page's link to its relay closed");
    for (const waiting of this.dials.values()) waiting.fail("the page's link to its relay closed");
    this.dials.clear();
  }

  /** A TCP connection to `address:port` (a member of the game), through the relay. */
  dial(address: string, port: number, within = DIAL_WITHIN): Promise<Channel> {
    const id = this.next++;
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => {
        if (!this.dials.delete(id)) return;
        this.put(CLOSE, id, new Uint8Array()); // (the relay ends the dial; one that opens it after is closed again)
        this.givenUp.add(id);
        if (this.givenUp.size > MAX_GIVEN_UP) this.givenUp.delete(this.givenUp.values().next().value as number);
        fail(new DialUnanswered(`no answer to a dial for ${address}:${port} within ${within / 1000} s`));
      }, within);
      this.dials.set(id, {
        ok: (channel) => {
          clearTimeout(timer);
          ok(channel);
        },
        fail: (why) => {
          clearTimeout(timer);
          fail(new Error(why));
        },
      });
      this.put(DIAL, id, new TextEncoder().encode(JSON.stringify([address, port])));
    });
  }

  /** Send a message with the others put before the next microtask (one BATCH: a step of the session's sends). */
  put(op: number, id: number, rest: Uint8Array): void {
    const head = new Uint8Array(5);
    head[0] = op;
    new DataView(head.buffer).setUint32(1, id);
    this.outbox.push(concat(head, rest));
    if (this.outbox.length === 1) queueMicrotask(() => this.flush());
  }

  private flush(): void {
    const messages = this.outbox;
    this.outbox = [];
    try {
      for (const data of this.batching ? batches(messages) : messages) this.socket.send(data);
    } catch {
      // the socket closed: `lost` ends the channels
    }
  }

  forget(id: number): void {
    this.channels.delete(id);
    this.accepted.delete(id);
  }
}
