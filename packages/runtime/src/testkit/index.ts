import { ChatError, decode, encode, isChatError, type ActorAddress, type Command } from '@chat/protocol';
import type { ActorBehavior, ActorContext, AnyBehavior, Decision, TypedEvent } from '../behavior.js';
import { applyEntry } from '../cell.js';
import type { ActorClient } from '../client.js';
import { checkingValues, deepFreeze, type StoreWrite } from '../ports/index.js';
import { decodeEntry, encodeEntry, IdempotencyCache, RECORD_VERSION, type JournalEntry } from '../records.js';
import { FakeTimers } from './fake-timers.js';
import { MemoryStore } from './memory-store.js';

export { FakeTimers, MemoryStore };
export { del, put, storeContract } from './store-contract.js';

/**
 * Unit tests of one actor's rules, without a host, a transport or a
 * journal: the behavior decides, and its events go through the real
 * `apply` (and, for events of an older version, `upcast`) the way the cell
 * and recovery use them. Modelled on Akka's `EventSourcedBehaviorTestKit`.
 */
export interface KitOptions {
  /** The actor's key (default `test`). */
  key?: string;
  /** The shard the key belongs to (default 0). */
  shard?: number;
  /** The clock, in ms (default: the time the kit was made); `advance` moves it. */
  now?: number;
  /** Answers the behavior's asks to other actors (`ctx.actors.ask`); without it they are refused. */
  answer?: (to: ActorAddress, body: Command) => unknown;
}

export interface RunOptions {
  /** The key a command carries (a retry, or a message owed by another actor's change). */
  idempotencyKey?: string;
}

type Tells = NonNullable<Decision<TypedEvent>['tells']>;
type Fanouts = NonNullable<Decision<TypedEvent>['fanouts']>;

/** What one message did. */
export interface CommandResult<State, Event> {
  /** The journaled events, as decided. */
  events: Event[];
  /** The events applied without a journal record (`Decision.soft`). */
  soft: Event[];
  /** The reply as it goes on the wire (a JSON copy; null for none); undefined when held or refused. */
  reply?: unknown;
  /** The error the behavior refused the message with. */
  error?: ChatError;
  tells: Tells;
  fanouts: Fanouts;
  /** The name this message's reply is held under (`Decision.hold`). */
  hold?: string;
  /** Held replies answered by this message: only those that were held. */
  released: Array<{ name: string; reply?: unknown; error?: ChatError }>;
  /** The store rows the events wrote. */
  rows: StoreWrite[];
  /** Answered from the idempotency cache: the behavior was not asked. */
  repeated: boolean;
  /** A copy of the state after the message. */
  state: State;
}

/** Keeps one actor's state, store, timers, held replies and journal between messages. */
export class BehaviorTestKit<State extends object, Event extends TypedEvent> {
  /** The live state (as the cell holds it). */
  state: State;
  now: number;
  readonly address: ActorAddress;
  readonly shard: number;
  readonly store = new MemoryStore();
  readonly timers = new FakeTimers(() => this.now);
  /** Every journal record so far, encoded as the journal holds them. */
  readonly journal: Uint8Array[] = [];
  /** Names of the replies held now. */
  readonly held = new Set<string>();
  private readonly idem = new IdempotencyCache(1 << 16);
  private readonly actors: ActorClient;

  constructor(
    readonly behavior: ActorBehavior<State, Event>,
    options: KitOptions = {},
  ) {
    this.address = { type: behavior.type, key: options.key ?? 'test' };
    this.shard = options.shard ?? 0;
    this.now = options.now ?? Date.now();
    this.state = behavior.initial(this.address.key);
    const answer = options.answer;
    this.actors = answer
      ? { ...noActors, ask: async <R>(to: ActorAddress, body: Command) => received(copy(answer(to, body))) as R }
      : noActors;
  }

  /**
   * Applies events as if the journal held them, written by event version
   * `version` (default the behavior's own): older ones go through `upcast`.
   */
  given(events: unknown[], version = this.behavior.eventVersion): this {
    if (events.length === 0) return this;
    const bytes = encodeEntry({ rv: RECORD_VERSION, ev: version, events: events as TypedEvent[] });
    this.journal.push(bytes);
    this.store.write(applyEntry(this.any, this.state, decodeEntry(bytes, this.any), this.address));
    return this;
  }

  /** Handles one command, as the cell would. */
  run(command: Command, options: RunOptions = {}): Promise<CommandResult<State, Event>> {
    const key = options.idempotencyKey;
    if (key !== undefined && this.idem.has(key)) return Promise.resolve(this.repeat(this.idem.get(key)));
    return this.decide(() => this.behavior.handle(this.context(key), received(command)), key);
  }

  /** Fires an armed timer now. */
  async fire(name: string): Promise<CommandResult<State, Event>> {
    if (!this.timers.armed.delete(name)) throw new Error(`timer '${name}' is not armed`);
    const onTimer = this.behavior.onTimer;
    if (!onTimer) throw new Error(`${this.behavior.type} has no onTimer`);
    return this.decide(() => onTimer(this.context(), name));
  }

  /** Moves the clock and fires the timers that came due, earliest first. */
  async advance(ms: number): Promise<Array<CommandResult<State, Event>>> {
    this.now += ms;
    const results = [];
    for (let name = this.timers.due(this.now); name !== undefined; name = this.timers.due(this.now)) {
      results.push(await this.fire(name));
    }
    return results;
  }

  /** Calls `onActivate`, as a cell coming to life does (after `given`, it sees the given state). */
  activate(): this {
    this.behavior.onActivate?.(this.context());
    return this;
  }

  /** Calls `atRest`, as passivation or a graceful stop does just before the last snapshot. */
  rest(): this {
    this.behavior.atRest?.(this.state);
    return this;
  }

  /** The state that replaying the journal alone gives, as recovery would. */
  replay(): State {
    const state = this.behavior.initial(this.address.key);
    for (const bytes of this.journal) applyEntry(this.any, state, decodeEntry(bytes, this.any), this.address);
    return state;
  }

  private get any(): AnyBehavior {
    return this.behavior as unknown as AnyBehavior;
  }

  private context(idempotencyKey?: string): ActorContext<State> {
    return {
      idempotencyKey,
      address: this.address,
      shard: this.shard,
      state: this.state,
      now: this.now,
      store: this.store,
      timers: this.timers,
      holding: (name) => this.held.has(name),
      actors: this.actors,
    };
  }

  private async decide(
    handle: () => Decision<Event> | Promise<Decision<Event>>,
    key?: string,
  ): Promise<CommandResult<State, Event>> {
    let decision: Decision<Event>;
    try {
      decision = await handle();
    } catch (err) {
      if (!isChatError(err)) throw err;
      return { ...this.nothing(), error: err };
    }
    const events = decision.events ?? [];
    const tells = decision.tells ?? [];
    const fanouts = decision.fanouts ?? [];
    let rows: StoreWrite[] = [];
    if (events.length > 0) {
      const entry: JournalEntry = { rv: RECORD_VERSION, ev: this.behavior.eventVersion, events };
      if (key !== undefined) Object.assign(entry, { idem: key, reply: decision.reply ?? null });
      if (tells.length + fanouts.length > 0) entry.out = [...tells, ...fanouts];
      this.journal.push(encodeEntry(entry));
      if (key !== undefined) this.idem.set(key, entry.reply);
      // The cell applies a copy when values cross (`copied` in cell.ts): the state keeps nothing of the message.
      const applied = checkingValues() ? { ...entry, events: copy(events) } : entry;
      rows = applyEntry(this.any, this.state, applied, this.address);
      this.store.write(rows);
    }
    for (const event of checkingValues() ? copy(decision.soft ?? []) : (decision.soft ?? [])) {
      this.behavior.apply(this.state, event);
    }
    // As the cell: a soft change under a key, with no record, is remembered in memory (`Change.remember`).
    if (events.length === 0 && key !== undefined && (decision.soft?.length ?? 0) > 0)
      this.idem.set(key, decision.reply ?? null);
    const released = (decision.release ?? []).filter(({ name }) => this.held.delete(name)).map(wire);
    if (decision.hold !== undefined) {
      // The cell answers a reply still held under the name as unavailable.
      if (this.held.has(decision.hold)) released.push({ name: decision.hold, error: unavailable() });
      this.held.add(decision.hold);
    }
    return {
      events,
      soft: decision.soft ?? [],
      reply: decision.hold === undefined ? copy(decision.reply ?? null) : undefined,
      tells,
      fanouts,
      hold: decision.hold,
      released,
      rows,
      repeated: false,
      state: copy(this.state),
    };
  }

  private repeat(reply: unknown): CommandResult<State, Event> {
    return { ...this.nothing(), reply: copy(reply ?? null), repeated: true };
  }

  private nothing(): CommandResult<State, Event> {
    return {
      events: [],
      soft: [],
      tells: [],
      fanouts: [],
      released: [],
      rows: [],
      repeated: false,
      state: copy(this.state),
    };
  }
}

/**
 * One command on an actor whose journal holds `given` (events of the
 * behavior's current version; use `BehaviorTestKit.given` for older ones).
 */
export function runCommand<State extends object, Event extends TypedEvent>(
  behavior: ActorBehavior<State, Event>,
  given: Event[],
  command: Command,
  options: KitOptions & RunOptions = {},
): Promise<CommandResult<State, Event>> {
  return new BehaviorTestKit(behavior, options).given(given).run(command, options);
}

const copy = <T>(value: T): T => decode<T>(encode(value));

/**
 * A message as a behavior receives it in the embedded server: in the check
 * mode (`CHAT_CHECK_VALUES=1`) a frozen copy, as the transport hands it
 * over, so a behavior that changes what it received throws here too.
 */
function received<T>(value: T): T {
  if (!checkingValues()) return value;
  const frozen = copy(value);
  deepFreeze(frozen);
  return frozen;
}

const wire = ({ name, reply, error }: { name: string; reply?: unknown; error?: ChatError }) =>
  error ? { name, error } : { name, reply: copy(reply ?? null) };

const unavailable = () => new ChatError('OVERLOADED', 'The change could not be recorded; try again');

const noActors: ActorClient = {
  ask: () => Promise.reject(new Error('no other actors in a behavior test: decide tells instead')),
  tell: () => {},
  fanout: () => {},
  fanoutAsk: () => Promise.reject(new Error('no other actors in a behavior test')),
};
