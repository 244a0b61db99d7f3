import { formatAddress, isRetriable, type ActorAddress, type ActorType, type Command } from '@chat/protocol';
import type { ActorClient } from './client.js';
import type { Logger } from './logger.js';

/** A message an actor owes others because of a change it recorded: a tell, or a fan-out. */
export type Outgoing = { to: ActorAddress; body: Command } | { type: ActorType; keys: string[]; body: Command };

interface Pending {
  item: Outgoing;
  sending: boolean;
  attempts: number;
  /** When it may be sent again (ms since the epoch). */
  dueAt: number;
}

export interface OutboxOptions {
  /** How long one attempt waits for the receivers' confirmation. */
  timeoutMs: number;
  /** First pause before sending again; it doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
}

/**
 * The messages a partition's actors owe others, until their receivers
 * confirm them. Each has a key derived from the journal record that owes it
 * (see `outgoingKey`), sent as the message's idempotency key: receivers
 * apply a message once however often it comes. The partition saves what is
 * still unconfirmed with each checkpoint and finds the rest in the journal,
 * so a crash between a change and its tells only delays them.
 */
export class Outbox {
  private readonly pending = new Map<string, Pending>();
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;

  constructor(
    private readonly actors: ActorClient,
    private readonly log: Logger,
    private readonly options: OutboxOptions,
  ) {
    this.retryMs = options.retryMs ?? 500;
    this.maxRetryMs = options.maxRetryMs ?? 30_000;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Owes `item` under `key`; sends it now unless `send` is false (recovery sends later, with `flush`). */
  add(key: string, item: Outgoing, send = true): void {
    if (this.closed || this.pending.has(key)) return;
    this.pending.set(key, { item, sending: false, attempts: 0, dueAt: 0 });
    if (send) this.send(key);
  }

  /** Sends every owed message that is due and not on its way. */
  flush(now = Date.now()): void {
    let next = Infinity;
    for (const [key, p] of this.pending) {
      if (p.sending) continue;
      if (p.dueAt <= now) this.send(key);
      else next = Math.min(next, p.dueAt);
    }
    if (next < Infinity) this.wakeAt(next);
  }

  /** What is still owed, for a checkpoint. */
  entries(): Array<[string, Outgoing]> {
    return [...this.pending].map(([key, p]) => [key, p.item]);
  }

  /** Forgets everything and stops: the partition was dropped or is rebuilt. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.pending.clear();
  }

  private send(key: string): void {
    const p = this.pending.get(key)!;
    p.sending = true;
    p.attempts++;
    void sendOwed(this.actors, this.log, key, p.item, this.options.timeoutMs).then((failed) =>
      this.settle(key, p, failed),
    );
  }

  private settle(key: string, p: Pending, failed: string[]): void {
    if (this.closed || this.pending.get(key) !== p) return;
    p.sending = false;
    if (failed.length === 0) {
      this.pending.delete(key);
      return;
    }
    if ('keys' in p.item) p.item = { ...p.item, keys: failed };
    p.dueAt = Date.now() + Math.min(this.maxRetryMs, this.retryMs * 2 ** (p.attempts - 1));
    if (p.attempts === 5) this.log.warn({ key, body: p.item.body.type }, 'an owed message is still unconfirmed');
    this.wakeAt(p.dueAt);
  }

  /** One timer for the earliest retry. */
  private wakeAt(at: number): void {
    if (this.closed || at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.flush();
    }, at - Date.now());
    this.timer.unref();
  }
}

/**
 * Sends one owed message under its idempotency key and resolves with the
 * receivers that did not confirm it ('' for a tell): empty when done. A
 * receiver that answers with an error other than "try again" handled it.
 */
export async function sendOwed(
  actors: ActorClient,
  log: Logger,
  key: string,
  item: Outgoing,
  timeoutMs: number,
): Promise<string[]> {
  try {
    if ('keys' in item)
      return await actors.fanoutAsk(item.type, item.keys, item.body, { idempotencyKey: key, timeoutMs });
    await actors.ask(item.to, item.body, { idempotencyKey: key, timeoutMs });
    return [];
  } catch (err) {
    if (isRetriable(err)) return 'keys' in item ? item.keys : [''];
    log.warn({ err, key, body: item.body.type }, 'a receiver refused an owed message');
    return [];
  }
}

/**
 * The idempotency key of the `index`-th message owed by the record at
 * `position` of the partition of `actor`. It names the actor and position
 * that caused the message, so a receiver can tell whether a read it was
 * given (`AskOptions.onPosition`) already saw that change; see `originOf`.
 */
export const outgoingKey = (actor: ActorAddress, position: number, index: number) =>
  `o:${formatAddress(actor)}@${position}:${index}`;

/**
 * The actor and journal position whose change a message delivered under
 * `key` comes from: the record that owed it, also when relays passed it on
 * (their keys keep the original as prefix, see `relayKeys`). Undefined for
 * keys of other kinds.
 */
export function originOf(key: string | undefined): { actor: string; position: number } | undefined {
  const match = key === undefined ? null : /^o:(.+)@(\d+):\d+(?:>|$)/.exec(key);
  return match ? { actor: match[1]!, position: Number(match[2]) } : undefined;
}

/**
 * Keys for the messages an actor passes on while it handles a message that
 * carried `key` without changing state (a relay): derived from `key` and the
 * receiver, so that a repeated delivery repeats the same keys downstream.
 */
export function relayKeys(key: string, items: Outgoing[]): string[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const target = 'to' in item ? `${item.to.type}:${item.to.key}` : `${item.type}*`;
    const n = seen.get(target) ?? 0;
    seen.set(target, n + 1);
    return `${key}>${target}#${n}`;
  });
}
