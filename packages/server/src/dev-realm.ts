import {
  channelAddress,
  ChatError,
  realmAddress,
  ROLES,
  type ErrorCode,
  type NewUser,
  type Role,
} from '@chat/protocol';
import { withOptions, type ActorClient } from '@chat/runtime';
import { createChannel, createChannelActor } from '@chat/api';

/**
 * The organization of the original server's development environment, so that
 * client developers can point their test suites at familiar data. Users,
 * roles, channels and subscriptions follow the original's test-suite data;
 * ids follow its ordering (hamlet is 10, Verona is 3).
 */
const u = (email: string, full_name: string, role: Role): NewUser => ({ email, full_name, role });

const USERS: NewUser[] = [
  u('AARON@zulip.com', 'aaron', ROLES.member),
  u('ZOE@zulip.com', 'Zoe', ROLES.member),
  u('cordelia@zulip.com', "Cordelia, Lear's daughter", ROLES.member),
  u('desdemona@zulip.com', 'Desdemona', ROLES.owner),
  u('hamlet@zulip.com', 'King Hamlet', ROLES.member),
  // The original's API documentation tests (tools/test-api) grant iago `can_create_users` before they run, so
  // that the create-user example works as the administrator; desdemona, the owner, does not hold it.
  // iago also holds `can_change_user_emails` (new_email of PATCH /users/{id}), so the one account the tests
  // manage others with can use it.
  { ...u('iago@zulip.com', 'Iago', ROLES.administrator), can_create_users: true, can_change_user_emails: true },
  u('othello@zulip.com', 'Othello, the Moor of Venice', ROLES.member),
  u('polonius@zulip.com', 'Polonius', ROLES.guest),
  u('prospero@zulip.com', 'Prospero from The Tempest', ROLES.member),
  u('shiva@zulip.com', 'शिव', ROLES.moderator),
];
const FIRST_USER_ID = 6;

interface DevChannel {
  name: string;
  description: string;
  invite_only?: boolean;
  is_web_public?: boolean;
  members: string[];
}

const CORE = ['desdemona', 'hamlet', 'iago'];
const CHANNELS: DevChannel[] = [
  { name: 'Zulip', description: 'Questions and discussion about using Zulip.', members: CORE },
  { name: 'sandbox', description: 'Experiment with Zulip here. :test_tube:', members: CORE },
  {
    name: 'Verona',
    description: 'A city in Italy',
    members: ['AARON', 'ZOE', 'cordelia', 'desdemona', 'hamlet', 'iago', 'othello', 'polonius', 'prospero', 'shiva'],
  },
  {
    name: 'Denmark',
    description: 'A Scandinavian country',
    members: ['desdemona', 'hamlet', 'iago', 'othello', 'prospero', 'shiva', 'ZOE'],
  },
  { name: 'Rome', description: 'Yet another Italian city', is_web_public: true, members: ['ZOE'] },
  {
    name: 'Scotland',
    description: 'Located in the United Kingdom',
    members: ['iago', 'othello', 'prospero', 'shiva', 'ZOE'],
  },
  { name: 'Venice', description: 'A northeastern Italian city', members: ['desdemona', 'prospero', 'ZOE'] },
  { name: 'core team', description: 'A private channel for core team members', invite_only: true, members: CORE },
];

export const DEV_REALM = {
  stringId: 'zulip',
  name: 'Zulip Dev',
  description: "The Zulip development environment default organization.  It's great for testing!",
  users: USERS,
  channels: CHANNELS,
};

/**
 * Creates the development realm unless it exists. Each step is idempotent,
 * so a start interrupted half-way finishes the job on the next start: a
 * channel the realm registered whose actor was not created yet gets it. Each
 * write goes under an idempotency key of its own (the same on every edge and
 * every start), so that it applies once when sent twice: by the client's
 * retry of an ask that was in fact applied (a shard's old owner, whose lease
 * ran out while it still heard the shard's subject, answers "not owner"
 * before the new owner's answer), or by two edges seeding at once.
 */
export async function ensureDevRealm(actors: ActorClient): Promise<'created' | 'present'> {
  const realm = realmAddress(DEV_REALM.stringId);
  const realmExists = await succeeds(actors.ask(realm, { type: 'realm.info' }), 'NONEXISTENT_SUBDOMAIN');
  if (!realmExists) {
    await actors.ask(
      realm,
      {
        type: 'realm.create',
        name: DEV_REALM.name,
        description: DEV_REALM.description,
        development: true,
        web_public_access_enabled: true,
        // As the original's development realm: spectators may read web-public channels.
        settings: { enable_spectator_access: true },
        users: USERS,
        first_user_id: FIRST_USER_ID,
      },
      { idempotencyKey: `dev-realm:${DEV_REALM.stringId}` },
    );
  }
  const users = await actors.ask(realm, { type: 'realm.listUsers' });
  const idOf = new Map(users.map((user) => [user.email.split('@')[0]!, user.user_id]));
  for (const channel of CHANNELS) {
    const found = await actors
      .ask(realm, { type: 'realm.findChannel', name: channel.name })
      .catch(ignore('STREAM_DOES_NOT_EXIST'));
    // Not done if a start stopped between registering the channel and creating its actor.
    if (found && (await channelCreated(actors, found.channel_id))) continue;
    const spec = {
      name: channel.name,
      description: channel.description,
      invite_only: channel.invite_only ?? false,
      is_web_public: channel.is_web_public ?? false,
      history_public_to_subscribers: true,
    };
    const once = withOptions(actors, (_to, body) => ({
      idempotencyKey: `dev-realm:${DEV_REALM.stringId}:${channel.name}:${body.type}`,
    }));
    const members = channel.members.map((name) => idOf.get(name)!);
    if (found) await createChannelActor(once, DEV_REALM.stringId, found, spec, null, members);
    else await createChannel(once, DEV_REALM.stringId, spec, null, members);
  }
  return realmExists ? 'present' : 'created';
}

/** Whether the channel's actor was created: it answers "Invalid channel ID" until then. */
function channelCreated(actors: ActorClient, channelId: number): Promise<boolean> {
  const ask = actors.ask(channelAddress(DEV_REALM.stringId, channelId), { type: 'channel.info' });
  return succeeds(ask, 'BAD_REQUEST');
}

async function succeeds(ask: Promise<unknown>, failure: ErrorCode): Promise<boolean> {
  return ask.then(() => true, ignore(failure)).then((ok) => ok === true);
}

/** Turns one expected error code into `undefined`; rethrows the rest. */
function ignore(code: ErrorCode) {
  return (err: unknown): undefined => {
    if (err instanceof ChatError && err.code === code) return undefined;
    throw err;
  };
}
