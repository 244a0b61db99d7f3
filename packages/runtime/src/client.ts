import {
  ChatError,
  ENVELOPE_VERSION,
  type ActorAddress,
  type ActorType,
  type AskEnvelope,
  type Command,
  type CommandOf,
  type Protocols,
  type ReplyEnvelope,
  type ReplyOf,
} from '@chat/protocol';
import { fromWire, NoResponders, toWire, TransportClosed, TransportTimeout, type Transport } from './ports/index.js';
import { hostSubject, shardOf, shardSubject } from './shards.js';

export interface AskOptions {
  /** Defaults to the client's `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** Makes a retried command apply once. */
  idempotencyKey?: string;
  requestId?: string;
  /**
   * Called with the journal position of the newest change of the actor's
   * state that the reply reflects: a reader learns which changes (by the
   * origin of their messages, `originOf`) it has already seen.
   */
  onPosition?: (position: number) => void;
}

/*
 * The types of what crosses, read from the protocol tables (`Protocols`):
 * an address of one actor type takes that type's commands, and the reply
 * is the one its table names for the command. An address of no particular
 * type (`ActorAddress`: the runtime's own plumbing, which passes on what
 * behaviors decided) takes any command and answers `unknown`.
 */
type Untyped<T extends ActorType> = [ActorType] extends [T] ? true : false;
/** The command types an actor of type `T` takes. */
export type CommandType<T extends ActorType> = Untyped<T> extends true ? string : keyof Protocols[T] & string;
/** The command of type `K` for an actor of type `T`. */
export type CommandBody<T extends ActorType, K> =
  Untyped<T> extends true ? Command : { type: K } & CommandOf<Protocols[T], K & keyof Protocols[T]>;
/** The reply of an actor of type `T` to the command of type `K`. */
export type CommandReply<T extends ActorType, K> = Untyped<T> extends true ? unknown : ReplyOf<Protocols[T], K>;

type TellOptions = Omit<AskOptions, 'idempotencyKey'>;

/** How edges and actors reach actors: by address, never by host. */
export interface ActorClient {
  /** Resolves with the actor's reply (its type follows from the address and the command), or rejects with a `ChatError`. */
  ask<T extends ActorType, K extends CommandType<T>>(
    to: ActorAddress<T>,
    body: CommandBody<T, K>,
    opts?: AskOptions,
  ): Promise<CommandReply<T, K>>;
  /** Fire and forget: delivered at most once (actors' tells that follow a change are not: see `Outbox`). */
  tell<T extends ActorType, K extends CommandType<T>>(
    to: ActorAddress<T>,
    body: CommandBody<T, K>,
    opts?: TellOptions,
  ): void;
  /**
   * Tells `body` to every actor of `type` named in `keys`, with one message
   * per shard rather than one per actor (DESIGN.md 3.7). Fire and forget.
   */
  fanout<T extends ActorType, K extends CommandType<T>>(
    type: T,
    keys: string[],
    body: CommandBody<T, K>,
    opts?: TellOptions,
  ): void;
  /**
   * A fan-out whose receivers confirm it: resolves with the keys whose actor
   * did not confirm handling `body` in time (unreachable, overloaded, or
   * still waiting). The idempotency key lets the caller send to those again.
   */
  fanoutAsk<T extends ActorType, K extends CommandType<T>>(
    type: T,
    keys: string[],
    body: CommandBody<T, K>,
    opts: AskOptions & { idempotencyKey: string },
  ): Promise<string[]>;
}

/**
 * The same client with options added to every message (a request id, a
 * position observer), computed from the address and the command.
 */
export function withOptions(actors: ActorClient, extra: (to: ActorAddress, body: Command) => AskOptions): ActorClient {
  return typedClient(new OptionsClient(actors as UntypedActorClient, extra));
}

/** `withOptions` as one object (the edge makes one per request, a long poll one per poll: no closures each). */
class OptionsClient implements UntypedActorClient {
  constructor(
    private readonly actors: UntypedActorClient,
    private readonly extra: (to: ActorAddress, body: Command) => AskOptions,
  ) {}

  private with<T extends AskOptions>(to: ActorAddress, body: Command, opts: T | undefined): T {
    const added = this.extra(to, body);
    return (opts === undefined ? added : { ...added, ...opts }) as T;
  }

  ask(to: ActorAddress, body: Command, opts?: AskOptions): Promise<unknown> {
    return this.actors.ask(to, body, this.with(to, body, opts));
  }

  tell(to: ActorAddress, body: Command, opts?: TellOptions): void {
    this.actors.tell(to, body, this.with(to, body, opts));
  }

  fanout(type: ActorType, keys: string[], body: Command, opts?: TellOptions): void {
    this.actors.fanout(type, keys, body, this.with({ type, key: '' }, body, opts));
  }

  fanoutAsk(type: ActorType, keys: string[], body: Command, opts: AskOptions & { idempotencyKey: string }) {
    return this.actors.fanoutAsk(type, keys, body, this.with({ type, key: '' }, body, opts));
  }
}

/**
 * A client's methods with their types erased: what a wrapper or a fake
 * writes, handing every message on as it came. `typedClient` gives it the
 * typed face again.
 */
export interface UntypedActorClient {
  ask(to: ActorAddress, body: Command, opts?: AskOptions): Promise<unknown>;
  tell(to: ActorAddress, body: Command, opts?: TellOptions): void;
  fanout(type: ActorType, keys: string[], body: Command, opts?: TellOptions): void;
  fanoutAsk(
    type: ActorType,
    keys: string[],
    body: Command,
    opts: AskOptions & { idempotencyKey: string },
  ): Promise<string[]>;
}

/** The body a host answers a `fanoutAsk` with. */
export interface FanoutReply {
  failed: string[];
}

export interface TransportClientOptions {
  shardCount: number;
  defaultTimeoutMs: number;
  /**
   * The id of the host that owns a shard, when known (the shard map). A
   * fan-out then sends one message per owning host; keys of shards with no
   * known owner go to their shard's subject.
   */
  ownerOf?: (shard: number) => string | undefined;
  /**
   * Asks that find no owner (a shard being handed off, or its host dead and
   * its lease not yet taken over) wait and retry until their deadline,
   * instead of failing at once. At most `maxWaiting` asks wait at a time;
   * beyond that they fail with OVERLOADED. 0 (embedded): never wait.
   */
  maxWaiting?: number;
}

/** The reply of a host asked for a shard it does not serve (any more): the ask may go again. */
export const NOT_OWNER = 'not_owner';

/** What a host answers for an actor it does not serve (any more): the asker asks again (`TransportActorClient`). */
export const notOwnerError = () =>
  new ChatError('OVERLOADED', 'This host does not own that actor; try again', { [NOT_OWNER]: true });

/** An ask as it was sent: what each of its tries sends again. */
interface Sent {
  subject: string;
  data: Uint8Array;
  deadline: number;
  timeoutMs: number;
  opts: AskOptions;
}

const timedOut = (timeoutMs: number) => new ChatError('REQUEST_TIMEOUT', `No answer within ${timeoutMs} ms`);

/**
 * An ask whose transport closed (this process is stopping): not a fault, and not one to ask again
 * here; it says when to come back, as a full mailbox does.
 */
const stopped = () => new ChatError('OVERLOADED', 'The server is stopping; try again', { 'retry-after': 1 });

/** An untyped client (a wrapper, a fake) seen as the typed `ActorClient` it stands for. */
export const typedClient = (client: UntypedActorClient): ActorClient => client as ActorClient;

/** An `ActorClient` that routes each message to the subject of its shard. */
export class TransportActorClient implements ActorClient {
  constructor(
    private readonly transport: Transport,
    private readonly options: TransportClientOptions,
  ) {}

  private waiting = 0;

  ask<T extends ActorType, K extends CommandType<T>>(
    to: ActorAddress<T>,
    body: CommandBody<T, K>,
    opts: AskOptions = {},
  ): Promise<CommandReply<T, K>> {
    const timeoutMs = opts.timeoutMs ?? this.options.defaultTimeoutMs;
    try {
      const envelope = this.envelope('ask', to, body as Command, timeoutMs, opts);
      const subject = this.subject(to);
      const data = toWire(this.transport, envelope, subject);
      const sent: Sent = { subject, data, deadline: envelope.deadline, timeoutMs, opts };
      return this.attempt(sent, 0) as Promise<CommandReply<T, K>>;
    } catch (err) {
      // A body that cannot be written, a transport that throws: a rejection, as from an async function.
      return Promise.reject(err as Error);
    }
  }

  /**
   * One try of an ask; a host that does not own the actor (or none at all)
   * makes it wait and try again until the deadline. Promises, not an async
   * function's loop: a waiting ask (a long poll's) keeps no suspended frame.
   */
  private attempt(ask: Sent, attempt: number): Promise<unknown> {
    const left = ask.deadline - Date.now();
    if (left <= 0) return Promise.reject(timedOut(ask.timeoutMs));
    return this.transport.request(ask.subject, ask.data, left).then(
      (raw) => {
        const reply = fromWire<ReplyEnvelope>(raw);
        if (reply.ok) {
          if (reply.at !== undefined) ask.opts.onPosition?.(reply.at);
          return reply.body;
        }
        if (reply.error.extra?.[NOT_OWNER] !== true) throw ChatError.fromWire(reply.error);
        return this.again(ask, attempt);
      },
      (err: unknown) => {
        if (err instanceof TransportTimeout) throw timedOut(ask.timeoutMs);
        if (err instanceof TransportClosed) throw stopped();
        if (!(err instanceof NoResponders)) throw err;
        return this.again(ask, attempt);
      },
    );
  }

  /** After a try that found no owner: the next, once `waitForOwner` allows it. */
  private again(ask: Sent, attempt: number): Promise<unknown> {
    return this.waitForOwner(attempt, ask.deadline).then((waited) => {
      if (!waited) throw new ChatError('OVERLOADED', 'No actor host serves this request right now; try again');
      return this.attempt(ask, attempt + 1);
    });
  }

  /** Waits a little before asking again for a shard without owner; false when it should not. */
  private async waitForOwner(attempt: number, deadline: number): Promise<boolean> {
    const pause = Math.min(500, 20 * 2 ** attempt);
    if (this.waiting >= (this.options.maxWaiting ?? 0) || Date.now() + pause >= deadline) return false;
    this.waiting++;
    try {
      await new Promise((resolve) => setTimeout(resolve, pause));
      return true;
    } finally {
      this.waiting--;
    }
  }

  tell<T extends ActorType, K extends CommandType<T>>(
    to: ActorAddress<T>,
    body: CommandBody<T, K>,
    opts: TellOptions = {},
  ) {
    const timeoutMs = opts.timeoutMs ?? this.options.defaultTimeoutMs;
    const subject = this.subject(to);
    this.transport.publish(
      subject,
      toWire(this.transport, this.envelope('tell', to, body as Command, timeoutMs, opts), subject),
    );
  }

  fanout<T extends ActorType, K extends CommandType<T>>(
    type: T,
    keys: string[],
    body: CommandBody<T, K>,
    opts: TellOptions = {},
  ): void {
    const timeoutMs = opts.timeoutMs ?? this.options.defaultTimeoutMs;
    for (const [subject, group] of this.bySubject(type, keys)) {
      const envelope = this.envelope('fanout', { type, key: '' }, body as Command, timeoutMs, opts);
      envelope.keys = group;
      this.transport.publish(subject, toWire(this.transport, envelope, subject));
    }
  }

  async fanoutAsk<T extends ActorType, K extends CommandType<T>>(
    type: T,
    keys: string[],
    body: CommandBody<T, K>,
    opts: AskOptions & { idempotencyKey: string },
  ) {
    const timeoutMs = opts.timeoutMs ?? this.options.defaultTimeoutMs;
    const groups = [...this.bySubject(type, keys)].map(async ([subject, group]) => {
      const envelope = this.envelope('fanout', { type, key: '' }, body as Command, timeoutMs, opts);
      envelope.keys = group;
      try {
        const reply = fromWire<ReplyEnvelope>(
          await this.transport.request(subject, toWire(this.transport, envelope, subject), timeoutMs),
        );
        return reply.ok ? (reply.body as FanoutReply).failed : group;
      } catch (err) {
        if (err instanceof TransportTimeout || err instanceof NoResponders || err instanceof TransportClosed)
          return group;
        throw err;
      }
    });
    return (await Promise.all(groups)).flat();
  }

  /** Groups keys by the subject that reaches them: their owner's host subject, or their shard's. */
  private bySubject(type: ActorType, keys: string[]): Map<string, string[]> {
    const bySubject = new Map<string, string[]>();
    for (const key of new Set(keys)) {
      const shard = shardOf({ type, key }, this.options.shardCount);
      const owner = this.options.ownerOf?.(shard);
      const subject = owner === undefined ? shardSubject(type, shard) : hostSubject(owner);
      const group = bySubject.get(subject);
      if (group) group.push(key);
      else bySubject.set(subject, [key]);
    }
    return bySubject;
  }

  private subject(to: ActorAddress) {
    return shardSubject(to.type, shardOf(to, this.options.shardCount));
  }

  private envelope(kind: AskEnvelope['kind'], to: ActorAddress, body: Command, timeoutMs: number, opts: AskOptions) {
    const envelope: AskEnvelope = { v: ENVELOPE_VERSION, kind, to, body, deadline: Date.now() + timeoutMs };
    if (opts.idempotencyKey !== undefined) envelope.idempotencyKey = opts.idempotencyKey;
    if (opts.requestId !== undefined) envelope.requestId = opts.requestId;
    return envelope;
  }
}
