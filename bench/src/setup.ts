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
}

/** Every bench user has this password, so a production-mode target can hand out API keys too. */
export const BENCH_PASSWORD = 'bench-password-not-secret';
const PRINCIPALS_PER_REQUEST = 500;

export const sizeKey = (shape: RealmShape) =>
  `${shape.scenario}-${shape.users}u-${shape.channels}c-${shape.channelSize}s`;

export const benchEmail = (index: number) => `bench-user-${index}@example.com`;

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
 * big realm slow to build and worth caching), then POST
 * /users/me/subscriptions with principals per channel. Users that exist
 * already (a URL target set up by an earlier run) are reused.
 */
export async function setUpRealm(
  http: Http,
  shape: RealmShape,
  admin: Credentials,
  concurrency: number,
  progress: Progress,
): Promise<Manifest> {
  const channels = membership(shape);
  const chunks = channels.reduce((n, c) => n + Math.ceil(c.members.length / PRINCIPALS_PER_REQUEST), 0);
  const users: BenchUser[] = new Array(shape.users);
  progress.start('creating users', shape.users, `(${sizeKey(shape)})`);
  await pool(
    Array.from({ length: shape.users }, (_, i) => i),
    concurrency,
    async (index) => {
      const email = benchEmail(index);
      const created = await http.request(
        'POST',
        '/users',
        { email, password: BENCH_PASSWORD, full_name: `Bench User ${index}` },
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
  progress.start('subscribing', chunks);
  // Channels in parallel, the chunks of one channel in order: the first creates it.
  await pool(channels, concurrency, async (channel) => {
    for (const members of chunk(channel.members, PRINCIPALS_PER_REQUEST)) {
      await http.must(
        'POST',
        '/users/me/subscriptions',
        { subscriptions: [{ name: channel.name }], principals: members.map((i) => users[i]!.userId) },
        admin,
      );
      progress.increment();
    }
  });
  progress.stop();
  return { version: 1, key: sizeKey(shape), shape, admin, users, channels };
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
