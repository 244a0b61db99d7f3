import { assertResponse, checkEvent, type ChatClient } from '@chat/testkit';
import { readOutbox, type OutboxMail } from '../src/mail.js';
import type { TestServer } from './support.js';

/** Helpers of the invitation and e-mail change tests: queues, the outbox, mailed links. */
export type Body = Record<string, unknown>;
export type Event = Body & { id: number; type: string };

export interface Queue {
  client: ChatClient;
  id: string;
  last: number;
}

export async function register(client: ChatClient, eventTypes: string[], params: Body = {}): Promise<Queue> {
  const reply = await client.post<{ queue_id: string; last_event_id: number }>('/register', {
    event_types: JSON.stringify(eventTypes),
    ...params,
  });
  if (reply.status !== 200) throw new Error(`register: ${JSON.stringify(reply.body)}`);
  assertResponse('POST', '/register', 200, reply.body);
  return { client, id: reply.body.queue_id, last: reply.body.last_event_id };
}

/** Polls until an event passes `test`; every event seen must fit the reference's schemas. */
export async function nextEvent(queue: Queue, test: (e: Event) => boolean): Promise<Event> {
  for (;;) {
    const reply = await queue.client.get<{ events: Event[] }>('/events', {
      queue_id: queue.id,
      last_event_id: queue.last,
    });
    if (reply.status !== 200) throw new Error(`events: ${JSON.stringify(reply.body)}`);
    for (const event of reply.body.events) {
      const check = checkEvent(event);
      if (!check.ok) throw new Error(`event ${JSON.stringify(event)} does not fit: ${check.errors.join('; ')}`);
      queue.last = event.id;
      if (test(event)) return event;
    }
  }
}

/** The events already queued, without waiting. */
export async function queued(queue: Queue): Promise<Event[]> {
  const reply = await queue.client.get<{ events: Event[] }>('/events', {
    queue_id: queue.id,
    last_event_id: queue.last,
    dont_block: true,
  });
  return reply.body.events;
}

export const mailsTo = async (server: TestServer, address: string): Promise<OutboxMail[]> =>
  (await readOutbox(server.dir)).filter((m) => m.to.toLowerCase() === address.toLowerCase());

/** The one link of `path` in a mail; fails if there is none. */
export function linkIn(mail: OutboxMail | undefined, path: string): string {
  const found = mail?.text.match(new RegExp(`https?://\\S+${path}\\S+`));
  if (!found) throw new Error(`no ${path} link in ${JSON.stringify(mail)}`);
  return found[0];
}

/** Posts a form as a browser does (urlencoded), answering the status and the HTML. */
export async function postForm(url: string, fields: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(fields) });
  return { status: response.status, html: await response.text(), type: response.headers.get('content-type') };
}

export async function openPage(url: string) {
  const response = await fetch(url);
  return { status: response.status, html: await response.text(), type: response.headers.get('content-type') };
}

export async function userId(client: ChatClient): Promise<number> {
  return (await client.get<{ user_id: number }>('/users/me')).body.user_id;
}

export async function channelId(client: ChatClient, name: string): Promise<number> {
  return (await client.get<{ stream_id: number }>('/get_stream_id', { stream: name })).body.stream_id;
}

/** Recent messages the client can see, raw Markdown. */
export async function recentMessages(client: ChatClient): Promise<Body[]> {
  const reply = await client.get<{ messages: Body[] }>('/messages', {
    anchor: 'newest',
    num_before: 50,
    num_after: 0,
    apply_markdown: false,
  });
  if (reply.status !== 200) throw new Error(`messages: ${JSON.stringify(reply.body)}`);
  return reply.body.messages;
}
