import {
  authMethodEnabled,
  ChatError,
  generateApiKey,
  isOwner,
  isRole,
  secretsEqual,
  type CreatedUser,
  type NewUser,
  type Principal,
  type RealmProtocol,
} from '@chat/protocol';
import { handlerTable, type ActorBehavior } from '@chat/runtime';
import { toPrincipal, toProfile } from './profile.js';
import { askLegacyEntries, DIRECTORY_TIMER, directoryHandlers } from './directory.js';
import { inviteHandlers, spentInvites } from './invites/invites.js';
import { exportHandlers } from './exports.js';
import { emailChangeHandlers } from './accounts/email-change.js';
import { usersAdded } from './people.js';
import { emailVisibilityHandlers, startingVisibility } from './accounts/email-visibility.js';
import { folderHandlers } from './folders.js';
import { emojiHandlers } from './emoji.js';
import { settingsHandlers as organizationHandlers, startingSettings } from './settings.js';
import { userAdminHandlers } from './accounts/manage.js';
import { defaultChannelHandlers } from './default-channels.js';
import { playgroundHandlers } from './playgrounds.js';
import { linkifierHandlers } from './linkifiers.js';
import { profileFieldHandlers } from './profile-fields.js';
import { groupHandlers } from './groups/groups.js';
import { broadcast } from './broadcast.js';
import { decidePublicListener, listeners, relayPublicMessage } from './public-listeners.js';
import { createUsers } from './accounts/bulk.js';
import { decideSetActive } from './accounts/deactivation.js';
import { decideCanCreateUsers } from './accounts/create-users-permission.js';
import { decideMessageId, restMessageIds, resumeMessageIds } from './message-ids.js';
import { statusHandlers } from './status/commands.js';
import { botHandlers } from './bots/bots.js';
import { owingRows } from './bots/model.js';
import { listUsers } from './user-list.js';
import { sessionHandlers } from './accounts/sessions.js';
import {
  applyEvent,
  initialState,
  migrate,
  NOTIFICATION_BOT,
  type Account,
  type RealmEvent,
  type RealmHandlers,
  type RealmState,
} from './state.js';

const MAX_NAME_LENGTH = 100;
// Deliberately loose: the address is confirmed by mail, not by a pattern.
const EMAIL = /^[^\s@]+@[^\s@]+$/;

const noRealm = () => new ChatError('NONEXISTENT_SUBDOMAIN', 'Invalid subdomain');
const wrongKey = () => new ChatError('INVALID_API_KEY', 'Invalid API key');
const wrongLogin = () => new ChatError('AUTHENTICATION_FAILED', 'Your username or password is incorrect');
const deactivated = () => new ChatError('USER_DEACTIVATED', 'Account is deactivated');

/** The principal these credentials name, or INVALID_API_KEY / USER_DEACTIVATED. */
function authenticate(state: RealmState, email: string, apiKey: string): Principal {
  const account = accountByEmail(state, email);
  // Compare even for unknown addresses, so timing does not reveal which exist.
  const expected = account?.apiKey ?? 'x'.repeat(32);
  if (!secretsEqual(apiKey, expected) || !account) throw wrongKey();
  if (!account.isActive) throw deactivated();
  return toPrincipal(state, account);
}

/** A stable numeric id for a realm, derived from its string id. */
function realmIdOf(stringId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < stringId.length; i++) hash = Math.imul(hash ^ stringId.charCodeAt(i), 0x01000193);
  return ((hash >>> 0) % 0x7fffffff) + 1;
}

export function accountByEmail(state: RealmState, email: string): Account | undefined {
  const id = state.byEmail[email.toLowerCase()];
  return id === undefined ? undefined : state.accounts[id];
}

function activeAccount(state: RealmState, username: string): Account {
  const account = accountByEmail(state, username);
  if (!account) throw wrongLogin();
  if (!account.isActive) throw deactivated();
  return account;
}

export function newAccount(state: RealmState, user: NewUser, id: number, now: number): Account {
  const email = user.email.trim();
  if (!EMAIL.test(email)) throw new ChatError('BAD_REQUEST', `Invalid email '${email}'`);
  if (accountByEmail(state, email)) throw new ChatError('BAD_REQUEST', `Email '${email}' already in use`);
  const fullName = user.full_name.trim();
  if (fullName.length === 0 || fullName.length > MAX_NAME_LENGTH) throw new ChatError('BAD_REQUEST', 'Invalid name');
  if (!isRole(user.role)) throw new ChatError('BAD_REQUEST', 'Invalid role');
  return {
    id,
    email,
    fullName,
    role: user.role,
    isActive: true,
    dateJoined: Math.floor(now / 1000),
    apiKey: generateApiKey(),
    passwordHash: user.password_hash ?? null,
    botType: user.bot_type ?? null,
    botOwnerId: user.bot_owner_id ?? null,
    timezone: user.timezone ?? '',
    avatarVersion: 1,
    ...(user.can_create_users === true && { canCreateUsers: true }),
    ...(user.can_change_user_emails === true && { canChangeUserEmails: true }),
    ...startingVisibility(state, id, (user.bot_type ?? null) !== null),
  };
}

export const toCreated = (account: Account): CreatedUser => ({ ...toProfile(account), api_key: account.apiKey });

const handlers: RealmHandlers<RealmProtocol> = {
  ...groupHandlers,
  ...folderHandlers,
  ...emojiHandlers,
  ...inviteHandlers,
  ...exportHandlers,
  ...emailChangeHandlers,
  ...statusHandlers,
  ...directoryHandlers,
  ...organizationHandlers,
  ...userAdminHandlers,
  ...emailVisibilityHandlers,
  ...defaultChannelHandlers,
  ...playgroundHandlers,
  ...linkifierHandlers,
  ...profileFieldHandlers,
  ...botHandlers,
  ...sessionHandlers,
  'realm.create': (ctx, command) => {
    const state = ctx.state;
    if (state.exists) throw new ChatError('BAD_REQUEST', `Realm '${state.stringId}' already exists`);
    if (!command.users.some(isOwner)) {
      throw new ChatError('BAD_REQUEST', 'A new realm needs an owner');
    }
    const firstUserId = command.first_user_id ?? 1;
    const accounts: Account[] = [];
    const scratch: RealmState = { ...state, byEmail: {} };
    for (const [i, user] of command.users.entries()) {
      const account = newAccount(scratch, user, firstUserId + i, ctx.now);
      scratch.byEmail[account.email.toLowerCase()] = account.id;
      accounts.push(account);
    }
    const info = {
      type: 'realmCreated' as const,
      id: realmIdOf(state.stringId),
      name: command.name,
      description: command.description,
      development: command.development,
      webPublicAccessEnabled: command.web_public_access_enabled ?? false,
      settings: command.settings,
      at: Math.floor(ctx.now / 1000),
      firstUserId,
    };
    const bot = newAccount(scratch, { ...NOTIFICATION_BOT, bot_type: 1 }, firstUserId + accounts.length, ctx.now);
    const created = [...accounts, bot].map((account) => ({ type: 'accountCreated' as const, account }));
    const botEvent = { type: 'notificationBotCreated' as const, userId: bot.id };
    return { events: [info, ...created, botEvent], reply: accounts.map(toCreated) };
  },
  'realm.info': ({ state }) => {
    return {
      reply: {
        id: state.id,
        string_id: state.stringId,
        name: state.name,
        description: state.description,
        development: state.development,
        web_public_access_enabled: state.webPublicAccessEnabled,
        date_created: state.dateCreated,
        authentication: {
          Dev: authMethodEnabled(state.options ?? {}, 'Dev'),
          Email: authMethodEnabled(state.options ?? {}, 'Email'),
        },
      },
    };
  },
  'realm.createUser': (ctx, command) => {
    const state = ctx.state;
    const account = newAccount(state, command.user, state.nextUserId, ctx.now);
    const spent = spentInvites(state, account.email);
    const events: RealmEvent[] = [{ type: 'accountCreated', account }, ...spent];
    return {
      events,
      reply: toCreated(account),
      fanouts: usersAdded(state, [account]),
      tells: startingSettings(state, [account]),
    };
  },
  'realm.createUsers': (ctx, command) => {
    const state = ctx.state;
    return createUsers(state, command.users, ctx.now);
  },
  'realm.authenticateMany': ({ state }, command) => {
    return {
      reply: command.credentials.map(({ email, api_key }) => {
        try {
          return { principal: authenticate(state, email, api_key) };
        } catch (err) {
          if (err instanceof ChatError) return { error: err.toWire() };
          throw err;
        }
      }),
      // Every poll's authentication: new principals (strings, numbers and a new list of groups), no copies.
      uncopied: true,
    };
  },
  'realm.loginCandidate': ({ state }, command) => {
    // As the original's EmailAuthBackend, before it looks the user up.
    if (command.login && !authMethodEnabled(state.options ?? {}, 'Email')) {
      throw new ChatError('PASSWORD_AUTH_DISABLED', 'Password authentication is disabled in this organization');
    }
    const account = activeAccount(state, command.username);
    if (account.botType !== null) throw wrongLogin();
    return {
      reply: {
        api_key: account.apiKey,
        email: account.email,
        user_id: account.id,
        password_hash: account.passwordHash,
      },
    };
  },
  'realm.devApiKey': ({ state }, command) => {
    if (!state.development) throw new ChatError('BAD_REQUEST', 'DevAuthBackend not enabled.');
    // The original's DevAuthBackend finds no one while the realm has "Dev" off.
    if (!authMethodEnabled(state.options ?? {}, 'Dev')) throw wrongLogin();
    const account = activeAccount(state, command.username);
    return { reply: { api_key: account.apiKey, email: account.email, user_id: account.id } };
  },
  'realm.getUser': ({ state }, command) => {
    const account = state.accounts[command.user_id];
    if (!account) throw new ChatError('BAD_REQUEST', 'No such user');
    return { reply: toProfile(account) };
  },
  'realm.listUsers': ({ state }) => {
    return { reply: listUsers(state).users };
  },
  'realm.usersVersioned': ({ state }, command) => {
    const { version, users } = listUsers(state);
    return { reply: command.unless === version ? { version } : { version, users } };
  },
  'realm.broadcast': ({ state }, command) => {
    return broadcast(state, command);
  },
  'realm.publicListener': ({ state }, command) => {
    return decidePublicListener(state, command);
  },
  'realm.publicMessage': ({ state }, command) => {
    return relayPublicMessage(state, command);
  },
  'realm.nextMessageId': ({ state }, command) => decideMessageId(state, command.floor),
  'realm.publicListeners': ({ state }) => {
    return { reply: listeners(state) };
  },
  'realm.setActive': ({ state }, command) => {
    return decideSetActive(state, command);
  },
  'realm.setCanCreateUsers': ({ state }, command) => {
    return decideCanCreateUsers(state, command);
  },
  'realm.resetApiKey': ({ state }, command) => {
    const account = accountByEmail(state, command.email);
    if (!account) throw new ChatError('BAD_REQUEST', `No user with email '${command.email}'`);
    const apiKey = generateApiKey();
    return { events: [{ type: 'apiKeyChanged', userId: account.id, apiKey }], reply: { api_key: apiKey } };
  },
};

export const realmBehavior: ActorBehavior<RealmState, RealmEvent> = {
  type: 'realm',
  eventVersion: 1,
  initial: initialState,
  handle: handlerTable(handlers, (ctx, command) => {
    if (command.type !== 'realm.create' && !ctx.state.exists) throw noRealm();
  }),
  apply: applyEvent,
  rows: owingRows,
  onActivate: (ctx) => {
    migrate(ctx.state as RealmState);
    resumeMessageIds(ctx.state as RealmState);
    if (askLegacyEntries(ctx.state).length > 0) ctx.timers.set(DIRECTORY_TIMER, 0);
  },
  onTimer: (ctx, name) => (name === DIRECTORY_TIMER ? { tells: askLegacyEntries(ctx.state) } : {}),
  atRest: restMessageIds,
};
