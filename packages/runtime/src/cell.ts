import { formatAddress, isChatError } from '@chat/protocol';
import type { ActorAddress, AskEnvelope, ReplyEnvelope } from '@chat/protocol';
import type { ActorContext, AnyBehavior, Decision, StoreReader, TypedEvent } from './behavior.js';
import { notOwnerError, type ActorClient } from './client.js';
import type { Logger } from './logger.js';
import { Mailbox } from './mailbox.js';
import { relayKeys, type Outgoing } from './outbox.js';
import {
  internal,
  ok,
  planDecision,
  planFailure,
  planIntake,
  replyError,
  stopping,
  unavailable,
  type Answer,
  type Change,
} from './plan.js';
import { copyJson, FencedError, JsonText, type StoreWrite } from './ports/index.js';
import { IdempotencyCache, type JournalEntry, type Snapshot } from './records.js';
import { ActorTimers } from './timers.js';

/** An append issued: `durable` resolves with its journal position once it is durable. */
export interface Issued {
  durable: Promise<number>;
}

export type Delivery =
  | { kind: 'message'; envelope: AskEnvelope; respond?: (reply: ReplyEnvelope) => void }
  | { kind: 'timer'; name: string };

/** What a cell needs from its host. */
export interface CellHost {
  readonly store: StoreReader;
  readonly actors: ActorClient;
  readonly log: Logger;
  readonly idempotencyCapacity: number;
  /** How long a relayed message waits for its receivers' confirmation. */
  readonly outboxTimeoutMs: number;
  /** Issues the entry's append, calling `apply` as it does; see `Partition.issue`. */
  issue(cell: ActorCell, entry: JournalEntry, apply: () => StoreWrite[]): Issued | Promise<Issued>;
  loadSnapshot(address: ActorAddress): Promise<Snapshot | undefined>;
  /** The cell's state changed without a journal entry (`Decision.soft`): its next snapshot must save it. */
  changedSoftly(cell: ActorCell): void;
  /** Sends what a relay passes on under `key`; resolves with the receivers that did not confirm it (`sendOwed`). */
  relayOwed(key: string, item: Outgoing): Promise<string[]>;
  /** What the cell sends goes as values in this process (`Transport.carriesValues`), not as JSON. */
  readonly carriesValues?: boolean;
}

/**
 * One live actor: its state, its bounded mailbox and its timers. Messages are
 * processed strictly one at a time; state changes only after its events are
 * durable, and the reply is sent only then.
 */
export class ActorCell {
  state!: object;
  /** Journal position of the last record applied to `state`. */
  position = -1;
  lastActive = Date.now();
  /** Activation failed (e.g. the store refused the key): `state` was never set, so the host drops the cell. */
  activationFailed = false;
  /** Activation is done (`ready` has resolved). */
  private activated = false;
  private idem: IdempotencyCache;
  readonly timers: ActorTimers;
  private readonly mailbox: Mailbox<Delivery>;
  private readonly ready: Promise<void>;
  private stopped = false;
  /** The tail of the chain of replies waiting for their entries to be durable. */
  private replies: Promise<void> = Promise.resolve();
  private readonly log: Logger;
  private pendingReplies = 0;
  /** Replies kept open by `Decision.hold`, by name. */
  private readonly holds = new Map<string, (reply: ReplyEnvelope) => void>();
  /** The durable position of the last entry issued: what a decision made after it has seen. */
  private lastIssued: Promise<number> | undefined;

  constructor(
    readonly address: ActorAddress,
    readonly behavior: AnyBehavior,
    /** The shard the address hashes to. */
    readonly shard: number,
    private readonly host: CellHost,
    mailboxCapacity: number,
  ) {
    this.log = host.log.child({ actor: formatAddress(address) });
    this.idem = new IdempotencyCache(behavior.idempotencyCapacity ?? host.idempotencyCapacity);
    this.timers = new ActorTimers((name) => this.mailbox.offer({ kind: 'timer', name }));
    this.mailbox = new Mailbox(mailboxCapacity, (d) => this.process(d));
    this.ready = this.activate();
    // Also marks the rejection handled for a cell nobody has sent a message yet.
    this.ready.catch(() => (this.activationFailed = true));
  }

  /** Queues a delivery; false when the mailbox is full. */
  offer(delivery: Delivery): boolean {
    return !this.stopped && this.mailbox.offer(delivery);
  }

  /** Activation is over (or failed), nothing waits in the mailbox and no reply is owed. */
  get idle(): boolean {
    return (
      (this.activated || this.activationFailed) &&
      !this.mailbox.busy &&
      this.mailbox.size === 0 &&
      this.pendingReplies === 0 &&
      this.holds.size === 0
    );
  }

  /**
   * Resolves once the actor is activated (or failed to be), its mailbox is
   * empty and every reply but the held ones has gone out. A cell woken with
   * no message (a resident actor after a restart) has an idle mailbox while
   * it still reads its snapshot: a stop must not put its missing state to rest.
   */
  async whenIdle(): Promise<void> {
    await this.ready.catch(() => undefined);
    do {
      await this.mailbox.whenIdle();
      await this.replies;
    } while (this.mailbox.busy || this.mailbox.size > 0 || this.pendingReplies > 0);
  }

  /** The state as of journal `position`, which the caller vouches for. */
  snapshot(position: number): Snapshot {
    return { rv: 1, position, state: this.state, idem: this.idem.toJSON() };
  }

  /** Stops timers and refuses further deliveries; held replies are answered as unavailable. */
  stop(): void {
    this.stopped = true;
    this.timers.clear();
    for (const respond of this.holds.values()) respond(replyError(stopping()));
    this.holds.clear();
  }

  private async activate(): Promise<void> {
    const snapshot = await this.host.loadSnapshot(this.address);
    if (snapshot) {
      this.state = snapshot.state;
      this.position = snapshot.position;
      this.idem = IdempotencyCache.from(
        snapshot.idem,
        this.behavior.idempotencyCapacity ?? this.host.idempotencyCapacity,
      );
    } else {
      this.state = this.behavior.initial(this.address.key);
    }
    this.behavior.onActivate?.(this.context());
    this.activated = true;
  }

  private context(idempotencyKey?: string): ActorContext<object> {
    return {
      idempotencyKey,
      address: this.address,
      shard: this.shard,
      state: this.state,
      now: Date.now(),
      store: this.host.store,
      timers: this.timers,
      holding: (name) => this.holds.has(name),
      actors: this.host.actors,
    };
  }

  /**
   * Handles one delivery. It returns a promise only when the mailbox must
   * wait: activation, a behavior that decides asynchronously, or an append
   * that waits for a checkpoint. Otherwise everything is done when it
   * returns (replies owed later are chained in `replies`), and the mailbox
   * goes on at once.
   */
  private process(delivery: Delivery): Promise<void> | void {
    if (!this.activated) return this.processActivated(delivery);
    if (this.stopped) {
      // Dropped with its partition: the asker may retry on the rebuilt actor.
      if (delivery.kind === 'message') delivery.respond?.(replyError(unavailable()));
      return;
    }
    this.lastActive = Date.now();
    if (delivery.kind === 'timer') {
      return this.run(() => this.behavior.onTimer!(this.context(), delivery.name), undefined);
    }
    const { envelope, respond } = delivery;
    const answer = planIntake(envelope, Date.now(), this.idem);
    if (answer) return this.answer(answer, respond);
    const key = envelope.idempotencyKey;
    return this.run(() => this.behavior.handle(this.context(key), envelope.body), respond, key, envelope.requestId);
  }

  private async processActivated(delivery: Delivery): Promise<void> {
    try {
      await this.ready;
    } catch (err) {
      this.log.error({ err }, 'actor failed to activate');
      if (delivery.kind === 'message') delivery.respond?.(replyError(internal()));
      return;
    }
    return this.process(delivery);
  }

  /** Decides one message, plans what to do about it (`plan.ts`) and does it. */
  private run(
    decide: () => Decision<TypedEvent> | Promise<Decision<TypedEvent>>,
    respond: ((reply: ReplyEnvelope) => void) | undefined,
    idempotencyKey?: string,
    requestId?: string,
  ): Promise<void> | void {
    let decided: Decision<TypedEvent> | Promise<Decision<TypedEvent>>;
    try {
      decided = decide();
    } catch (err) {
      return this.failed(err, respond, requestId);
    }
    // Most behaviors decide at once: waited for only when it is a promise.
    if (decided instanceof Promise) {
      return decided.then(
        (decision) => this.decided(decision, respond, idempotencyKey, requestId),
        (err: unknown) => this.failed(err, respond, requestId),
      );
    }
    return this.decided(decided, respond, idempotencyKey, requestId);
  }

  private decided(
    decision: Decision<TypedEvent>,
    respond: ((reply: ReplyEnvelope) => void) | undefined,
    idempotencyKey: string | undefined,
    requestId: string | undefined,
  ): Promise<void> | void {
    try {
      if (this.host.carriesValues && !decision.uncopied) decision = copied(decision);
    } catch (err) {
      return this.failed(err, respond, requestId);
    }
    const plan = planDecision(decision, {
      eventVersion: this.behavior.eventVersion,
      idempotencyKey,
      asked: respond !== undefined,
      holding: (name) => this.holds.has(name),
      pendingReplies: this.pendingReplies,
    });
    return this.execute(plan, respond, requestId);
  }

  private failed(err: unknown, respond: ((reply: ReplyEnvelope) => void) | undefined, requestId?: string): void {
    if (!isChatError(err)) this.log.error({ err, requestId }, 'actor failed to handle a message');
    this.answer(planFailure(err), respond);
  }

  private answer(plan: Answer, respond: ((reply: ReplyEnvelope) => void) | undefined): void {
    if (plan.when === 'now') respond?.(plan.reply);
    else this.afterPrevious(respond, async () => plan.reply);
  }

  /**
   * Carries out a decision. Its events are applied as their append is
   * issued, so the next message can be decided while they become durable;
   * its reply (and its tells) wait for that, and for every reply before it,
   * so that no one ever sees a change that could still be lost.
   */
  private execute(
    plan: Change,
    asker: ((reply: ReplyEnvelope) => void) | undefined,
    requestId: string | undefined,
  ): Promise<void> | void {
    const entry = plan.entry;
    if (!entry) return this.carryOut(plan, asker, requestId, undefined);
    let issued: Issued | Promise<Issued>;
    try {
      issued = this.host.issue(this, entry, () => this.applyEntry(entry));
    } catch (err) {
      return this.refused(err, asker, requestId);
    }
    if (issued instanceof Promise) {
      return issued.then(
        ({ durable }) => this.carryOut(plan, asker, requestId, durable),
        (err: unknown) => this.refused(err, asker, requestId),
      );
    }
    return this.carryOut(plan, asker, requestId, issued.durable);
  }

  /** The append was not issued, so not applied: the caller may retry with the same key. */
  private refused(err: unknown, asker: ((reply: ReplyEnvelope) => void) | undefined, requestId: string | undefined) {
    this.log.error({ err, requestId }, 'journal append refused');
    // The lease ran out (or the journal was taken over) after this host took the message, so no next owner
    // heard it: the asker is told at once, not behind earlier replies, to ask the shard's owner again.
    if (err instanceof FencedError) asker?.(replyError(notOwnerError().toWire()));
    else this.afterPrevious(asker, async () => replyError(unavailable()));
  }

  /** The rest of `execute`, once the decision's entry (if any) is issued. */
  private carryOut(
    plan: Change,
    asker: ((reply: ReplyEnvelope) => void) | undefined,
    requestId: string | undefined,
    durable: Promise<number> | undefined,
  ): void {
    if (plan.soft.length > 0) {
      for (const event of plan.soft) this.behavior.apply(this.state, event);
      if (plan.remember !== undefined) this.idem.set(plan.remember, plan.reply);
      this.host.changedSoftly(this);
    }
    // The newest change this decision saw: its own, or the last one issued before it.
    const seen = durable ?? this.lastIssued;
    if (durable) this.lastIssued = durable;
    // Held and released replies change hands now, so that the next message
    // already sees them; they are answered when this plan's answer is due.
    const released = plan.release.flatMap(({ name, answer }) => {
      const held = this.holds.get(name);
      this.holds.delete(name);
      return held ? [{ held, answer }] : [];
    });
    if (plan.hold !== undefined && asker) {
      // The behavior should have released it; never leave an asker hanging.
      this.holds.get(plan.hold)?.(replyError(unavailable()));
      this.holds.set(plan.hold, asker);
    }
    const respond = plan.answer === 'reply' ? asker : undefined;
    // A relay's confirmation waits for what it passes on, outside the chain of replies.
    const relay = plan.answer === 'relay' ? asker : undefined;
    const pass = () => {
      if (plan.pass?.how === 'once') this.tellOnce(plan.pass.out, requestId);
      else if (plan.pass) this.relay(plan.pass.key, plan.pass.out, plan.reply, relay);
    };
    if (plan.when === 'now') {
      for (const { held, answer } of released) held(this.stopped ? replyError(unavailable()) : answer);
      pass();
      respond?.(this.stopped ? replyError(unavailable()) : ok(plan.reply, this.position));
      return;
    }
    // A reply may share objects with the state (a read's answer). It waits for
    // earlier replies, so it is copied as it is now: later changes, perhaps not
    // yet durable, must not show in it. As values it was copied with the decision.
    const body = this.host.carriesValues ? (plan.reply ?? null) : frozen(plan.reply);
    this.afterPrevious(respond, async () => {
      if (durable) {
        try {
          await durable;
        } catch (err) {
          this.log.error({ err, requestId }, 'journal append or row write failed');
          return replyError(unavailable());
        }
      }
      for (const { held, answer } of released) held(this.stopped ? replyError(unavailable()) : answer);
      pass();
      // Every earlier reply has gone, so `seen` is settled (a failed append answered above or stopped the cell).
      const at = seen ? await seen.catch(() => -1) : this.position;
      return ok(body, at);
    });
  }

  /** Messages of a decision that changed nothing and was not owed to anyone: at most once. */
  private tellOnce(out: Outgoing[], requestId: string | undefined): void {
    for (const item of out) {
      if ('to' in item) this.host.actors.tell(item.to, item.body, { requestId });
      else this.host.actors.fanout(item.type, item.keys, item.body, { requestId });
    }
  }

  /**
   * An owed message that changed nothing here but is passed on (a user's
   * events on their way to their queues) is confirmed only once everything
   * passed on is: otherwise the sender sends it again, and the same keys
   * reach the same receivers, which apply it once.
   */
  private relay(key: string, out: Outgoing[], reply: unknown, respond?: (reply: ReplyEnvelope) => void): void {
    const keys = relayKeys(key, out);
    const sends = out.map((item, i) => this.host.relayOwed(keys[i]!, item));
    void Promise.all(sends).then((failed) =>
      respond?.(failed.some((f) => f.length > 0) ? replyError(unavailable()) : ok(reply)),
    );
  }

  /**
   * Sends the reply `step` produces once every earlier reply has gone out,
   * keeping replies in order. A cell stopped meanwhile lost an append: what
   * it decided since may rest on that change, so nothing of it is confirmed.
   */
  private afterPrevious(respond: ((reply: ReplyEnvelope) => void) | undefined, step: () => Promise<ReplyEnvelope>) {
    this.pendingReplies++;
    this.replies = this.replies
      .then(async () => {
        const reply = await step();
        respond?.(this.stopped && reply.ok ? replyError(unavailable()) : reply);
      })
      .catch((err: unknown) => this.log.error({ err }, 'reply failed'))
      .finally(() => this.pendingReplies--);
  }

  private applyEntry(entry: JournalEntry): StoreWrite[] {
    if (entry.idem !== undefined) this.idem.set(entry.idem, entry.reply);
    return applyEntry(this.behavior, this.state, entry, this.address);
  }
}

/** Applies a durable entry's events to a state; returns the rows they write. */
export function applyEntry(
  behavior: AnyBehavior,
  state: object,
  entry: JournalEntry,
  address: ActorAddress,
): StoreWrite[] {
  const rows: StoreWrite[] = [];
  for (const event of entry.events) {
    behavior.apply(state, event);
    if (behavior.rows) rows.push(...behavior.rows(state, event, address));
  }
  return rows;
}

/**
 * A decision copied (`copyJson`) where it meets values that others hold, for
 * a transport that hands values over (in this process): what it sends
 * (reply, tells, fan-outs) may hold parts of the state, which `apply` changes
 * in place, and its receivers get the very value sent, which nobody may
 * change any more (`Carried`); its events may hold parts of the message
 * received, which belongs to its sender and the other receivers, and `apply`
 * keeps them in the state. So the state never shares an object with a value
 * that crossed the transport, either way, as with JSON bytes.
 */
function copied<E>(d: Decision<E>): Decision<E> {
  const copy = { ...d };
  if (d.events) copy.events = copyJson(d.events) as E[];
  if (d.soft) copy.soft = copyJson(d.soft) as E[];
  if (d.reply !== undefined) copy.reply = copyJson(d.reply);
  if (d.tells) copy.tells = d.tells.map((t) => ({ ...t, body: copyJson(t.body) }) as typeof t);
  if (d.fanouts) copy.fanouts = d.fanouts.map((f) => ({ ...f, body: copyJson(f.body) }) as typeof f);
  if (d.release) copy.release = d.release.map((r) => (r.reply === undefined ? r : { ...r, reply: copyJson(r.reply) }));
  return copy;
}

/** A copy of a reply as it goes on the wire: its JSON text, sent as it is (`toWire`). */
const frozen = (reply: unknown): JsonText => new JsonText(JSON.stringify(reply ?? null));
