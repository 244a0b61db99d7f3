import type { MessageQueueEvent, NumberedEvent, ReplyEnvelope } from '@chat/protocol';
import { Carried, checkingValues, deepFreeze } from '@chat/runtime';

/**
 * A long poll's answer across an edge worker's IPC channel, its message
 * events by reference: a message reaches each recipient's poll as the same
 * event but for its queue's id, the recipient's `flags` and the sender's
 * `local`, so the rest (the message, the people it names: most of an answer)
 * crosses once per channel as a part the worker keeps, and each answer
 * names it (`$part`) beside what is its own. A fan-out to ten thousand
 * queues wrote and parsed that JSON ten thousand times; now once.
 *
 * The first process (`PartsSent`) decides what the worker keeps: a part goes
 * before the first answer that names it, and the worker drops the parts it
 * is told to (`drop`), the ones named longest ago, so both sides agree on
 * what is held without the worker answering. An event is known again by
 * its `people` list, which every recipient's copy shares (a value handed to
 * the transport never changes), and its message's id.
 */

/** How many parts a worker holds. */
export const KEPT_PARTS = 4096;
/** An answer with more events than this (or than the parts kept) crosses whole: every part it names must be held when it comes. */
const MAX_NAMED = 256;

/** A message event as it crosses, naming its part. */
interface Named {
  $part: number;
  id: number;
  flags?: string[];
  local?: MessageQueueEvent['local'];
}

/** A message event without what differs between recipients. */
type Part = Omit<MessageQueueEvent, 'local'> & { message: Omit<MessageQueueEvent['message'], 'flags'> };

export type PartMessage = { t: 'part'; r: number; x: string } | { t: 'drop'; r: number[] };

/** Whether an ask is a long poll's (`queue.get`), whose answer may name parts. */
export const isPoll = (data: Uint8Array): boolean =>
  data instanceof Carried && (data.value as { body?: { type?: unknown } } | null)?.body?.type === 'queue.get';

/** The first process's side, one per channel. */
export class PartsSent {
  private readonly known = new WeakMap<object, { ref: number; message: number }>();
  /** The parts the worker holds, the one named longest ago first. */
  private readonly held = new Set<number>();
  private next = 1;

  constructor(
    private readonly send: (message: PartMessage) => void,
    private readonly kept = KEPT_PARTS,
  ) {}

  /** A poll's answer as JSON text naming parts (those it is the first to name are sent first), if it has message events. */
  answer(data: Uint8Array): { x: string; p: 1 } | undefined {
    const reply = data instanceof Carried ? (data.value as ReplyEnvelope) : undefined;
    const body = reply?.ok ? (reply.body as { events?: unknown } | null) : undefined;
    const events = body?.events;
    const named = Math.min(MAX_NAMED, this.kept);
    if (!Array.isArray(events) || events.length > named || !events.some(shareable)) return undefined;
    const crossing = (events as NumberedEvent[]).map((e) => (shareable(e) ? this.named(e) : e));
    this.trim();
    return { x: JSON.stringify({ ...reply, body: { ...body, events: crossing } }), p: 1 };
  }

  private named(event: MessageQueueEvent & { id: number }): Named {
    const { id, local, message } = event;
    let part = this.known.get(event.people);
    if (part && part.message === message.id && this.held.has(part.ref)) {
      this.held.delete(part.ref);
      this.held.add(part.ref);
    } else {
      part = { ref: this.next++, message: message.id };
      this.known.set(event.people, part);
      this.held.add(part.ref);
      const { id: _id, local: _local, ...rest } = event;
      const { flags: _flags, ...shared } = message;
      this.send({ t: 'part', r: part.ref, x: JSON.stringify({ ...rest, message: shared }) });
    }
    const named: Named = { $part: part.ref, id };
    if (message.flags !== undefined) named.flags = message.flags;
    if (local !== undefined) named.local = local;
    return named;
  }

  /** Drops the parts named longest ago past `kept` (never one this answer names: it has fewer events). */
  private trim(): void {
    const over = this.held.size - this.kept;
    if (over <= 0) return;
    const dropped: number[] = [];
    for (const ref of this.held) {
      if (dropped.length === over) break;
      dropped.push(ref);
    }
    for (const ref of dropped) this.held.delete(ref);
    this.send({ t: 'drop', r: dropped });
  }
}

const shareable = (e: unknown): e is MessageQueueEvent & { id: number } => {
  const event = e as Partial<MessageQueueEvent> | null;
  return event?.type === 'message' && typeof event.people === 'object' && event.people !== null;
};

/** A part as the worker holds it, with its message as each set of flags made it so far (most recipients share one). */
interface Held {
  part: Part;
  flagged: Map<string, MessageQueueEvent['message']>;
}

/** The worker's side: the parts it holds, and the answers that name them made whole. */
export class PartsHeld {
  private readonly parts = new Map<number, Held>();

  /** Holds a part, or drops those named. */
  take(message: PartMessage): void {
    if (message.t === 'drop') {
      for (const r of message.r) this.parts.delete(r);
      return;
    }
    const part = JSON.parse(message.x) as Part;
    // Shared by every answer that names it: nobody may change it.
    if (checkingValues()) deepFreeze(part);
    this.parts.set(message.r, { part, flagged: new Map() });
  }

  /** A poll's answer, its events whole again. */
  whole(text: string): Carried {
    const reply = JSON.parse(text) as { body: { events: Array<Named | NumberedEvent> } };
    reply.body.events = reply.body.events.map((e) => ('$part' in e ? this.event(e) : e));
    return new Carried(reply);
  }

  private event(named: Named): NumberedEvent {
    const held = this.parts.get(named.$part);
    if (!held) throw new Error(`a poll's answer names part ${named.$part}, which this worker does not hold`);
    const { part } = held;
    const message = named.flags === undefined ? part.message : flagged(held, named.flags);
    const event = { ...part, message, id: named.id } as NumberedEvent & { local?: unknown };
    if (named.local !== undefined) event.local = named.local;
    return event;
  }
}

/** The part's message with these flags, made once per set of flags and shared (a value handed on is never changed). */
function flagged(held: Held, flags: string[]): MessageQueueEvent['message'] {
  const key = flags.join('\n');
  let message = held.flagged.get(key);
  if (message === undefined) {
    message = { ...held.part.message, flags };
    if (checkingValues()) deepFreeze(message);
    held.flagged.set(key, message);
  }
  return message;
}
