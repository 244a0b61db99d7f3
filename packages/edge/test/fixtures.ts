import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Type } from '@sinclair/typebox';
import { ChatError, type ActorAddress, type Command } from '@chat/protocol';
import { typedClient, type AskOptions, type UntypedActorClient } from '@chat/runtime';
import {
  createEdgeApp,
  createLogger,
  createMetricsRegistry,
  defineRoute,
  type Authenticate,
  type Principal,
} from '../src/index.js';

/** Toy routes that exercise every part of the pipeline. */

export const SECRET_MESSAGE = 'database password is hunter2';

const iago: Principal = {
  realm: 'zulip',
  user_id: 11,
  email: 'iago@zulip.com',
  role: 200,
  is_bot: false,
  full_name: 'Iago',
  groups: [1, 2, 3, 4, 5, 6],
  can_create_users: false,
};

export const authenticate: Authenticate = async ({ email, apiKey }) => {
  if (email === 'iago@zulip.com' && apiKey === 'good-key') return iago;
  if (email === 'gone@zulip.com') throw new ChatError('USER_DEACTIVATED', 'Account is deactivated');
  throw new ChatError('INVALID_API_KEY', 'Invalid API key');
};

/** Records each ask, and answers with what it was asked. */
export class FakeActors implements UntypedActorClient {
  readonly asks: { to: ActorAddress; body: Command; opts: AskOptions | undefined }[] = [];
  async ask(to: ActorAddress, body: Command, opts?: AskOptions): Promise<unknown> {
    this.asks.push({ to, body, opts });
    return { echoed: body };
  }
  tell(): void {}
  fanout(): void {}
  async fanoutAsk(): Promise<string[]> {
    return [];
  }
}

const routes = [
  defineRoute({
    method: 'GET',
    path: '/users/{user_id}',
    auth: 'required',
    summary: 'Get a user',
    description: 'One user by id.',
    tags: ['users'],
    params: Type.Object({
      user_id: Type.Integer({ description: 'The user.' }),
      include_custom_profile_fields: Type.Optional(Type.Boolean()),
    }),
    response: Type.Object({ user_id: Type.Integer(), custom: Type.Boolean() }),
    handler: ({ params }) => ({ user_id: params.user_id, custom: params.include_custom_profile_fields ?? false }),
  }),
  defineRoute({
    method: 'GET',
    path: '/users/me',
    auth: 'required',
    summary: 'Get my own user',
    description: 'The caller.',
    params: Type.Object({}),
    // `principal` needs no check on a required route: the type says it is set.
    handler: ({ principal }) => ({ user_id: principal.user_id, email: principal.email }),
  }),
  defineRoute({
    method: 'POST',
    path: '/messages',
    auth: 'required',
    summary: 'Send a message',
    description: 'Sends a channel or direct message.',
    params: Type.Object({
      type: Type.Union([Type.Literal('stream'), Type.Literal('channel'), Type.Literal('direct')]),
      to: Type.Union([Type.Integer(), Type.Array(Type.Integer()), Type.String()]),
      topic: Type.Optional(Type.String({ maxLength: 60 })),
      content: Type.String({ minLength: 1 }),
      read_by_sender: Type.Optional(Type.Boolean()),
      narrow: Type.Optional(Type.Array(Type.Object({ operator: Type.String(), operand: Type.String() }))),
    }),
    aliases: { topic: ['subject'] },
    handler: async ({ params, actors, requestId }) => {
      // A fake command to an address of no particular type: the fake actors answer anything.
      const anywhere: ActorAddress = { type: 'channel', key: '1.9' };
      await actors.ask(anywhere, { type: 'send', message: params });
      return { id: 42, params, requestId };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/messages/{message_id}',
    auth: 'required',
    summary: 'Edit a message',
    description: 'Form bodies arrive on PATCH too.',
    params: Type.Object({ message_id: Type.Integer(), content: Type.String() }),
    handler: ({ params }) => ({ params }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/users/me/subscriptions',
    auth: 'required',
    summary: 'Unsubscribe',
    description: 'A JSON list in a DELETE body or query.',
    params: Type.Object({ subscriptions: Type.Array(Type.String()) }),
    handler: ({ params }) => ({ removed: params.subscriptions }),
  }),
  defineRoute({
    method: 'GET',
    path: '/server_settings',
    auth: 'optional',
    summary: 'Server settings',
    description: 'Anyone may ask; a signed-in caller is recognized.',
    params: Type.Object({}),
    handler: ({ principal }) => ({ user_id: principal?.user_id ?? null }),
  }),
  defineRoute({
    method: 'POST',
    path: '/fetch_api_key',
    auth: 'none',
    summary: 'Fetch an API key',
    description: 'Credentials are parameters here.',
    params: Type.Object({ username: Type.String(), password: Type.String() }),
    handler: ({ params, log }) => {
      // A careless handler: redaction must still hide the password.
      log.info({ params }, 'login attempt');
      return { api_key: 'good-key', email: params.username };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/crash',
    auth: 'none',
    summary: 'Fails unexpectedly',
    description: 'A fault of ours.',
    params: Type.Object({}),
    handler: () => {
      throw new Error(SECRET_MESSAGE);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/busy',
    auth: 'none',
    summary: 'Fails as overloaded',
    description: 'A 5xx ChatError, which the edge logs.',
    params: Type.Object({}),
    handler: () => {
      throw new ChatError('OVERLOADED', 'Too busy; try again');
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/channel_lookup',
    auth: 'none',
    summary: 'Fails with a domain error',
    description: 'A ChatError with extra fields.',
    params: Type.Object({ name: Type.String() }),
    handler: ({ params }) => {
      throw new ChatError('STREAM_DOES_NOT_EXIST', `Channel '${params.name}' does not exist`, {
        stream: params.name,
      });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/user_uploads',
    auth: 'required',
    summary: 'Upload a file',
    description: 'Multipart.',
    files: true,
    params: Type.Object({}),
    handler: async ({ files }) => {
      const contents: string[] = [];
      for (const file of files) {
        const chunks: Uint8Array[] = [];
        for await (const chunk of file.read()) chunks.push(chunk);
        contents.push(Buffer.concat(chunks).toString('utf8'));
      }
      return {
        files: files.map(({ field, filename, contentType, size }) => ({ field, filename, contentType, size })),
        contents,
      };
    },
  }),
];

export const LIMITS = { bodyBytes: 2048, uploadBytes: 8192 };

export interface Started {
  server: Server;
  baseUrl: string;
  actors: FakeActors;
  logLines: Record<string, unknown>[];
  /** Log lines (as written) that name a top-level key twice, which JSON.parse would hide. */
  repeatedKeys: string[];
}

/** The top-level keys of a JSON object text that appear more than once. */
export function repeatedTopLevelKeys(text: string): string[] {
  const seen = new Set<string>();
  const repeated: string[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const key = text.slice(i + 1, j);
      i = j;
      if (depth === 1 && text[j + 1] === ':') {
        if (seen.has(key)) repeated.push(key);
        seen.add(key);
      }
    }
  }
  return repeated;
}

/** The edge on a free port of the loopback interface, with its log lines captured. */
export async function startEdge(): Promise<Started> {
  const logLines: Record<string, unknown>[] = [];
  const repeatedKeys: string[] = [];
  const write = (line: string) => {
    if (repeatedTopLevelKeys(line).length > 0) repeatedKeys.push(line);
    logLines.push(JSON.parse(line) as Record<string, unknown>);
  };
  const logger = createLogger({ level: 'info' }, { write });
  const actors = new FakeActors();
  const app = createEdgeApp({
    routes,
    actors: typedClient(actors),
    authenticate,
    logger,
    metrics: createMetricsRegistry({ processMetrics: false }),
    limits: LIMITS,
    info: { title: 'Toy API', version: '0.0.1' },
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}`, actors, logLines, repeatedKeys };
}

export const basic = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`;
export const IAGO = basic('iago@zulip.com', 'good-key');
