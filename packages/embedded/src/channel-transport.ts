import {
  atTurnEnd,
  Carried,
  jsonOf,
  NoResponders,
  silentLogger,
  TransportClosed,
  TransportTimeout,
  type Logger,
  type Subscription,
  type Transport,
  type TransportHandler,
} from '@chat/runtime';
import { isPoll, KEPT_PARTS, PartsHeld, PartsSent, type PartMessage } from './poll-parts.js';

/**
 * What a message between two processes (or threads) goes over: a child
 * process's IPC channel (`process`, a cluster `Worker`) or a `MessagePort`
 * seen the same way. Messages are structured-cloned, so a string or a byte
 * array crosses as it is.
 */
export interface Channel {
  /**
   * Errors of a send (the channel closed: `ERR_IPC_CHANNEL_CLOSED`, or the
   * other side went away first: `EPIPE`) come to `callback`, later; without
   * one, Node emits them as an 'error' event, which ends the process.
   */
  send(message: unknown, callback: (err: Error | null) => void): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** A `Carried` message's value as JSON text (the channel copies it), or the bytes of any other. */
type Payload = { x: string } | { b: Uint8Array };

/** From the side that has no actors (an edge worker) to the side that has them. */
export type Upward =
  | ({ t: 'req'; id: number; s: string; ms: number } & Payload)
  | ({ t: 'pub'; s: string } & Payload)
  | { t: 'call'; id: number; op: string; a: unknown };

/**
 * The answers: a reply (`p`: a poll's, naming parts the worker holds), or a
 * failure by the name of its error class; and the parts of polls' answers
 * the worker is to hold or drop (`poll-parts.ts`).
 */
export type Downward =
  ({ t: 'rep'; id: number; p?: 1 } & Payload) | { t: 'err'; id: number; n: string; m: string } | PartMessage;

/**
 * Sends in batches: the messages of one turn of the event loop go as one
 * array, one write and one read on each side instead of one per message,
 * at the turn's end (before the host's next slice, `atTurnEnd`).
 * A send to a channel that has closed is dropped, as a closed connection's,
 * and logged once.
 */
function batched(channel: Channel, log: Logger): (message: unknown) => void {
  let batch: unknown[] | undefined;
  let dropped = false;
  const failed = (err: Error | null) => {
    if (!err || dropped) return;
    dropped = true;
    log.warn({ err }, 'IPC channel closed; sends to it are dropped');
  };
  const flush = () => {
    const messages = batch!;
    batch = undefined;
    try {
      channel.send(messages.length === 1 ? messages[0] : messages, failed);
    } catch (err) {
      failed(err instanceof Error ? err : new Error(String(err)));
    }
  };
  return (message) => {
    if (batch) return void batch.push(message);
    batch = [message];
    atTurnEnd(flush);
  };
}

/** Each message received, whether it came alone or in a batch. */
function onMessages(channel: Channel, listener: (message: unknown) => void): void {
  channel.on('message', (raw) => {
    if (Array.isArray(raw)) for (const message of raw) listener(message);
    else listener(raw);
  });
}

const payload = (data: Uint8Array): Payload => (data instanceof Carried ? { x: jsonOf(data.value) } : { b: data });
const unpack = (p: Payload): Uint8Array => ('x' in p ? new Carried(JSON.parse(p.x)) : p.b);

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  /** When the sweep gives up on it (`Date.now()`), if ever; its subject names it then. */
  due?: number;
  subject?: string;
  timeoutMs?: number;
  /** A long poll's ask: its answer waits its turn (`POLLS_PER_TURN`). */
  poll?: boolean;
}

/**
 * How many long polls' answers a worker hands on in one turn of its event
 * loop (each then written to its client before the next turn). A fan-out to
 * thousands of queues returns thousands of polls at once; handed on together,
 * the send's own answer (or its next ask) that came with or after them waits
 * until the last of them is written. In slices, everything else is answered
 * at once and the polls' answers go `POLLS_PER_TURN` a turn, in the order
 * they came, as the host's turns hand a fan-out to its actors
 * (`runtime/src/turns.ts`).
 */
export const POLLS_PER_TURN = 64;

/** How long past its own timeout an ask waits for the other side's answer (which times it out too). */
const QUIET_MS = 1000;
/** How often the worker looks for asks that went unanswered past that. */
const SWEEP_MS = 1000;

/**
 * A transport that sends every ask and tell over a channel to the side that
 * holds the actors (`serveChannel`): the values the runtime hands it
 * (`Carried`) cross as JSON text, and the other side hands on the value
 * parsed from it. It only sends: an edge serves no subjects.
 * `call` asks the other side's named operations (shared rate limits, the
 * actor host's figures).
 */
export class ChannelTransport implements Transport {
  readonly carriesValues = true;
  private readonly pending = new Map<number, Pending>();
  private next = 1;
  private closed = false;
  private readonly send: (message: Upward) => void;
  private readonly parts = new PartsHeld();
  /** Polls' answers and the parts they name, in the order they came, not yet handed on. */
  private lined: Downward[] = [];
  private linedHead = 0;
  /** Gives up on asks the other side left unanswered (`SWEEP_MS`); running while any ask has a due time. */
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    channel: Channel,
    log: Logger = silentLogger,
    private readonly pollsPerTurn = POLLS_PER_TURN,
  ) {
    this.send = batched(channel, log);
    onMessages(channel, (message) => this.receive(message as Downward));
  }

  request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const message: Upward =
      data instanceof Carried
        ? { t: 'req', id: 0, s: subject, ms: timeoutMs, x: jsonOf(data.value) }
        : { t: 'req', id: 0, s: subject, ms: timeoutMs, b: data };
    return this.exchange<Uint8Array>(message, timeoutMs, isPoll(data));
  }

  publish(subject: string, data: Uint8Array): void {
    if (!this.closed) this.send({ t: 'pub', s: subject, ...payload(data) });
  }

  subscribe(subject: string, _handler: TransportHandler): Subscription {
    throw new Error(`an edge worker serves no subjects (asked for ${subject})`);
  }

  /** Asks the other side's operation `op`. */
  call<T>(op: string, args: unknown): Promise<T> {
    return this.exchange<Carried>({ t: 'call', id: 0, op, a: args }).then((reply) => reply.value as T);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    for (const entry of this.pending.values()) entry.reject(new TransportClosed());
    this.pending.clear();
  }

  private exchange<T>(message: Extract<Upward, { id: number }>, timeoutMs?: number, poll = false): Promise<T> {
    if (this.closed) return Promise.reject(new TransportClosed());
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { resolve: resolve as (value: unknown) => void, reject, poll };
      // The other side times the ask out too; the sweep covers a channel that went quiet.
      if (timeoutMs !== undefined) {
        entry.due = Date.now() + timeoutMs + QUIET_MS;
        entry.subject = (message as { s: string }).s;
        entry.timeoutMs = timeoutMs;
        this.sweeper ??= setInterval(() => this.sweep(), SWEEP_MS);
      }
      this.pending.set(id, entry);
      message.id = id;
      this.send(message);
    });
  }

  /** Rejects the asks whose due time passed (one timer for all of them, not one per ask). */
  private sweep(): void {
    const now = Date.now();
    let waiting = false;
    for (const [id, entry] of this.pending) {
      if (entry.due === undefined) continue;
      if (entry.due > now) {
        waiting = true;
        continue;
      }
      this.pending.delete(id);
      entry.reject(new TransportTimeout(`no reply on ${entry.subject} within ${entry.timeoutMs} ms`));
    }
    if (!waiting) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private receive(message: Downward): void {
    const poll = message.t === 'part' || message.t === 'drop' || this.pending.get(message.id)?.poll;
    if (!poll) return this.settle(message);
    if (this.linedHead === this.lined.length) setImmediate(() => this.handOnPolls());
    this.lined.push(message);
  }

  /** Hands on `pollsPerTurn` polls' answers (and the parts they name), then the rest in a later turn. */
  private handOnPolls(): void {
    let answers = 0;
    while (this.linedHead < this.lined.length && answers < this.pollsPerTurn) {
      const message = this.lined[this.linedHead++]!;
      if (message.t !== 'part' && message.t !== 'drop') answers++;
      this.settle(message);
    }
    if (this.linedHead === this.lined.length) {
      this.lined = [];
      this.linedHead = 0;
      return;
    }
    // A line that never empties (answers coming as fast as they go) lets go of those handed on.
    if (this.linedHead >= 1024) {
      this.lined = this.lined.slice(this.linedHead);
      this.linedHead = 0;
    }
    setImmediate(() => this.handOnPolls());
  }

  private settle(message: Downward): void {
    // Parts come even for a poll that timed out here: the other side counts them held.
    if (message.t === 'part' || message.t === 'drop') return void this.parts.take(message);
    const entry = this.pending.get(message.id);
    if (!entry) return; // not a reply (the worker's own messages), or one that came too late
    this.pending.delete(message.id);
    if (message.t === 'err') entry.reject(rebuild(message.n, message.m));
    else if (message.p && 'x' in message) this.resolveWhole(entry, message.x);
    else entry.resolve('x' in message || 'b' in message ? unpack(message) : undefined);
  }

  private resolveWhole(entry: Pending, text: string): void {
    try {
      entry.resolve(this.parts.whole(text));
    } catch (err) {
      entry.reject(err as Error);
    }
  }
}

function rebuild(name: string, message: string): Error {
  if (name === 'TransportTimeout') return new TransportTimeout(message);
  if (name === 'NoResponders') return new NoResponders(message);
  if (name === 'TransportClosed') return new TransportClosed();
  return new Error(message);
}

/** The other side's operations a `ChannelTransport` may `call`. */
export type ChannelCalls = Record<string, (args: never) => Promise<unknown> | unknown>;

/**
 * Serves a `ChannelTransport` from the side that holds the actors: each ask
 * and tell goes on over `transport` (the in-process one), each reply back,
 * a long poll's naming the message parts the worker holds (`keptParts` at most).
 */
export function serveChannel(
  channel: Channel,
  transport: Transport,
  calls: ChannelCalls = {},
  log: Logger = silentLogger,
  keptParts = KEPT_PARTS,
): void {
  const send: (message: Downward) => void = batched(channel, log);
  const parts = new PartsSent(send, keptParts);
  const fail = (id: number, err: unknown) => {
    const { name, message } = err instanceof Error ? err : new Error(String(err));
    send({ t: 'err', id, n: name, m: message });
  };
  onMessages(channel, (raw) => {
    const message = raw as Upward;
    if (message.t === 'pub') {
      transport.publish(message.s, unpack(message));
    } else if (message.t === 'req') {
      const asked = unpack(message);
      const poll = isPoll(asked);
      transport.request(message.s, asked, message.ms).then(
        (reply) => send({ t: 'rep', id: message.id, ...((poll && parts.answer(reply)) || payload(reply)) }),
        (err: unknown) => fail(message.id, err),
      );
    } else if (message.t === 'call') {
      const call = calls[message.op];
      if (!call) return fail(message.id, new Error(`no operation ${message.op}`));
      Promise.resolve()
        .then(() => call(message.a as never))
        .then(
          (value) => send({ t: 'rep', id: message.id, x: JSON.stringify(value ?? null) }),
          (err: unknown) => fail(message.id, err),
        );
    }
  });
}
