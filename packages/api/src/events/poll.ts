import { ChatError, type ActorAddress, type QueueCommand, type QueueGetReply, type QueueSpec } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import type { ApiOptions } from '../options.js';

/** How long a poll whose queue's host stopped waits before it asks the next host. */
const RETRY_PAUSE_MS = 250;

type Get = Extract<QueueCommand, { type: 'queue.get' }> & { since: number };

/**
 * Asks a queue for events, waiting until it has some or its heartbeat
 * (which comes `heartbeatMs` after the poll began). With `pollSliceMs`, a
 * wait is asked in slices: when a slice passes unanswered, the edge asks
 * again, and the ask reaches whichever host owns the queue by then. The
 * queue answers the new ask and drops the old one, so nothing is answered
 * twice. A queue whose host stops (a graceful stop, a shard handed off)
 * answers its waiting poll OVERLOADED: that too is asked again, after a
 * pause, and reaches the queue's next host. A poll whose connection has
 * closed (`closed`: its client left, or this server is stopping and closed
 * it) is never asked again: nobody would read the answer.
 */
export function pollQueue(
  actors: ActorClient,
  options: ApiOptions,
  to: ActorAddress<'queue'>,
  get: Get,
  closed: () => boolean,
): Promise<QueueGetReply> {
  // The queue answers a waiting poll by its heartbeat; leave room for that answer.
  const deadline = get.since + options.heartbeatMs + 10_000;
  const slice = options.pollSliceMs;
  // Promises, not an async function's loop: a waiting poll keeps no suspended frame alive.
  const attempt = (): Promise<QueueGetReply> => {
    const left = deadline - Date.now();
    const timeoutMs = slice === undefined || get.dont_block ? left : Math.min(left, slice);
    return actors.ask(to, get, { timeoutMs }).catch((err: unknown) => {
      if (closed()) throw err;
      const code = err instanceof ChatError ? err.code : undefined;
      // A full mailbox or a stopping server (it says when to come back) is the client's to retry, not ours.
      const full = err instanceof ChatError && err.extra['retry-after'] !== undefined;
      const moving = code === 'OVERLOADED' && !full && !get.dont_block && Date.now() + RETRY_PAUSE_MS < deadline;
      if (moving) return new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS)).then(attempt);
      if (code === 'REQUEST_TIMEOUT' && timeoutMs < left) return attempt();
      throw err;
    });
  };
  return attempt();
}

/** How many queues' specs an edge keeps; past it, the one kept longest is dropped. */
const KEPT_SPECS = 20_000;

/**
 * The specs of the queues an edge polls, so that a poll's answer need not
 * carry its queue's spec every time (`has_spec`). A spec is fixed for its
 * queue's life and a queue id is never registered twice (a random id; the
 * queue refuses a second registration), so a kept spec is never stale: a
 * queue that is gone answers BAD_EVENT_QUEUE_ID, and its spec is dropped.
 * Keyed by realm and queue id; the queue itself checks that the poll is
 * its owner's.
 */
export class QueueSpecs {
  private readonly specs = new Map<string, QueueSpec>();

  constructor(private readonly max = KEPT_SPECS) {}

  get(key: string): QueueSpec | undefined {
    return this.specs.get(key);
  }

  set(key: string, spec: QueueSpec): void {
    if (!this.specs.has(key) && this.specs.size >= this.max) this.specs.delete(this.specs.keys().next().value!);
    this.specs.set(key, spec);
  }

  delete(key: string): void {
    this.specs.delete(key);
  }
}
