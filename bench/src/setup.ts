import type { Scenario } from './config/args.js';
import type { Credentials, Http } from './http.js';
import type { Progress } from './progress.js';
import { pool } from './util.js';

/** The size of a realm a scenario needs; it names the cache entry. */
export interface RealmShape {
  scenario: Scenario;
  users: number;
  channels: number;
  channelSize: number;
}

export interface BenchUser extends Credentials {
  index: number;
  userId: number;
}

export interface BenchChannel {
  name: string;
  /** Indices into Manifest.users. */
  members: number[];
}

/** What setup made, saved next to the cached data folder so a cached run needs no API call to learn it. */
export interface Manifest {
  version: 1;
  key: string;
  shape: RealmShape;
  admin: Credentials;
  users: BenchUser[];
  channels: BenchChannel[];
  /** How the accounts were made: the `create-users` admin command (no passwords) or POST /users. */
  createdBy?: UserCreation;
}

export type UserCreation = 'create-users' | 'POST /users';

/** Every bench user has this password, so a production-mode target can hand out API keys too. */
export const BENCH_PASSWORD = 'bench-password-not-secret';
const PRINCIPALS_PER_REQUEST = 500;

export const sizeKey = (shape: RealmShape) =>
  `${shape.scenario}-${shape.users}u-${shape.channels}c-${shape.channelSize}s`;

/** `{n}` is the user's index; the `create-users` admin command takes the same patterns. */
export const EMAIL_PATTERN = 'bench-user-{n}@example.com';
export const NAME_PATTERN = 'Bench User {n}';
export const benchEmail = (index: number) => EMAIL_PATTERN.replace('{n}', String(index));
export const benchName = (index: number) => NAME_PATTERN.replace('{n}', String(index));

/**
 * Who is in which channel: each user joins `perUser` consecutive channels
 * (wrapping), which gives every channel about `channelSize` members.
 */
export function membership(shape: RealmShape): BenchChannel[] {
  const perUser = Math.min(shape.channels, Math.max(1, Math.round((shape.channelSize * shape.channels) / shape.users)));
  const channels: BenchChannel[] = Array.from({ length: shape.channels }, (_, c) => ({
    name: `bench ${shape.scenario} ${shape.users}u ${c}`,
    members: [],
  }));
  for (let i = 0; i < shape.users; i++) {
    for (let j = 0; j < perUser; j++) channels[(i * perUser + j) % shape.channels]!.members.push(i);
  }
  return channels;
}

/** The administrator's credentials: given on the command line, or the development realm's password-less login. */
export async function adminCredentials(http: Http, email: string, apiKey: string | undefined): Promise<Credentials> {
  if (apiKey) return { email, apiKey };
  const body = await http.must('POST', '/dev_fetch_api_key', { username: email });
  return { email, apiKey: body.api_key as string };
}

/** An existing user's key: the development login when the server offers it, the password otherwise. */
async function apiKeyOf(http: Http, email: string): Promise<{ api_key: string; user_id: number }> {
  const dev = await http.request('POST', '/dev_fetch_api_key', { username: email });
  if (dev.status === 200) return dev.body as { api_key: string; user_id: number };
  return (await http.must('POST', '/fetch_api_key', { username: email, password: BENCH_PASSWORD })) as {
    api_key: string;
    user_id: number;
  };
}

/**
 * Builds the realm through the public API as an administrator would: POST
 * /users per user (the server hashes each password, which is what makes a
 * big realm slow to build and worth caching), then the subscriptions.
 * Users that exist already (a URL target set up by an earlier run) are
 * reused.
 */
export async function setUpRealm(
  http: Http,
  shape: RealmShape,
  admin: Credentials,
  concurrency: number,
  progress: Progress,
): Promise<Manifest> {
  const users = await createUsersByApi(http, shape, admin, concurrency, progress);
  return subscribeAll(http, shape, admin, users, concurrency, progress, 'POST /users');
}

export async function createUsersByApi(
  http: Http,
  shape: RealmShape,
  admin: Credentials,
  concurrency: number,
  progress: Progress,
): Promise<BenchUser[]> {
  const users: BenchUser[] = new Array(shape.users);
  progress.start('creating users', shape.users, `(${sizeKey(shape)}, POST /users)`);
  await pool(
    Array.from({ length: shape.users }, (_, i) => i),
    concurrency,
    async (index) => {
      const email = benchEmail(index);
      const created = await http.request(
        'POST',
        '/users',
        { email, password: BENCH_PASSWORD, full_name: benchName(index) },
        admin,
        120_000,
      );
      // An error other than "already in use" shows up when its key cannot be fetched either.
      const key = await apiKeyOf(http, email).catch((err: Error) => {
        throw new Error(`cannot create ${email}: ${JSON.stringify(created.body)} (${err.message})`);
      });
      users[index] = { index, email, apiKey: key.api_key, userId: key.user_id };
      progress.increment();
    },
  );
  progress.stop();
  return users;
}

/**
 * POST /users/me/subscriptions with principals, 500 per request: channels
 * in parallel, the chunks of one channel in order (the first creates it).
 * Each request is one decision of the channel's actor, so a channel of
 * 10,000 takes 20 requests.
 */
export async function subscribeAll(
  http: Http,
  shape: RealmShape,
  admin: Credentials,
  users: BenchUser[],
  concurrency: number,
  progress: Progress,
  createdBy: UserCreation,
): Promise<Manifest> {
  const channels = membership(shape);
  const total = channels.reduce((n, c) => n + c.members.length, 0);
  let done = 0;
  let requests = 0;
  progress.start('subscribing', total, `(${PRINCIPALS_PER_REQUEST} per request)`);
  await pool(channels, concurrency, async (channel) => {
    for (let from = 0; from < channel.members.length;) {
      const members = channel.members.slice(from, from + PRINCIPALS_PER_REQUEST);
      await http.must(
        'POST',
        '/users/me/subscriptions',
        {
          subscriptions: [{ name: channel.name }],
          principals: members.map((i) => users[i]!.userId),
          // The setup is not a conversation: no notification bot message to each member.
          send_new_subscription_messages: false,
        },
        admin,
      );
      from += members.length;
      done += members.length;
      requests++;
      progress.update(done, `${requests} requests`);
    }
  });
  progress.stop();
  return { version: 1, key: sizeKey(shape), shape, admin, users, channels, createdBy };
}
