import {
  ChatError,
  userAddress,
  type NumberedEvent,
  type QueueCommand,
  type QueueEvent,
  type QueueProtocol,
  type QueueGetReply,
  queueOfKey,
  realmOfKey,
  heartbeatEvent,
} from '@chat/protocol';
import {
  handlerTable,
  originOf,
  type ActorBehavior,
  type ActorContext,
  type Decision,
  type Handlers,
} from '@chat/runtime';
import { forQueue, inSnapshot, wants } from './filter.js';
import { passAccess, passedBy } from './access.js';
import {
  applyEvent,
  initialState,
  loseUnrested,
  restQueue,
  type Origin,
  type QueueEventRecord,
  type QueueState,
} from './state.js';

export interface QueueOptions {
  /** A waiting poll is answered with a heartbeat event after this long. */
  heartbeatMs: number;
  /** A queue nobody fetched from for this long is collected. */
  idleMs: number;
  /**
   * A queue holding this many unacknowledged events is collected: its client
   * stopped reading. Its next fetch gets BAD_EVENT_QUEUE_ID, which every
   * client of the original already answers by registering again.
   */
  maxEvents: number;
}

type Ctx = ActorContext<QueueState>;
type QueueDecision<Reply = unknown> = Decision<QueueEventRecord, Reply>;

/** A waiting poll is held under POLL, or under BARE when its edge has the queue's spec (`has_spec`). */
const POLL = 'poll';
const BARE = 'poll-bare';
const waiting = (ctx: Ctx): string | undefined => (ctx.holding(POLL) ? POLL : ctx.holding(BARE) ? BARE : undefined);

export const badQueue = (queueId: string) =>
  new ChatError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, { queue_id: queueId });

function reply(state: QueueState, events: NumberedEvent[], bare = false): QueueGetReply {
  return bare ? { events } : { events, spec: state.spec! };
}

/** The answer to the waiting poll, if there is one. */
function answerWaiting(ctx: Ctx, events: NumberedEvent[]) {
  const name = waiting(ctx);
  return name === undefined ? [] : [{ name, reply: reply(ctx.state, events, name === BARE) }];
}

const removeFromOwner = (ctx: Ctx) => ({
  to: userAddress(realmOfKey(ctx.address.key), ctx.state.spec!.user_id),
  body: { type: 'user.removeQueue' as const, queue_id: queueOfKey(ctx.address.key) },
});

/** Collects the queue: the owner's UserActor stops delivering to it, a waiting poll learns it is gone. */
function collect<R = null>(
  ctx: Ctx,
  reason: 'idle' | 'full' | 'deleted',
  extra: QueueDecision<R> = {},
): QueueDecision<R> {
  const queueId = queueOfKey(ctx.address.key);
  ctx.timers.cancel('heartbeat');
  ctx.timers.cancel('idle');
  return {
    ...extra,
    soft: [...(extra.soft ?? []), { type: 'collected', reason }],
    tells: [removeFromOwner(ctx)],
    release: answerWaiting(ctx, []).map(({ name }) => ({ name, error: badQueue(queueId) })),
  };
}

/** Appends events and answers a waiting poll with everything unacknowledged. */
function append(ctx: Ctx, options: QueueOptions, events: QueueEvent[], origin?: Origin): QueueDecision<null> {
  const state = ctx.state;
  if (events.length === 0) return {};
  const numbered = events.map((event, i): NumberedEvent => ({ ...event, id: state.nextId + i }));
  if (state.events.length + numbered.length > options.maxEvents) return collect(ctx, 'full');
  // Until the snapshot's cover comes, each event keeps its origin, so the cover can tell what it holds.
  const pushed: QueueEventRecord =
    origin && !state.cover ? { type: 'pushed', events: numbered, origin } : { type: 'pushed', events: numbered };
  // The events are new objects around parts of the push received, which nobody changes: no copies (`uncopied`).
  const decision: QueueDecision<null> = { soft: [pushed], uncopied: true };
  if (waiting(ctx)) {
    ctx.timers.cancel('heartbeat');
    decision.release = answerWaiting(ctx, [...state.events, ...numbered]);
  }
  return decision;
}

function decideGet(
  ctx: Ctx,
  options: QueueOptions,
  cmd: Extract<QueueCommand, { type: 'queue.get' }>,
): QueueDecision<QueueGetReply> {
  const state = ctx.state;
  const queueId = queueOfKey(ctx.address.key);
  if (state.status !== 'live' || state.spec!.user_id !== cmd.user_id) throw badQueue(queueId);
  // Without last_event_id nothing is acknowledged.
  const last = cmd.last_event_id ?? state.acknowledged;
  if (last < state.acknowledged) {
    throw new ChatError('BAD_REQUEST', `An event newer than ${last} has already been pruned!`);
  }
  ctx.timers.set('idle', options.idleMs);
  const through = Math.min(last, state.nextId - 1);
  // Not journaled: a poll names last_event_id every time, so an acknowledgement a crash forgets only keeps
  // events the client already has until its next poll; a journal record per poll was half of a queue's.
  const soft: QueueEventRecord[] = through > state.acknowledged ? [{ type: 'acknowledged', through }] : [];
  const pending = state.events.filter((e) => e.id > last);
  // A newer poll replaces a waiting one, which gets an empty answer.
  const release = answerWaiting(ctx, []);
  // The reply holds events of the state, which `apply` only ever drops from its list: no copies (`uncopied`).
  if (pending.length > 0 || cmd.dont_block) {
    return { soft, release, reply: reply(state, pending, cmd.has_spec), uncopied: true };
  }
  const waited = cmd.since === undefined ? 0 : Math.max(0, ctx.now - cmd.since);
  ctx.timers.set('heartbeat', Math.max(0, options.heartbeatMs - waited));
  // A new acknowledgement, and an empty answer to a replaced poll (the spec is never changed in place): no copies.
  return { soft, release, hold: cmd.has_spec ? BARE : POLL, uncopied: true };
}

function handlers(options: QueueOptions): Handlers<QueueState, QueueEventRecord, QueueProtocol> {
  return {
    'queue.register': (ctx, cmd) => {
      const queueId = queueOfKey(ctx.address.key);
      if (ctx.state.status !== 'none') throw new ChatError('BAD_REQUEST', `Queue ${queueId} already exists`);
      ctx.timers.set('idle', options.idleMs);
      return { events: [{ type: 'registered', spec: cmd.spec }], reply: { queue_id: queueId, last_event_id: -1 } };
    },
    'queue.push': (ctx, cmd) => {
      const state = ctx.state;
      // The owner's list still names a collected queue (its removal is told at most once): say it again.
      if (state.status === 'gone') return { tells: [removeFromOwner(ctx)] };
      if (state.status !== 'live') return {};
      const origin = originOf(ctx.idempotencyKey);
      const wanted = cmd.events.filter((e) => wants(state, e) && !inSnapshot(state.cover, origin, e));
      const kept = state.accessible ? passedBy(state.accessible, wanted) : wanted;
      const queueId = queueOfKey(ctx.address.key);
      return append(
        ctx,
        options,
        kept.map((e) => forQueue(queueId, e)),
        origin,
      );
    },
    'queue.get': (ctx, cmd) => decideGet(ctx, options, cmd),
    'queue.cover': (ctx, cmd) => {
      const state = ctx.state;
      if (state.status !== 'live' || state.spec!.user_id !== cmd.user_id) throw badQueue(queueOfKey(ctx.address.key));
      const cover = cmd.through;
      const covered = state.events.filter((e) => inSnapshot(cover, state.origins?.[e.id], e));
      const inCover = new Set(covered);
      // A restricted guest's: of the adds and removes held, those that fit what the snapshot has.
      const accessible = cmd.accessible && new Set(cmd.accessible);
      const held = accessible ? state.events.filter((e) => !inCover.has(e)) : [];
      const passed = new Set(accessible ? passAccess(accessible, held) : held);
      const dropped = [...covered, ...held.filter((e) => !passed.has(e))];
      return {
        soft: [
          {
            type: 'covered',
            cover,
            dropped: dropped.map((e) => e.id),
            ...(accessible ? { accessible: [...accessible] } : {}),
          },
        ],
        reply: { events: dropped, spec: state.spec! },
      };
    },
    'queue.delete': (ctx, cmd) => {
      const state = ctx.state;
      if (state.status !== 'live' || state.spec!.user_id !== cmd.user_id) throw badQueue(queueOfKey(ctx.address.key));
      return collect(ctx, 'deleted', { reply: null });
    },
  };
}

function onTimer(ctx: Ctx, options: QueueOptions, name: string): QueueDecision {
  // Lost in a crash (`onActivate`): the owner stops delivering to it (at most once; a later push says it again).
  if (name === 'forget') return ctx.state.spec ? { tells: [removeFromOwner(ctx)] } : {};
  if (ctx.state.status !== 'live') return {};
  if (name === 'heartbeat') return waiting(ctx) ? append(ctx, options, [heartbeatEvent()]) : {};
  if (name !== 'idle') return {};
  // A client waiting on a poll is not idle.
  if (waiting(ctx)) {
    ctx.timers.set('idle', options.idleMs);
    return {};
  }
  return collect(ctx, 'idle');
}

/**
 * A queue back from rest journals `resumed` with its first decision, before
 * any change of it is seen: from then on its snapshot at rest is out of date,
 * and a crash must find the queue lost rather than continue from that snapshot.
 */
function resuming<R>(ctx: Ctx, decision: QueueDecision<R>): QueueDecision<R> {
  if (!ctx.state.rested || ctx.state.status !== 'live') return decision;
  return { ...decision, events: [{ type: 'resumed' }, ...(decision.events ?? [])] };
}

export function queueBehavior(options: QueueOptions): ActorBehavior<QueueState, QueueEventRecord> {
  const table = handlerTable(handlers(options));
  return {
    type: 'queue',
    eventVersion: 1,
    initial: initialState,
    // Every event reaches a queue as an owed message, from every conversation and actor of its user. A
    // sender that recovers after a crash sends again everything since its last checkpoint (up to 10 s of
    // traffic), and a busy queue must still know those keys: 4,096 cover 10 s at 400 events a second.
    idempotencyCapacity: 4096,
    handle: (ctx, command) => {
      const decided = table(ctx, command);
      return decided instanceof Promise ? decided.then((d) => resuming(ctx, d)) : resuming(ctx, decided);
    },
    apply: applyEvent,
    onTimer: (ctx, name) => resuming(ctx, onTimer(ctx, options, name)),
    onActivate: (ctx) => {
      // Not saved at rest: a crash lost its events (kept in memory only), so it is gone; its owner is told.
      if (loseUnrested(ctx.state as QueueState)) ctx.timers.set('forget', 0);
      // After a graceful restart or a move the client gets the whole idle timeout again.
      else if (ctx.state.status === 'live') ctx.timers.set('idle', options.idleMs);
    },
    // A queue's changes are all soft but its registration (and `resumed`): in memory, as the original keeps
    // queues, saved only at rest; periodic checkpoints do not write queues for them.
    softUntilRest: true,
    atRest: restQueue,
    // Live queues stay in memory, so that their idle timer runs.
    canPassivate: (state) => state.status !== 'live',
  };
}
