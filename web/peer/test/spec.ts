/** protocol.md's vector blocks (```json NAME), read from the spec itself: the TypeScript tests check every one. */
import { readFileSync } from "node:fs";
import path from "node:path";

export function protocolPath(): string {
  return process.env["P2PNIMMT_PROTOCOL_MD"] ?? path.resolve(process.cwd(), "..", "..", "protocol.md");
}

let blocks: Map<string, unknown> | undefined;

export function vectorBlocks(): Map<string, unknown> {
  if (blocks) return blocks;
  const text = readFileSync(protocolPath(), "utf8");
  const found = new Map<string, unknown>();
  const fence = /^```json ([a-z0-9-]+)\n([\s\S]*?)^```$/gm;
  for (const match of text.matchAll(fence)) found.set(match[1] as string, JSON.parse(match[2] as string));
  blocks = found;
  return found;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function vector(name: string): any {
  const value = vectorBlocks().get(name);
  if (value === undefined) throw new Error(`protocol.md has no vector block ${name}`);
  return value;
}
