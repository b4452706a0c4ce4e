/** `node peer.js verify FILE`: the same output and exit status as `p2pnimmt verify FILE` (section 13). */
import { concat, equal, hex, useSameBytes } from "./bytes.js";
import { useSha256, useSha512 } from "./hash.js";
import { type Ed25519, useEd25519 } from "./identity.js";
import { useNodeFlags } from "./node_flags.js";
import { type ScalarMult, useScalarMult } from "./sealed_group.js";
import { neutral, report, type Unfinished, verifyTranscript } from "./verify.js";

const REASONS: Record<string, string> = {
  ENOENT: "No such file or directory", EISDIR: "Is a directory", EACCES: "Permission denied", ENOTDIR: "Not a directory",
};

interface Io {
  readFile(path: string): Uint8Array;
  out(text: string): void;
  err(text: string): void;
}

/** The exit status of a valid transcript whose game was not finished (the reference's cli.UNFINISHED). */
export const UNFINISHED = 3;
/** The exit status of a transcript that needs a part of protocol.md this implementation lacks (no verdict at all;
 * the reference has no such status). */
export const NOT_YET = 4;

/** Python's shlex.quote: a file name as a shell reads it back. */
function shellQuote(text: string): string {
  if (text === "") return "''";
  if (!/[^\w@%+=:,./-]/.test(text)) return text;
  return `'${text.replaceAll("'", "'\"'\"'")}'`;
}

/** What `verify` says of a game left mid-way (the reference's cli.unfinished_said, in English): valid as far as it
 * goes, where it stops and whom it waits on, others' names made neutral. */
export function unfinishedSaid(unfinished: Unfinished, file: string): string {
  const n = unfinished.messages;
  const valid = `UNFINISHED: the transcript is valid as far as it goes (${n} signed message${n === 1 ? "" : "s"} checked: `
    + "signatures, chains, commitments, every turn up to there)";
  const waiting = unfinished.waiting.map(neutral).join(", ");
  if (unfinished.stage !== "game") {
    return `${valid}\n${waiting ? `the game never started: it stops before its first deal, waiting for ${waiting}`
      : "the game never started: it stops in its lobby"}`;
  }
  const where = `round ${unfinished.round}, turn ${unfinished.turn}`;
  const stop = waiting ? `the game was not finished: it stops in ${where}, waiting for ${waiting}`
    : `the game was not finished: it stops in ${where}`;
  return `${valid}\n${stop}\n(not a verified game: \`p2pnimmt replay ${shellQuote(file)}\` shows it up to there)`;
}

/** Run the command line; returns the exit status (0 verified, 1 not, 2 unreadable or a bad command line,
 * UNFINISHED 3 valid as far as it goes but the game not finished, as the reference's; NOT_YET 4 not verifiable by
 * this implementation yet). */
export function run(argv: readonly string[], io: Io): number {
  if (argv.length !== 2 || argv[0] !== "verify") {
    io.err("usage: node peer.js verify FILE");
    return 2;
  }
  const file = argv[1] as string;
  let data: Uint8Array;
  try {
    data = io.readFile(file);
  } catch (e) {
    const code = (e as { code?: string }).code ?? "";
    io.err(`p2pnimmt verify: cannot read ${file}: ${REASONS[code] ?? (e as Error).message}`);
    return 2;
  }
  const verdict = verifyTranscript(data);
  if (verdict.unsupported) {
    io.err(`p2pnimmt verify: ${file}: cannot verify with the TypeScript peer yet: ${verdict.unsupported}`);
    return NOT_YET;
  }
  if (verdict.ok) {
    io.out(report(verdict));
    return 0;
  }
  if (verdict.alien !== undefined) {  // a wrong file, not a bad game
    io.err(`p2pnimmt verify: ${file} is not a p2pnimmt transcript (${verdict.alien}); \`p2pnimmt history\` lists the games kept here`);
    return 2;
  }
  if (verdict.unfinished !== undefined) {  // valid as far as it goes, the game not over: no failure, no verified game
    io.out(`p2pnimmt verify: ${file}: ${unfinishedSaid(verdict.unfinished, file)}`);
    return UNFINISHED;
  }
  io.err(`p2pnimmt verify: ${file}: ${report(verdict)}`);
  return 1;
}

interface NodeProcess {
  argv: string[];
  execArgv: string[];
  exitCode?: number;
  stdout: { write(text: string): void };
  stderr: { write(text: string): void };
  getBuiltinModule?(name: string): unknown;
}

interface NodeCrypto {
  createPrivateKey(options: { key: Uint8Array; format: "der"; type: "pkcs8" }): unknown;
  createPublicKey(options: { key: Uint8Array; format: "der"; type: "spki" }
    | { key: { kty: "OKP"; crv: "X25519"; x: string }; format: "jwk" }): unknown;
  diffieHellman(options: { privateKey: unknown; publicKey: unknown }): Uint8Array;
  sign(algorithm: null, data: Uint8Array, key: unknown): Uint8Array;
  createHash(algorithm: "sha256" | "sha512"): { update(data: Uint8Array): { digest(): Uint8Array } };
  /** One-shot digest (node >= 20.12 / 21.7): no Hash object per call. */
  hash?(algorithm: "sha256" | "sha512", data: Uint8Array, outputEncoding: "latin1"): string;
  verify(algorithm: null, data: Uint8Array, key: unknown, signature: Uint8Array): boolean;
}

const PKCS8_ED25519 = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
const SPKI_ED25519 = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

/** A key object of node's, made once per key (a few dozen at a table). */
function keyCache(make: (raw: Uint8Array) => unknown): (raw: Uint8Array) => unknown {
  const keys = new Map<string, unknown>();
  // The key of the call before (a node signs with its one secret): found by its bytes, no hex string made.
  let lastRaw: Uint8Array | null = null;
  let lastKey: unknown = null;
  return (raw) => {
    if (lastRaw !== null && equal(raw, lastRaw)) return lastKey;
    const id = hex(raw);
    let key = keys.get(id);
    if (key === undefined) {
      key = make(raw);
      if (keys.size > 256) keys.clear();
      keys.set(id, key);
    }
    lastRaw = raw.slice();
    lastKey = key;
    return key;
  };
}

function der(prefix: Uint8Array, raw: Uint8Array): Uint8Array {
  const out = new Uint8Array(prefix.length + raw.length);
  out.set(prefix);
  out.set(raw, prefix.length);
  return out;
}

/** libsodium's Ed25519 as the sodium-native package hands it to node (an optional dependency of web/peer). */
export interface Sodium {
  crypto_sign_seed_keypair(publicKey: Uint8Array, secretKey: Uint8Array, seed: Uint8Array): void;
  crypto_sign_detached(signature: Uint8Array, message: Uint8Array, secretKey: Uint8Array): void;
  crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  /** X25519 (RFC 7748); throws where libsodium refuses (a low-order point, an all-zero result). */
  crypto_scalarmult?(out: Uint8Array, scalar: Uint8Array, point: Uint8Array): void;
}

/** sodium-native where node can load it from beside this module (web/peer's node_modules: the tests' and benchmarks'
 * nodes), else null (the shipped bundle, a browser): Ed25519 then runs on OpenSSL alone, with the same verdicts. */
export function nodeSodium(): Sodium | null {
  const proc = (globalThis as { process?: NodeProcess }).process;
  try {
    const module = proc?.getBuiltinModule?.("node:module") as { createRequire(from: string): (id: string) => unknown } | undefined;
    return (module?.createRequire(import.meta.url)("sodium-native") as Sodium | undefined) ?? null;
  } catch {
    return null;
  }
}

/** Ed25519 by node's OpenSSL: the library whose verdicts the reference takes (its check falls back to OpenSSL). A
 * key OpenSSL will not read verifies nothing (the caller turns the throw into false). With `sodium`, as the
 * reference does (p2pnimmt/protocol/identity.py): libsodium checks first, at half OpenSSL's cost, and a signature it
 * refuses goes to OpenSSL, whose verdict counts. libsodium accepts a subset of what OpenSSL accepts (the same
 * cofactorless equation on the same bytes; it also refuses keys and R of small order and non-canonical keys), so
 * the verdicts are OpenSSL's on every input (web/peer/test/identity.test.ts compares them). libsodium signs too:
 * Ed25519 signing is deterministic (RFC 8032), the same bytes as OpenSSL's. */
export function nodeEd25519(crypto: NodeCrypto, sodium: Sodium | null = null): Ed25519 {
  const privateKey = keyCache((secret) => crypto.createPrivateKey({ key: der(PKCS8_ED25519, secret), format: "der", type: "pkcs8" }));
  const publicKey = keyCache((key) => crypto.createPublicKey({ key: der(SPKI_ED25519, key), format: "der", type: "spki" }));
  const openssl: Ed25519 = {
    sign: (secret, data) => new Uint8Array(crypto.sign(null, data, privateKey(secret))),
    verify: (key, signature, data) => crypto.verify(null, data, publicKey(key), signature),
  };
  if (sodium === null) return openssl;
  const expanded = keyCache((secret) => {
    const secretKey = new Uint8Array(64);
    sodium.crypto_sign_seed_keypair(new Uint8Array(32), secretKey, secret);
    return secretKey;
  });
  return {
    sign: (secret, data) => {
      const signature = new Uint8Array(64);
      sodium.crypto_sign_detached(signature, data, expanded(secret) as Uint8Array);
      return signature;
    },
    verify: (key, signature, data) => {
      try {
        if (key.length === 32 && signature.length === 64 && sodium.crypto_sign_verify_detached(signature, data, key)) return true;
      } catch {
        // refused by a throw: OpenSSL decides, as for a refusal
      }
      return openssl.verify(key, signature, data);
    },
  };
}

const PKCS8_X25519 = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22, 0x04, 0x20]);

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const b64 = (n: number): string => B64URL.charAt(n & 63);

/** RFC 4648 base64url without padding (a JWK's "x"). */
function base64url(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 3 <= bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += b64(n >> 18) + b64(n >> 12) + b64(n >> 6) + b64(n);
  }
  if (i + 1 === bytes.length) {
    const n = (bytes[i] as number) << 16;
    out += b64(n >> 18) + b64(n >> 12);
  } else if (i + 2 === bytes.length) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += b64(n >> 18) + b64(n >> 12) + b64(n >> 6);
  }
  return out;
}

/** RFC 7748's X25519 by node's OpenSSL (synchronous, ten times faster than the portable one). Each point is
 * imported as a JWK: node hands its raw bytes to OpenSSL as they are, where an SPKI DER goes through OpenSSL 3's
 * decoders (107 against 17 µs a point here, when the X25519 itself costs 45: the audit's 2,000 points a seat).
 * With `sodium`, as the reference does (p2pnimmt/protocol/sealed_group.py): libsodium's crypto_scalarmult first (30
 * against 43-55 µs a point with OpenSSL's import, here), and a point it refuses goes to OpenSSL, whose answer (bytes
 * or a throw) counts. On every point both give the same bytes or both refuse (tests/peer/test_group_agrees.py asks
 * all three paths); X is only ever applied to points valid on arrival (protocol.md 17.1). */
export function nodeScalarMult(crypto: NodeCrypto, sodium: Sodium | null = null): ScalarMult {
  const openssl = opensslScalarMult(crypto);
  if (!sodium?.crypto_scalarmult) return openssl;
  const libsodium = sodium;
  return (scalar, point) => {
    if (scalar.length === 32 && point.length === 32) {
      const out = new Uint8Array(32);
      try {
        (libsodium.crypto_scalarmult as NonNullable<Sodium["crypto_scalarmult"]>)(out, scalar, point);
        return out;
      } catch {
        // refused: OpenSSL decides, as for a signature libsodium refuses
      }
    }
    return openssl(scalar, point);
  };
}

function opensslScalarMult(crypto: NodeCrypto): ScalarMult {
  const keys = new Map<string, unknown>();
  // The scalar of the call before (a deck's points come one by one under one scalar): found by its bytes, no hex.
  let lastScalar: Uint8Array | null = null;
  let lastKey: unknown = null;
  const toBase64url = nodeBase64url() ?? base64url;
  return (scalar, point) => {
    let privateKey: unknown;
    if (lastScalar !== null && equal(scalar, lastScalar)) privateKey = lastKey;
    else {
      const id = hex(scalar);
      privateKey = keys.get(id);
      if (privateKey === undefined) {
        const der = new Uint8Array(48);
        der.set(PKCS8_X25519);
        der.set(scalar, 16);
        privateKey = crypto.createPrivateKey({ key: der, format: "der", type: "pkcs8" });
        if (keys.size > 64) keys.clear();
        keys.set(id, privateKey);
      }
      lastScalar = scalar.slice();
      lastKey = privateKey;
    }
    if (point.length !== 32) throw new RangeError(`an X25519 point is 32 bytes, not ${point.length}`);
    const publicKey = crypto.createPublicKey({ key: { kty: "OKP", crv: "X25519", x: toBase64url(point) }, format: "jwk" });
    return new Uint8Array(crypto.diffieHellman({ privateKey, publicKey }));
  };
}

/** node's own base64url (its Buffer), a third of the cost of base64url's string building; null where no Buffer is. */
function nodeBase64url(): ((bytes: Uint8Array) => string) | null {
  type NodeBuffer = { from(b: ArrayBufferLike, offset: number, length: number): { toString(encoding: "base64url"): string } };
  const buffer = (globalThis as { Buffer?: NodeBuffer }).Buffer;
  if (!buffer) return null;
  return (bytes) => buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64url");
}

/** `equal` by node's Buffer.compare (memcmp), for long byte strings (bytes.sameBytes); null where no Buffer is. */
export function nodeSameBytes(): ((a: Uint8Array, b: Uint8Array) => boolean) | null {
  const buffer = (globalThis as { Buffer?: { compare(a: Uint8Array, b: Uint8Array): number } }).Buffer;
  if (!buffer) return null;
  const compare = buffer.compare;
  return (a, b) => a.length === b.length && compare(a, b) === 0;
}

/** SHA-256 by node's OpenSSL: its one-shot crypto.hash where node has it (half the cost of a Hash object on a
 * message's few hundred bytes), its digest as a latin1 string (one char a byte: no Buffer to allocate and free, half
 * the cost again), else createHash. */
export function nodeSha256(crypto: NodeCrypto): (data: Uint8Array) => Uint8Array {
  return nodeDigest(crypto, "sha256", 32);
}

/** SHA-512 by node's OpenSSL, as nodeSha256 (the card encodings: cold, @noble/hashes' takes ~90 µs a hash). */
export function nodeSha512(crypto: NodeCrypto): (data: Uint8Array) => Uint8Array {
  return nodeDigest(crypto, "sha512", 64);
}

/** What nodeDigest uses of a Buffer of node's. */
interface LatinBuffer extends Uint8Array {
  latin1Write(text: string, offset: number, length: number): number;
}

function nodeDigest(crypto: NodeCrypto, algorithm: "sha256" | "sha512", size: number): (data: Uint8Array) => Uint8Array {
  const hash = crypto.hash;
  const buffer = (globalThis as unknown as { Buffer?: { alloc(size: number): LatinBuffer } }).Buffer;
  if (hash && buffer) {
    // The latin1 digest written into a Buffer by node (one call into C++) and copied out by a typed array's slice:
    // no loop over its bytes in JavaScript. The loop ran 32 times a hash (2,600 hashes in a lone node's 4-round open
    // game), enough to make V8 optimize this function, which inlines node's `hash` and its checks: a TurboFan job of
    // 7-9 ms on V8's workers in the game (docs/benchmarks.md, issue 25's twenty-fifth sitting).
    const scratch = buffer.alloc(size);
    const view = new Uint8Array(scratch.buffer, scratch.byteOffset, size);
    return (data) => {
      scratch.latin1Write(hash(algorithm, data, "latin1"), 0, size);
      return view.slice();
    };
  }
  if (hash) {
    return (data) => {
      const digest = hash(algorithm, data, "latin1");
      const out = new Uint8Array(size);
      for (let i = 0; i < size; i++) out[i] = digest.charCodeAt(i);
      return out;
    };
  }
  return (data) => new Uint8Array(crypto.createHash(algorithm).update(data).digest());
}

interface NodeFs {
  openSync(path: string, flags: "r"): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: null): number;
  closeSync(fd: number): void;
}

/** `verify` reads at most this much of a file (section 13, "Exit status"; the reference's transcript.MAX_FILE). */
export const MAX_FILE = 256 * 1024 * 1024;

/** A file's bytes, read up to MAX_FILE + 1 (/dev/zero is not read for ever); an error whose message says why past that. */
function readCapped(fs: NodeFs, path: string): Uint8Array {
  const fd = fs.openSync(path, "r");
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const chunk = new Uint8Array(Math.min(1 << 20, MAX_FILE + 1 - total));
      const got = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (got === 0) break;
      chunks.push(got === chunk.length ? chunk : chunk.subarray(0, got));
      total += got;
      if (total > MAX_FILE) throw new Error(`larger than ${MAX_FILE / (1 << 20)} MiB, which no game's transcript is`);
    }
    return concat(...chunks); // at most 257 chunks of 1 MiB
  } finally {
    fs.closeSync(fd);
  }
}

/** When this bundle is the script node runs (never in a browser): run the command line. */
export function runIfMain(moduleUrl: string): void {
  const proc = (globalThis as { process?: NodeProcess }).process;
  if (!proc?.getBuiltinModule || !proc.argv[1]) return;
  const url = proc.getBuiltinModule("node:url") as { pathToFileURL(path: string): URL };
  if (url.pathToFileURL(proc.argv[1]).href !== moduleUrl) return;
  useNodeFlags(proc.getBuiltinModule("node:v8") as Parameters<typeof useNodeFlags>[0], proc.execArgv);
  const fs = proc.getBuiltinModule("node:fs") as NodeFs;
  const crypto = proc.getBuiltinModule("node:crypto") as NodeCrypto;
  const sodium = nodeSodium();
  useScalarMult(nodeScalarMult(crypto, sodium));
  useEd25519(nodeEd25519(crypto, sodium));
  useSha256(nodeSha256(crypto));
  useSha512(nodeSha512(crypto));
  useSameBytes(nodeSameBytes() ?? equal);
  proc.exitCode = run(proc.argv.slice(2), {
    readFile: (path) => readCapped(fs, path),
    out: (text) => proc.stdout.write(`${text}\n`),
    err: (text) => proc.stderr.write(`${text}\n`),
  });
}
