import type { ExecutionContext } from 'ava';
import { assertEvents, assertResponse, type ChatClient, type Reply } from '@chat/testkit';

/** Helpers of groups.test.ts and folders.test.ts: calls that must succeed, failures, and real event queues. */
export type Body = Record<string, unknown>;
export type Event = Body & { id: number; type: string };

/** A call that must succeed; its body is checked against the reference for the operation. */
export async function ok(client: ChatClient, method: string, path: string, params: Body = {}): Promise<Body> {
  const got = await client.call<Body>(method, path, params);
  if (got.status !== 200) throw new Error(`${method} ${path}: ${got.status} ${JSON.stringify(got.body)}`);
  assertResponse(method, path, 200, got.body);
  return got.body;
}

/** A call that must fail with this code (and, when given, this message). */
export async function fails(t: ExecutionContext, reply: Promise<Reply>, code: string, msg?: string | RegExp) {
  const got = await reply;
  t.is(got.status, 400, JSON.stringify(got.body));
  t.is(got.body.result, 'error');
  t.is(got.body.code, code, got.body.msg);
  if (typeof msg === 'string') t.is(got.body.msg, msg);
  else if (msg) t.regex(got.body.msg, msg);
  return got.body;
}

/** A registered queue with everything polled from it so far. */
export interface Queue {
  client: ChatClient;
  queue_id: string;
  cursor: number;
  seen: Event[];
  snapshot: Body;
}

export async function register(client: ChatClient, types: string[], params: Body = {}): Promise<Queue> {
  const body = await ok(client, 'POST', '/register', { event_types: JSON.stringify(types), ...params });
  const snapshot = body as unknown as Body & { queue_id: string; last_event_id: number };
  return { client, queue_id: snapshot.queue_id, cursor: snapshot.last_event_id, seen: [], snapshot };
}

async function poll(queue: Queue, dontBlock: boolean): Promise<void> {
  const params = { queue_id: queue.queue_id, last_event_id: queue.cursor, dont_block: dontBlock };
  const reply = await queue.client.get<Body>('/events', params);
  if (reply.status !== 200) throw new Error(`events: ${reply.status} ${JSON.stringify(reply.body)}`);
  const events = reply.body.events as Event[];
  // Every event is checked against the reference's event schemas.
  assertEvents(events);
  queue.seen.push(...events);
  queue.cursor = events.at(-1)?.id ?? queue.cursor;
}

/** Long-polls until an event passes the test; heartbeats and other tests' events go by. */
export async function next(queue: Queue, test: (e: Event) => boolean): Promise<Event> {
  for (;;) {
    const found = queue.seen.find(test);
    if (found) return found;
    await poll(queue, false);
  }
}

/** Whether no event so far passes the test (after one non-blocking poll). */
export async function none(queue: Queue, test: (e: Event) => boolean): Promise<boolean> {
  await poll(queue, true);
  return !queue.seen.some(test);
}
