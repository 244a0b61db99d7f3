import { assertEvents, assertResponse, type ChatClient } from '@chat/testkit';

/**
 * Real event queues, as a client uses them: POST /register, then GET
 * /events, the register response and every event checked against the
 * reference. A queue keeps every event it received in `seen`, so a test
 * can wait for its events in any order. Tests share their server, so a
 * predicate should name the test's own ids: other tests' events go by.
 */
export type Body = Record<string, unknown>;
export type Event = Body & { id: number; type: string };
export type Test = (e: Event) => boolean;

export interface Queue {
  client: ChatClient;
  /** null only for a registration without credentials, which gets no queue. */
  queue_id: string;
  /** The last event id received: the next poll acknowledges everything up to it. */
  cursor: number;
  seen: Event[];
  /** How many events of `seen` `take` has passed. */
  taken: number;
  /** The register response: the snapshot sections asked for. */
  snapshot: Body;
}

/** Registers a queue; lists and objects among the parameters travel JSON-encoded, as clients send them. */
export async function register(client: ChatClient, params: Body = {}): Promise<Queue> {
  const reply = await client.post<Body>('/register', params);
  if (reply.status !== 200) throw new Error(`register: ${reply.status} ${JSON.stringify(reply.body)}`);
  assertResponse('POST', '/register', 200, reply.body);
  const snapshot = reply.body as unknown as Body & { queue_id: string; last_event_id: number };
  return { client, queue_id: snapshot.queue_id, cursor: snapshot.last_event_id, seen: [], taken: 0, snapshot };
}

/** The register response alone, for tests of the snapshot. */
export async function snapshotOf(client: ChatClient, params: Body = {}): Promise<Body> {
  return (await register(client, params)).snapshot;
}

/** One poll from the cursor, a long poll unless `dontBlock`; answers the events it brought. */
export async function poll(queue: Queue, dontBlock = false): Promise<Event[]> {
  const params = { queue_id: queue.queue_id, last_event_id: queue.cursor, dont_block: dontBlock };
  const reply = await queue.client.get<Body>('/events', params);
  if (reply.status !== 200) throw new Error(`events: ${reply.status} ${JSON.stringify(reply.body)}`);
  const events = reply.body.events as Event[];
  assertEvents(events);
  queue.seen.push(...events);
  queue.cursor = events.at(-1)?.id ?? queue.cursor;
  return events;
}

/** The first event received that passes the test, long-polling until one comes; heartbeats go by. */
export async function next(queue: Queue, test: Test): Promise<Event> {
  for (;;) {
    const found = queue.seen.find(test);
    if (found) return found;
    await poll(queue);
  }
}

/**
 * The next event passing the test after the one `take` answered last, so
 * that the same kind of event can be awaited again; what comes between is
 * passed over.
 */
export async function take(queue: Queue, test: Test): Promise<Event> {
  for (;;) {
    const index = queue.seen.findIndex((e, i) => i >= queue.taken && test(e));
    if (index >= 0) {
      queue.taken = index + 1;
      return queue.seen[index]!;
    }
    await poll(queue);
  }
}

/** Every event received up to and including the first one that passes the test. */
export async function eventsUntil(queue: Queue, until: Test): Promise<Event[]> {
  const last = await next(queue, until);
  return queue.seen.slice(0, queue.seen.indexOf(last) + 1);
}

/** Everything the queue received so far, after one poll that does not wait. */
export async function held(queue: Queue): Promise<Event[]> {
  await poll(queue, true);
  return queue.seen;
}

/** Whether no event received so far (after one poll that does not wait) passes the test. */
export async function none(queue: Queue, test: Test): Promise<boolean> {
  return !(await held(queue)).some(test);
}

/**
 * Waits for an event that marks the end of what a test sent (a later event
 * on the same path), then tells whether no event received passes `test`.
 */
export async function absentBefore(queue: Queue, marker: Test, test: Test): Promise<boolean> {
  await next(queue, marker);
  return !queue.seen.some(test);
}

/** Events of one type and op, optionally with more to check. */
export const of =
  (type: string, op: string, more: Test = () => true): Test =>
  (e) =>
    e.type === type && e.op === op && more(e);
