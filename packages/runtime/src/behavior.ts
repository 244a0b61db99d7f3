import {
  ChatError,
  type ActorAddress,
  type ActorType,
  type Command,
  type CommandOf,
  type Protocols,
  type ReplyOf,
} from '@chat/protocol';
import type { ActorClient } from './client.js';
import type { ScanOptions, StoreKey, StoreRow, StoreWrite } from './ports/index.js';

/**
 * A message to one actor, typed by its protocol table (`P` maps actor types
 * to tables; tests of the runtime itself pass their own).
 */
export type Tell<P = Protocols> = {
  [T in keyof P & ActorType]: { to: ActorAddress<T>; body: CommandOf<P[T]> };
}[keyof P & ActorType];

/** One body to many actors of one type (`ActorClient.fanout`). */
export type Fanout<P = Protocols> = {
  [T in keyof P & ActorType]: { type: T; keys: string[]; body: CommandOf<P[T]> };
}[keyof P & ActorType];

/** What an actor decided to do with one message. */
export interface Decision<Event, Reply = unknown, P = Protocols> {
  /** State changes to record. They are applied only once durable. */
  events?: Event[];
  /**
   * State changes applied at once but not journaled: they reach the store
   * only with the actor's next snapshot (checkpoint or passivation), and a
   * crash may forget them. Only for changes nobody can tell were lost (an
   * event queue's acknowledgement, which every poll repeats), and which
   * later events apply the same with or without. They write no rows.
   */
  soft?: Event[];
  reply?: Reply;
  /** Messages to other actors, sent after the events are durable. */
  tells?: Array<Tell<P>>;
  /** Like tells, one message per shard for many actors of one type (`ActorClient.fanout`). */
  fanouts?: Array<Fanout<P>>;
  /**
   * Keeps this message's reply open under a name instead of answering now
   * (a long poll). Only asks can be held; release a name before holding it
   * again (an older reply still held is answered as unavailable). Held replies live in memory only: a host that
   * dies leaves its askers to time out and retry.
   */
  hold?: string;
  /** Answers held replies, in order, once this decision's events are durable: a reply or an error. */
  release?: Array<{ name: string; reply?: unknown; error?: ChatError }>;
  /**
   * Hands this decision's values over without the cell's copies (`copied` in
   * `cell.ts`), for the hot paths of delivery: the behavior vouches that
   * nothing it sends is a part of its state that `apply` changes in place,
   * and that `apply` never changes an object its events hold (it may keep
   * them, and parts of the messages it received, as they are). Check mode
   * (`CHAT_CHECK_VALUES=1`) freezes what crosses the transport, so a change
   * of a shared value throws there.
   */
  uncopied?: true;
}

/** Read access to the store, for actors whose state does not fit in memory. */
export interface StoreReader {
  get(key: StoreKey): Promise<Uint8Array | undefined>;
  getMany?(keys: StoreKey[]): Promise<Array<Uint8Array | undefined>>;
  scan(table: string, partition: string, opts?: ScanOptions): AsyncIterable<StoreRow>;
}

/** Timers belong to one actor: they fire into its mailbox and die with it. */
export interface Timers {
  /** (Re)arms the named timer. */
  set(name: string, delayMs: number): void;
  cancel(name: string): void;
  has(name: string): boolean;
}

export interface ActorContext<State> {
  readonly address: ActorAddress;
  /**
   * The key the message came with, if any: for a message owed by another
   * actor's change, `originOf` tells which change (see `outgoingKey`).
   */
  readonly idempotencyKey?: string;
  /** The shard the address belongs to. */
  readonly shard: number;
  /** Read-only during `handle`: change state by returning events. */
  readonly state: Readonly<State>;
  /** Wall-clock time at which this message started processing (ms). */
  readonly now: number;
  readonly store: StoreReader;
  readonly timers: Timers;
  /** Whether a reply is held under this name (see `Decision.hold`). */
  holding(name: string): boolean;
  /**
   * For asks to other actors from `handle`. An actor never holds a
   * half-applied change while it waits (state changes only after `handle`
   * returns), but two actors asking each other would deadlock until the
   * deadline: prefer `Decision.tells`.
   */
  readonly actors: ActorClient;
}

export interface TypedEvent {
  type: string;
}

/**
 * The behavior of one actor type. `handle` decides; `apply` evolves. `apply`
 * must be deterministic (timestamps and ids travel inside events) because the
 * same events rebuild the state on recovery.
 */
export interface ActorBehavior<State, Event extends TypedEvent = TypedEvent, P = Protocols> {
  readonly type: ActorType;
  /** Version of the event shapes written now; stored with every record. */
  readonly eventVersion: number;
  initial(key: string): State;
  /** Usually `handlerTable(...)`: one handler per command of the actor's protocol table. */
  handle(
    ctx: ActorContext<State>,
    command: Command,
  ): Decision<Event, unknown, P> | Promise<Decision<Event, unknown, P>>;
  /** Applies one durable event to the state, in place. */
  apply(state: State, event: Event): void;
  /** Rows an applied event writes to the store (idempotent puts and deletes). */
  rows?(state: Readonly<State>, event: Event, address: ActorAddress): StoreWrite[];
  onTimer?(ctx: ActorContext<State>, name: string): Decision<Event, unknown, P> | Promise<Decision<Event, unknown, P>>;
  /** Called when the actor comes to life (first use, or after passivation). */
  onActivate?(ctx: ActorContext<State>): void;
  /**
   * Called on the state just before the snapshot that takes the actor out of
   * memory (passivation, or a graceful stop's last checkpoint): nothing changes
   * it after that save, so soft changes in it are complete. A crash gives no
   * such call; the next `onActivate` can tell the two apart by what this marks.
   */
  atRest?(state: State): void;
  /** False keeps the actor in memory even when idle. */
  canPassivate?(state: Readonly<State>): boolean;
  /**
   * Soft changes are saved only at rest (`atRest`): a periodic checkpoint
   * writes the actor's snapshot only for a journaled change. For state a crash
   * may lose whole (an event queue, which then comes back as collected), where
   * a snapshot that recovery would not trust is pure cost.
   */
  softUntilRest?: boolean;
  /**
   * How many idempotency keys each actor remembers, instead of the host's
   * `idempotencyCapacity`: more for actors that receive many owed messages
   * from many senders, since a sender that recovers sends again everything
   * since its last checkpoint.
   */
  idempotencyCapacity?: number;
  /** Turns an event written by an older `eventVersion` into the current shape. */
  upcast?(event: unknown, version: number): Event;
}

/** A behavior with its types erased, so that one host can hold many. */
export type AnyBehavior = ActorBehavior<object, TypedEvent>;

/** What a handler returns: a decision whose reply is the one the protocol table names. */
export type Decided<Event, Reply> = Decision<Event, Reply> | Promise<Decision<Event, Reply>>;

/**
 * A behavior's commands as a table: one handler per command type of the
 * protocol table `P`, each given its own command and bound to its reply, so
 * a missing or mistyped handler does not compile. Parts of an actor (groups,
 * folders, ...) write tables for parts of its protocol, and the behavior
 * spreads them into one.
 */
export type Handlers<State, Event, P> = {
  [K in keyof P]: (ctx: ActorContext<State>, command: CommandOf<P, K>) => Decided<Event, ReplyOf<P, K>>;
};

/**
 * The `handle` of a behavior made of a handler table: the command's `type`
 * picks its handler. `before` runs first for every command (a check all of
 * them share). A type the table does not know is refused.
 */
export function handlerTable<State, Event, P>(
  handlers: Handlers<State, Event, P>,
  before?: (ctx: ActorContext<State>, command: CommandOf<P>) => void,
): (ctx: ActorContext<State>, command: Command) => Decided<Event, unknown> {
  const table = handlers as Record<string, (ctx: ActorContext<State>, command: Command) => Decided<Event, unknown>>;
  return (ctx, command) => {
    const handler = Object.hasOwn(table, command.type) ? table[command.type] : undefined;
    if (!handler) throw new ChatError('BAD_REQUEST', `Unknown command ${command.type}`);
    before?.(ctx, command as CommandOf<P>);
    return handler(ctx, command);
  };
}

/** The rows of `keys`, in order: one read where the store has `getMany` (LevelDB's), else one `get` each. */
export function readMany(store: StoreReader, keys: StoreKey[]): Promise<Array<Uint8Array | undefined>> {
  return store.getMany ? store.getMany(keys) : Promise.all(keys.map((key) => store.get(key)));
}
