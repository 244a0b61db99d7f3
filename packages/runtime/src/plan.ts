import { ChatError, ENVELOPE_VERSION, isChatError } from '@chat/protocol';
import type { AskEnvelope, ReplyEnvelope, WireError } from '@chat/protocol';
import type { Decision, TypedEvent } from './behavior.js';
import type { Outgoing } from './outbox.js';
import { RECORD_VERSION, type JournalEntry } from './records.js';

/**
 * What a cell does with one message, as a plain value: `planIntake` before
 * the behavior is asked, `planDecision` (or `planFailure`) after. The cell
 * carries a plan out (`ActorCell.execute`); nothing here does anything.
 *
 * When the asker hears back:
 * - `now`: nothing to wait for (a read, or held replies released, while no
 *   earlier reply waits; a refused late message), answered before a later
 *   message changes what the reply shows;
 * - `inOrder`: after every earlier reply and, for a change, once its journal
 *   record is durable, so no one sees a change that could still be lost.
 */
export type Plan = Answer | Change;

/** Answer without asking the behavior, or after it refused. */
export interface Answer {
  kind: 'answer';
  when: 'now' | 'inOrder';
  reply: ReplyEnvelope;
}

/** Carry out what the behavior decided. */
export interface Change {
  kind: 'change';
  when: 'now' | 'inOrder';
  /** The journal record to issue; its events are applied as it is issued. Owes `entry.out`. */
  entry?: JournalEntry;
  /** Applied at once, never journaled (`Decision.soft`). */
  soft: TypedEvent[];
  /**
   * A soft change made under a key and no record: the cell remembers the key
   * (with the reply) in memory, so that a repeat is not applied twice while
   * the actor lives. It goes with the next snapshot like the soft change.
   */
  remember?: string;
  /** Held replies answered, in order, when this plan's answer is due. */
  release: Array<{ name: string; answer: ReplyEnvelope }>;
  /** Keeps the asker's reply open under this name (an older one still held is answered unavailable at once). */
  hold?: string;
  /**
   * Messages for other actors that no journal record owes (nothing changed):
   * `once`, at most once; `relay`, an owed message passed on under keys
   * derived from the one it came with, confirmed before the asker is answered.
   */
  pass?: { how: 'once'; out: Outgoing[] } | { how: 'relay'; key: string; out: Outgoing[] };
  /** Who answers the asker: the reply; the relay once confirmed; nobody (held, or nobody asked). */
  answer: 'reply' | 'relay' | 'held' | 'none';
  reply: unknown;
}

/** What the cell knows when it plans a decision. */
export interface PlanFacts {
  eventVersion: number;
  /** The key the message came with. */
  idempotencyKey?: string;
  /** Someone waits for an answer (an ask, not a timer or a tell). */
  asked: boolean;
  /** Whether a reply is held under a name now. */
  holding(name: string): boolean;
  /** Replies decided earlier that have not gone out yet. */
  pendingReplies: number;
}

export const replyError = (error: WireError): ReplyEnvelope => ({ v: ENVELOPE_VERSION, ok: false, error });
export const ok = (body: unknown, at?: number): ReplyEnvelope =>
  at === undefined ? { v: ENVELOPE_VERSION, ok: true, body } : { v: ENVELOPE_VERSION, ok: true, body, at };
export const internal = (): WireError => new ChatError('INTERNAL_SERVER_ERROR', 'Internal server error').toWire();
export const unavailable = (): WireError =>
  new ChatError('OVERLOADED', 'The change could not be recorded; try again').toWire();
/** A held reply (a waiting long poll) whose actor stops: its next owner answers it if asked again. */
export const stopping = (): WireError =>
  new ChatError('OVERLOADED', 'The server is restarting or moving this actor; try again').toWire();

/** Before the behavior: a late message is refused, a repeated key answered from the cache; undefined: decide. */
export function planIntake(
  envelope: AskEnvelope,
  now: number,
  cache: { has(key: string): boolean; get(key: string): unknown },
): Answer | undefined {
  // The asker has given up: doing the work now could only surprise it. (A fan-out's host still counts the answer.)
  if (envelope.deadline < now) {
    const late = new ChatError('REQUEST_TIMEOUT', 'The deadline passed before the actor took the message');
    return { kind: 'answer', when: 'now', reply: replyError(late.toWire()) };
  }
  const key = envelope.idempotencyKey;
  // The original may still be on its way to disk: answer behind it.
  if (key !== undefined && cache.has(key)) return { kind: 'answer', when: 'inOrder', reply: ok(cache.get(key)) };
  return undefined;
}

/** The behavior threw: a refusal (`ChatError`) is answered as it is, anything else as an internal error. */
export function planFailure(err: unknown): Answer {
  return { kind: 'answer', when: 'inOrder', reply: replyError(isChatError(err) ? err.toWire() : internal()) };
}

const NONE: never[] = [];

/** One object of one shape per plan, and no arrays made for what the decision does not have: it runs per message. */
export function planDecision(decision: Decision<TypedEvent>, facts: PlanFacts): Change {
  const events = decision.events;
  const { tells, fanouts } = decision;
  const out: Outgoing[] =
    fanouts && fanouts.length > 0
      ? [...(tells ?? NONE), ...fanouts.map(({ type, keys, body }) => ({ type, keys, body }))]
      : (tells ?? NONE);
  const key = facts.idempotencyKey;
  let entry: JournalEntry | undefined;
  if (events && events.length > 0) {
    entry = { rv: RECORD_VERSION, ev: facts.eventVersion, events };
    if (key !== undefined) Object.assign(entry, { idem: key, reply: decision.reply ?? null });
    // The partition's outbox sends these once the entry is durable, and again until confirmed.
    if (out.length > 0) entry.out = out;
  }
  let pass: Change['pass'];
  if (!entry && out.length > 0) pass = key === undefined ? { how: 'once', out } : { how: 'relay', key, out };
  const release =
    decision.release && decision.release.length > 0
      ? decision.release.flatMap(({ name, reply, error }) =>
          facts.holding(name) ? [{ name, answer: error ? replyError(error.toWire()) : ok(reply ?? null) }] : [],
        )
      : NONE;
  const hold = facts.asked ? decision.hold : undefined;
  const answer = !facts.asked ? 'none' : hold !== undefined ? 'held' : pass?.how === 'relay' ? 'relay' : 'reply';
  // Released replies too go now when no earlier reply waits: every earlier entry is durable then (each one's
  // reply waited for it), as for a read's answer. A queue's push answering its waiting poll is the common case.
  const when = entry || facts.pendingReplies > 0 ? 'inOrder' : 'now';
  const soft = decision.soft ?? NONE;
  const plan: Change = { kind: 'change', when, soft, release, answer, reply: decision.reply ?? null };
  if (entry) plan.entry = entry;
  if (!entry && key !== undefined && soft.length > 0) plan.remember = key;
  if (hold !== undefined) plan.hold = hold;
  if (pass) plan.pass = pass;
  return plan;
}
