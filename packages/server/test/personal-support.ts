import { assertEvents, assertResponse, type ChatClient } from '@chat/testkit';

/**
 * Helpers of the tests of a person's own data (drafts, snippets, views,
 * push): real queues through POST /register and GET /events, every event
 * checked against the reference.
 */
export type Body = Record<string, unknown>;
export type Event = Body & { id: number; type: string };

export interface Queue {
  client: ChatClient;
  queue_id: string;
  cursor: number;
  seen: Event[];
  /** The register response: the snapshot sections. */
  snapshot: Body;
}

export async function register(client: ChatClient, eventTypes: string[], fetch?: string[]): Promise<Queue> {
  const params: Body = { event_types: JSON.stringify(eventTypes) };
  if (fetch) params.fetch_event_types = JSON.stringify(fetch);
  const reply = await client.post<Body>('/register', params);
  if (reply.status !== 200) throw new Error(`register: ${JSON.stringify(reply.body)}`);
  assertResponse('POST', '/register', 200, reply.body);
  const body = reply.body as unknown as Body & { queue_id: string; last_event_id: number };
  return { client, queue_id: body.queue_id, cursor: body.last_event_id, seen: [], snapshot: body };
}

async function poll(queue: Queue, dontBlock: boolean): Promise<void> {
  const params = { queue_id: queue.queue_id, last_event_id: queue.cursor, dont_block: dontBlock };
  const reply = await queue.client.get<Body>('/events', params);
  if (reply.status !== 200) throw new Error(`events: ${reply.status} ${JSON.stringify(reply.body)}`);
  const events = reply.body.events as Event[];
  assertEvents(events);
  queue.seen.push(...events);
  queue.cursor = events.at(-1)?.id ?? queue.cursor;
}

/** Long-polls until an event passes the test; heartbeats and other events go by. */
export async function next(queue: Queue, test: (e: Event) => boolean): Promise<Event> {
  for (;;) {
    const found = queue.seen.find(test);
    if (found) return found;
    await poll(queue, false);
  }
}

/** Everything the queue received so far, without waiting. */
export async function held(queue: Queue): Promise<Event[]> {
  await poll(queue, true);
  return queue.seen;
}

export const of =
  (type: string, op: string, more: (e: Event) => boolean = () => true) =>
  (e: Event) =>
    e.type === type && e.op === op && more(e);

/** A successful reply's body, validated against the reference's schema for the operation. */
export async function ok<T = Body>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  reference: string,
  reply: Promise<{ status: number; body: unknown }>,
): Promise<T> {
  const got = await reply;
  if (got.status !== 200) throw new Error(`${method} ${reference}: ${got.status} ${JSON.stringify(got.body)}`);
  assertResponse(method, reference, 200, got.body);
  return got.body as T;
}

export async function myId(client: ChatClient): Promise<number> {
  const reply = await client.get<{ user_id: number }>('/users/me');
  return reply.body.user_id;
}
