import {
  hashPassword,
  realmAddress,
  ROLES,
  type ApiKeyGrant,
  type NewUser,
  type Role,
  type CreatedUser,
} from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import { createUsers } from './bulk-users.js';

/**
 * The operator's commands. Each takes parsed options and prints one result;
 * they talk to actors like any other client, so they work on whatever node
 * the command line started.
 */
export type AdminOptions = Record<string, string | boolean | undefined>;

function required(options: AdminOptions, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export class UsageError extends Error {}

function roleOf(name: string): Role {
  const role = ROLES[name as keyof typeof ROLES];
  if (role === undefined) throw new UsageError(`--role must be one of ${Object.keys(ROLES).join(', ')}`);
  return role;
}

async function newUser(options: AdminOptions, role: Role): Promise<NewUser> {
  const password = typeof options.password === 'string' ? options.password : process.env.CHAT_PASSWORD;
  const user: NewUser = { email: required(options, 'email'), full_name: required(options, 'name'), role };
  if (password) user.password_hash = await hashPassword(password);
  if (options.bot === true) user.bot_type = 1;
  return user;
}

export const ADMIN_COMMANDS: Record<
  string,
  { usage: string; run(actors: ActorClient, o: AdminOptions): Promise<unknown> }
> = {
  'create-realm': {
    usage: '--realm ID --realm-name NAME --email OWNER_EMAIL --name OWNER_NAME [--password P]',
    async run(actors, options) {
      const owner = await newUser(options, ROLES.owner);
      const realm = realmAddress(required(options, 'realm'));
      const [created] = await actors.ask(realm, {
        type: 'realm.create',
        name: required(options, 'realm-name'),
        description: '',
        development: false,
        users: [owner],
      });
      return grant(created!);
    },
  },
  'create-user': {
    usage: '--realm ID --email EMAIL --name NAME [--role member] [--password P] [--bot]',
    async run(actors, options) {
      const role = roleOf(typeof options.role === 'string' ? options.role : 'member');
      const realm = realmAddress(required(options, 'realm'));
      const user = await newUser(options, role);
      return grant(await actors.ask(realm, { type: 'realm.createUser', user }));
    },
  },
  'create-users': {
    usage: "--realm ID --count N --email 'user-{n}@x.org' --name 'User {n}' [--start 0] [--role member] (no passwords)",
    async run(actors, options) {
      const count = Number(required(options, 'count'));
      const start = Number(typeof options.start === 'string' ? options.start : 0);
      if (!Number.isSafeInteger(count) || count < 1) throw new UsageError('--count must be a positive integer');
      if (!Number.isSafeInteger(start) || start < 0) throw new UsageError('--start must be an integer >= 0');
      const emailPattern = required(options, 'email');
      if (count > 1 && !emailPattern.includes('{n}')) throw new UsageError("--email needs '{n}' for the number");
      const role = roleOf(typeof options.role === 'string' ? options.role : 'member');
      const spec = { realm: required(options, 'realm'), count, start, emailPattern, role };
      // Progress on stderr: stdout is the JSON of the keys.
      return createUsers(actors, { ...spec, namePattern: required(options, 'name') }, (done) =>
        process.stderr.write(`created ${done}/${count}\n`),
      );
    },
  },
  'reset-api-key': {
    usage: '--realm ID --email EMAIL',
    run: (actors, options) =>
      actors.ask(realmAddress(required(options, 'realm')), {
        type: 'realm.resetApiKey',
        email: required(options, 'email'),
      }),
  },
  'change-user-role': {
    // The original's `manage.py change_user_role`, for now only for the one permission no API grants; this
    // server does not change roles (member, moderator, administrator, ...) after an account is made.
    usage: '--realm ID --email EMAIL --role can_create_users|can_change_user_emails [--revoke]',
    run(actors, options) {
      const permission = required(options, 'role');
      if (permission !== 'can_create_users' && permission !== 'can_change_user_emails') {
        throw new UsageError(
          '--role must be can_create_users or can_change_user_emails (other roles change through PATCH /users/{user_id})',
        );
      }
      return actors.ask(realmAddress(required(options, 'realm')), {
        type: 'realm.setCanCreateUsers',
        email: required(options, 'email'),
        granted: options.revoke !== true,
        permission,
      });
    },
  },
  'list-users': {
    usage: '--realm ID',
    run: (actors, options) => actors.ask(realmAddress(required(options, 'realm')), { type: 'realm.listUsers' }),
  },
};

const grant = (user: CreatedUser): ApiKeyGrant => ({ api_key: user.api_key, email: user.email, user_id: user.user_id });
