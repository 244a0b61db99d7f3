import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import type { ChatClient } from '@chat/testkit';
import type { Config } from '../src/index.js';
import { TestServer } from './support.js';

/** The development realm's user ids (the original's ordering: AARON is 6). */
export const IDS = {
  cordelia: 8,
  desdemona: 9,
  hamlet: 10,
  iago: 11,
  othello: 12,
  polonius: 13,
  prospero: 14,
  shiva: 15,
};

/** A test file's context: its server and the development users it logged in, by name. */
export type Logins<Name extends string> = { server: TestServer } & Record<Name, ChatClient>;

/**
 * The test function of a file whose tests share one server: started before
 * them with `config`, these development users logged in as
 * `t.context.<name>`, and stopped after them. `prepare` runs once they
 * are logged in (ava runs a file's `before` hooks concurrently), and `More`
 * is what it adds to the context.
 */
export function withServer<Name extends string, More extends object = object>(
  names: readonly Name[],
  config: Partial<Config> = {},
  prepare?: (t: ExecutionContext<Logins<Name> & More>) => Promise<void>,
): TestFn<Logins<Name> & More> {
  const test = anyTest as TestFn<Logins<Name> & More>;
  test.before(async (t) => {
    const server = await TestServer.start(config);
    t.context.server = server;
    const users = t.context as Record<string, unknown>;
    for (const name of names) users[name] = await server.login(`${name}@zulip.com`);
    await prepare?.(t);
  });
  test.after.always(async (t) => {
    await t.context.server?.stop();
  });
  return test;
}

export async function userId(client: ChatClient): Promise<number> {
  return (await client.get<{ user_id: number }>('/users/me')).body.user_id;
}

export async function channelId(client: ChatClient, name: string): Promise<number> {
  return (await client.get<{ stream_id: number }>('/get_stream_id', { stream: name })).body.stream_id;
}
