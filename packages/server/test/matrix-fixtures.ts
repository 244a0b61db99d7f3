import { realmAddress, ROLES, type CreatedUser } from '@chat/protocol';
import type { ChatClient } from '@chat/testkit';
import { IDS } from './context.js';
import type { Caller, CallerRole } from './matrix-model.js';
import { wrongKey, type TestServer } from './support.js';

/**
 * What the permission matrix and the leak tests run against: the
 * development realm's people in each role, a bot, a deactivated account,
 * and the owner of a second realm (`other`), reached through its own
 * subdomain. Its accounts start at id 1000, so no id of this realm's
 * people names one of its own.
 */
export const OTHER_REALM = 'other';
const OTHER_OWNER = { email: 'boss@other.example', full_name: 'Other boss', role: ROLES.owner };
const OTHER_MEMBER = { email: 'pat@other.example', full_name: 'Other member', role: ROLES.member };

/** Who plays each role in the development realm (dev-realm.ts). */
const PEOPLE = {
  guest: ['polonius', IDS.polonius],
  member: ['othello', IDS.othello],
  moderator: ['shiva', IDS.shiva],
  administrator: ['iago', IDS.iago],
  owner: ['desdemona', IDS.desdemona],
} as const;

/** A password known to the test, for the operations that take one. */
export const PASSWORD = 'matrix password';

export class Fixtures {
  private counter = 0;
  /** The development realm's channels by name, once looked up. */
  readonly channels: Record<string, number> = {};

  private constructor(
    readonly server: TestServer,
    readonly callers: Record<CallerRole, Caller>,
    /** An active member who has a password (for POST /fetch_api_key). */
    readonly withPassword: { email: string; userId: number },
  ) {}

  static async make(server: TestServer): Promise<Fixtures> {
    const admin = await server.login('iago@zulip.com');
    const callers = {} as Record<CallerRole, Caller>;
    for (const [role, [name, userId]] of Object.entries(PEOPLE) as Array<[CallerRole, readonly [string, number]]>) {
      const email = `${name}@zulip.com`;
      callers[role] = { role, client: await server.login(email), userId, email, signedIn: true };
    }
    callers.anonymous = {
      role: 'anonymous',
      client: server.client,
      userId: undefined,
      email: undefined,
      signedIn: false,
    };
    callers.wrongKey = {
      role: 'wrongKey',
      client: server.client.as(wrongKey('iago@zulip.com')),
      userId: IDS.iago,
      email: 'iago@zulip.com',
      signedIn: false,
    };
    const realm = realmAddress('zulip');
    // No route creates bots; the operator's create-user --bot does this (admin.ts).
    const bot = await server.server.node.actors.ask(realm, {
      type: 'realm.createUser',
      user: {
        email: 'matrix-bot@zulip.com',
        full_name: 'Matrix bot',
        role: ROLES.member,
        bot_type: 1,
        bot_owner_id: 10,
      },
    });
    callers.bot = {
      role: 'bot',
      client: credentialed(server, bot),
      userId: bot.user_id,
      email: bot.email,
      signedIn: true,
    };
    const gone = await account(admin, 'matrix-gone');
    const goneClient = await server.login(gone.email);
    await expectOk(admin.delete(`/users/${gone.userId}`));
    callers.deactivated = { role: 'deactivated', client: goneClient, ...gone, signedIn: false };
    const other = await otherRealm(server);
    callers.otherRealm = { role: 'otherRealm', ...other.owner, signedIn: true };
    const fixtures = new Fixtures(server, callers, await account(admin, 'matrix-pw'));
    for (const name of ['Verona', 'Denmark', 'core team']) await fixtures.channelId(name);
    return fixtures;
  }

  /** The administrator (iago), who makes the fixtures: the caller's client, so a new API key carries over. */
  get admin(): ChatClient {
    return this.callers.administrator.client;
  }

  /** A name no other call of this run uses. */
  unique(prefix: string): string {
    return `${prefix} ${++this.counter}`;
  }

  async channelId(name: string): Promise<number> {
    if (this.channels[name] === undefined) {
      const reply = await expectOk(this.admin.get<{ stream_id: number }>('/get_stream_id', { stream: name }));
      this.channels[name] = reply.stream_id;
    }
    return this.channels[name]!;
  }

  /** Sends a channel message and answers its id. */
  async send(client: ChatClient, to: string, content: string, topic = 'matrix'): Promise<number> {
    return (await expectOk(client.post<{ id: number }>('/messages', { type: 'stream', to, topic, content }))).id;
  }

  /** Creates a channel (as the administrator) with these subscribers; answers its id. */
  async channel(name: string, subscribers: number[], invite_only = false): Promise<number> {
    const created = await expectOk(
      this.admin.post<{ id: number }>('/channels/create', { name, subscribers, invite_only }),
    );
    this.channels[name] = created.id;
    return created.id;
  }

  /** A fresh active member, made by the administrator. */
  account(prefix = 'matrix-user'): Promise<{ email: string; userId: number }> {
    return account(this.admin, this.unique(prefix).replace(' ', '-'));
  }

  /** A development-realm user's client, logged in. */
  login(name: string): Promise<ChatClient> {
    return this.server.login(`${name}@zulip.com`);
  }
}

/** A client of an account of the other realm, with its id and address. */
export interface OtherAccount {
  client: ChatClient;
  userId: number;
  email: string;
}

/** Creates the second realm, `other`, with an owner and a member, as the create-realm command does. */
export async function otherRealm(server: TestServer): Promise<{ owner: OtherAccount; member: OtherAccount }> {
  const [owner, member] = await server.server.node.actors.ask(realmAddress(OTHER_REALM), {
    type: 'realm.create',
    name: 'Another organization',
    description: '',
    development: false,
    users: [OTHER_OWNER, OTHER_MEMBER],
    first_user_id: 1000,
  });
  const inOther = server.client.inRealm(OTHER_REALM);
  const account = (user: CreatedUser) => ({
    client: credentialed(server, user, inOther),
    userId: user.user_id,
    email: user.email,
  });
  return { owner: account(owner!), member: account(member!) };
}

function credentialed(server: TestServer, user: CreatedUser, client: ChatClient = server.client): ChatClient {
  return client.as({ email: user.email, apiKey: user.api_key });
}

async function account(admin: ChatClient, name: string): Promise<{ email: string; userId: number }> {
  const email = `${name}@zulip.com`;
  const made = await expectOk(
    admin.post<{ user_id: number }>('/users', { email, password: PASSWORD, full_name: name }),
  );
  return { email, userId: made.user_id };
}

/** A reply that must be a success; its body. Fixtures are made through the API, so a failure stops the run. */
export async function expectOk<T>(reply: Promise<{ status: number; body: T }>): Promise<T> {
  const got = await reply;
  if (got.status !== 200) throw new Error(`fixture call failed: ${got.status} ${JSON.stringify(got.body)}`);
  return got.body;
}
