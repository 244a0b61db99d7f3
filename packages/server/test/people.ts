import type { ChatClient } from '@chat/testkit';
import type { TestServer } from './support.js';

/**
 * Accounts a test makes for itself, so that concurrent tests do not change
 * each other's settings, created by the administrator Iago.
 */
export interface Person {
  client: ChatClient;
  user_id: number;
  email: string;
  password: string;
  apiKey: string;
}

interface Realm {
  server: TestServer;
  iago: ChatClient;
}

/** A new member with this address and password, logged in with that password. */
export async function newAccount(realm: Realm, email: string, password: string, fullName: string): Promise<Person> {
  const created = await realm.iago.post<{ user_id: number }>('/users', { email, password, full_name: fullName });
  if (created.status !== 200) throw new Error(`create user: ${JSON.stringify(created.body)}`);
  const key = await realm.server.client.post<{ api_key: string }>('/fetch_api_key', { username: email, password });
  if (key.status !== 200) throw new Error(`fetch_api_key: ${JSON.stringify(key.body)}`);
  const apiKey = key.body.api_key;
  return { client: realm.server.client.as({ email, apiKey }), user_id: created.body.user_id, email, password, apiKey };
}

let counter = 0;

/** A new member named `name`, with an address and a password of its own. */
export function newPerson(realm: Realm, name: string): Promise<Person> {
  counter += 1;
  const email = `${name.toLowerCase().replace(/[^a-z]/g, '')}${counter}-${Date.now()}@zulip.com`;
  return newAccount(realm, email, `secret-${counter}-${Math.random()}`, name);
}
