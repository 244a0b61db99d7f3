import type { ChatClient } from '@chat/testkit';
import { readOutbox, type OutboxMail } from '../src/mail.js';
import type { TestServer } from './support.js';

/** Helpers of the invitation and e-mail change tests: the outbox, mailed links, the pages they open. */
export type Body = Record<string, unknown>;

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
