import { checkResponse, type ChatClient, type Reply } from '@chat/testkit';
import type { Kind, Ledger, Register, SentMessage } from './crash-ledger.js';

/** One development user writing in the crash loop, with what only they write. */
export interface Writer {
  name: string;
  email: string;
  id: number;
  apiKey: string;
  language: Register<string>;
  fullName: Register<string>;
  status: Register<string>;
  /** By channel name. */
  subscriptions: Map<string, Register<boolean>>;
  /** By content token. */
  drafts: Map<string, { fate: SentMessage['fate']; id?: number }>;
  seq: number;
}

export interface World {
  ledger: Ledger;
  writers: Writer[];
  /** Where channel messages go; every writer stays subscribed. */
  channel: { name: string; id: number };
  /** Channels writers join and leave, by name, with their ids. */
  toggles: Map<string, number>;
  rng: () => number;
  round: number;
  /** Error replies by code: the server refused a write (not expected, but not a loss). */
  refusals: Map<string, number>;
}

export type Body = Record<string, unknown>;
export type Op = (world: World, me: Writer, client: ChatClient) => Promise<void>;

/**
 * Sends one write and records its outcome. A success is acknowledged (its
 * body checked against the reference); no answer at all is the kill; an
 * error reply is counted apart. Both of the latter leave the write unsure.
 */
export async function attempt(
  world: World,
  kind: Kind,
  reference: [method: string, path: string],
  send: () => Promise<Reply<Body>>,
  outcome: { acked(body: Body): void; unsure(): void },
): Promise<void> {
  let reply: Reply<Body>;
  try {
    reply = await send();
  } catch {
    world.ledger.tally[kind].unanswered++;
    outcome.unsure();
    return;
  }
  if (reply.status !== 200) {
    world.ledger.tally[kind].refused++;
    const code = `${kind}: ${reply.body.code ?? reply.status} ${reply.body.msg}`;
    world.refusals.set(code, (world.refusals.get(code) ?? 0) + 1);
    outcome.unsure();
    return;
  }
  const check = checkResponse(reference[0], reference[1], 200, reply.body);
  if (!check.ok) world.ledger.violation(`${reference.join(' ')}: ${check.errors.join('; ')}`);
  world.ledger.tally[kind].acked++;
  outcome.acked(reply.body);
}

export const nextToken = (world: World, me: Writer, prefix: string) => `${prefix}${world.round}.${me.name}.${++me.seq}`;

/** A small seeded PRNG (mulberry32), so that a failing run's choices can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rng: () => number, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
