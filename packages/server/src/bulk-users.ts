import { realmAddress, type ApiKeyGrant, type NewUser, type Role } from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';

/** Accounts per `realm.createUsers`: its journal record (accounts, reply, and the `realm_user` fan-out to
 * everyone, owed until delivered) stays near 400 KB in a 10,000-user realm, under Kafka's 1 MB. */
export const USERS_PER_BATCH = 250;

export interface BulkUsers {
  realm: string;
  count: number;
  /** The first number put in the patterns; the others follow. */
  start: number;
  /** Address and name with `{n}` where each account's number goes. */
  emailPattern: string;
  namePattern: string;
  role: Role;
}

/**
 * Creates `count` accounts in batches, for realms of thousands (load tests,
 * imports). They get API keys and no password, like accounts from an
 * external login: hashing a password costs ~100 ms of CPU each, which made
 * a 10,000-user realm take ten minutes. Everything else is what `POST
 * /users` does, through the same realm-actor code. Each batch is all or
 * none; an error stops at the batch it happened in.
 */
export async function createUsers(
  actors: ActorClient,
  spec: BulkUsers,
  onBatch?: (done: number) => void,
): Promise<ApiKeyGrant[]> {
  const grants: ApiKeyGrant[] = [];
  for (let from = 0; from < spec.count; from += USERS_PER_BATCH) {
    const users: NewUser[] = [];
    for (let i = from; i < Math.min(spec.count, from + USERS_PER_BATCH); i++) {
      const n = String(spec.start + i);
      users.push({
        email: spec.emailPattern.replaceAll('{n}', n),
        full_name: spec.namePattern.replaceAll('{n}', n),
        role: spec.role,
      });
    }
    const created = await actors.ask(realmAddress(spec.realm), { type: 'realm.createUsers', users });
    grants.push(...created.map((u) => ({ api_key: u.api_key, email: u.email, user_id: u.user_id })));
    onBatch?.(grants.length);
  }
  return grants;
}
