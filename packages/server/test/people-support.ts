import { assertEvents, assertResponse, type ChatClient } from '@chat/testkit';
import type { TestServer } from './support.js';

/**
 * Helpers of the settings, status, presence and typing tests: fresh users
 * (so that concurrent tests do not change each other's settings) and real
 * queues through POST /register and GET /events, every event checked
 * against the reference.
 */
export type Body = Record<string, unknown>;
export type Event = Body & { id: number; type: string };

export interface Person {
  client: ChatClient;
  user_id: number;
  email: string;
  password: string;
}

let counter = 0;

/** A new member with a password, created by an administrator and logged in with that password. */
export async function newPerson(server: TestServer, admin: ChatClient, name: string): Promise<Person> {
  counter += 1;
  const email = `${name.toLowerCase().replace(/[^a-z]/g, '')}${counter}-${Date.now()}@zulip.com`;
  const password = `secret-${counter}-${Math.random()}`;
  const created = await admin.post<{ user_id: number }>('/users', { email, password, full_name: name });
  if (created.status !== 200) throw new Error(`create user: ${JSON.stringify(created.body)}`);
  const key = await server.client.post<{ api_key: string }>('/fetch_api_key', { username: email, password });
  if (key.status !== 200) throw new Error(`fetch_api_key: ${JSON.stringify(key.body)}`);
  return {
    client: server.client.as({ email, apiKey: key.body.api_key }),
    user_id: created.body.user_id,
    email,
    password,
  };
}

export interface Queue {
  client: ChatClient;
  queue_id: string;
  cursor: number;
  seen: Event[];
  snapshot: Body;
}

/** Registers a queue; the response is checked against the reference. */
export async function register(client: ChatClient, params: Body = {}): Promise<Queue> {
  const encoded = Object.fromEntries(
    Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  const reply = await client.post<Body>('/register', encoded);
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

/**
 * Waits for an event that marks the end of what a test sent (a later event
 * on the same path), then reports whether any received event passes `test`.
 */
export async function absentBefore(queue: Queue, marker: (e: Event) => boolean, test: (e: Event) => boolean) {
  await next(queue, marker);
  return !queue.seen.some(test);
}

/** A successful reply's body, validated against the reference's schema of the operation. */
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

/** A failure: its status, code and message, and the body checked against the reference where it documents one. */
export async function fails(reply: Promise<{ status: number; body: unknown }>) {
  const got = await reply;
  const body = got.body as { result: string; code: string; msg: string };
  return { status: got.status, result: body.result, code: body.code, msg: body.msg };
}
