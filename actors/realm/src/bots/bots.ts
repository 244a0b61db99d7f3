import {
  OWING_REALMS,
  botAddEvent,
  type BotProtocol,
  type BotReplies,
  BOT_TYPES,
  ChatError,
  generateApiKey,
  inGroupSetting,
  INTERFACE_TYPES,
  isAdministrator,
  isGuest,
  isOwner,
  isRole,
  ROLES,
  type BotCommand,
  type QueueEvent,
  realmUserUpdated,
  botRemoved,
  botUpdated,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { checkFullName } from '../accounts/update.js';
import { toEveryone, toUsers } from '../broadcast.js';
import { usersAdded } from '../people.js';
import { toPrincipal, apiEmailOf } from '../profile.js';
import type { Account, RealmEvent, RealmHandlers, RealmState } from '../state.js';
import { startingSettings } from '../settings.js';
import { accountByEmail, newAccount } from '../behavior.js';
import { setAvatar } from '../avatars.js';
import { administers, botAudience, botJson, isRealmBot, NO_CONFIG, type BotConfig, type BotEvent } from './model.js';

type Ctx = ActorContext<RealmState>;
type Fanout = NonNullable<Decision<RealmEvent>['fanouts']>[number];
type Of<T extends BotCommand['type']> = Extract<BotCommand, { type: T }>;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
// The local part of an address, as the original's address validation takes it.
const LOCAL_PART = /^[-!#$%&'*+/=?^_`{}|~0-9A-Za-z]+(\.[-!#$%&'*+/=?^_`{}|~0-9A-Za-z]+)*$/;

function caller(state: RealmState, userId: number): Account {
  const account = state.accounts[userId];
  if (!account || !account.isActive) throw new ChatError('USER_DEACTIVATED', 'Account is deactivated');
  return account;
}

/** The original's `require_member_or_admin`: people who are not guests. */
function humanMember(state: RealmState, userId: number): Account {
  const account = caller(state, userId);
  if (account.botType !== null) throw bad('This endpoint does not accept bot requests.');
  if (isGuest(account)) throw bad('Not allowed for guest users');
  return account;
}

/** The original's `access_bot_by_id`. */
function accessBot(state: RealmState, who: Account, botId: number): Account {
  const bot = state.accounts[botId];
  if (!bot || !isRealmBot(state, bot)) throw bad('No such bot');
  if (!administers(who, bot)) throw bad('Insufficient permission');
  return bot;
}

/** A name no active account carries (`check_bot_name_available`). */
function checkNameAvailable(state: RealmState, name: string): void {
  const lower = name.toLowerCase();
  if (Object.values(state.accounts).some((a) => a.isActive && a.fullName.toLowerCase() === lower)) {
    throw bad('Name is already in use!');
  }
}

/**
 * Which types the caller may create: every type with `can_create_bots_group`,
 * incoming webhooks only with `can_create_write_only_bots_group`.
 */
function allowedTypes(state: RealmState, who: Account): number[] {
  const principal = toPrincipal(state, who);
  if (inGroupSetting(state.settings.can_create_bots_group, principal)) {
    return [BOT_TYPES.generic, BOT_TYPES.incoming_webhook, BOT_TYPES.outgoing_webhook];
  }
  if (inGroupSetting(state.settings.can_create_write_only_bots_group, principal)) return [BOT_TYPES.incoming_webhook];
  return [];
}

function checkInterface(type: number): void {
  if (!Object.values(INTERFACE_TYPES).includes(type as 1 | 2)) throw bad('Invalid interface type');
}

const botEvents = (state: RealmState, bot: Account, events: QueueEvent[]): Fanout =>
  toUsers(state, botAudience(state, bot), events);

const update = (userId: number, fields: Record<string, unknown>) => botUpdated({ user_id: userId, ...fields });

function create(ctx: Ctx, command: Of<'realm.createBot'>): Decision<RealmEvent, BotReplies['realm.createBot']> {
  const state = ctx.state;
  const owner = humanMember(state, command.actor.user_id);
  const spec = command.bot;
  const shortName = spec.short_name.trim();
  if (shortName.length === 0) throw bad('Bad name or username');
  const fullName = checkFullName(spec.full_name);
  const email = `${shortName}-bot@${command.domain}`;
  if (!LOCAL_PART.test(`${shortName}-bot`)) throw bad('Bad name or username');
  if (spec.bot_type === BOT_TYPES.embedded) throw bad('Embedded bots are not enabled.');
  if (accountByEmail(state, email)) throw bad('Username already in use');
  checkNameAvailable(state, fullName);
  const allowed = allowedTypes(state, owner);
  const mayCreate = allowed.length === 3 || (spec.bot_type === BOT_TYPES.incoming_webhook && allowed.length > 0);
  if (!mayCreate) throw bad('Insufficient permission');
  if (!allowed.includes(spec.bot_type)) throw bad('Invalid bot type');
  checkInterface(spec.interface_type);
  const user = {
    email,
    full_name: fullName,
    role: ROLES.member,
    bot_type: spec.bot_type as 1 | 2 | 3,
    bot_owner_id: owner.id,
  };
  const account = newAccount(state, user, state.nextUserId, ctx.now);
  const outgoing = spec.bot_type === BOT_TYPES.outgoing_webhook;
  account.bot = {
    defaultSendingStreamId: spec.default_sending_stream_id,
    defaultEventsRegisterStreamId: spec.default_events_register_stream_id,
    defaultAllPublicStreams: spec.default_all_public_streams,
    services: outgoing ? [{ base_url: spec.payload_url, interface: spec.interface_type, token: generateApiKey() }] : [],
  };
  const json = botJson(state, account);
  return {
    events: [{ type: 'accountCreated', account }],
    fanouts: [...usersAdded(state, [account]), botEvents(state, account, [botAddEvent(json)])],
    tells: startingSettings(state, [account]),
    reply: json,
  };
}

function list(state: RealmState, command: Of<'realm.bots'>): Decision<RealmEvent, BotReplies['realm.bots']> {
  const who = caller(state, command.actor.user_id);
  if (command.scope === 'owned') humanMember(state, who.id);
  const all = command.scope === 'administered' && isAdministrator(who);
  const bots = Object.values(state.accounts)
    .filter((a) => isRealmBot(state, a) && (all || a.botOwnerId === who.id))
    .filter((a) => command.scope === 'administered' || a.isActive)
    .sort((a, b) => a.dateJoined - b.dateJoined || a.id - b.id);
  return { reply: bots.map((bot) => botJson(state, bot)) };
}

/** `PATCH /bots/{bot_id}`: each change with the original's checks and events, in its order. */
function change(ctx: Ctx, command: Of<'realm.updateBot'>): Decision<RealmEvent, BotReplies['realm.updateBot']> {
  const state = ctx.state;
  const who = humanMember(state, command.actor.user_id);
  const bot = accessBot(state, who, command.bot_id);
  const changes = command.changes;
  const event: BotEvent = { type: 'botUpdated', userId: bot.id };
  const after: Account = { ...bot, bot: { ...(bot.bot ?? NO_CONFIG) } };
  const config = after.bot!;
  const everyone: QueueEvent[] = [];
  const fanouts: Fanout[] = [];
  const toAudience: QueueEvent[] = [];
  if (changes.full_name !== undefined) {
    const name = checkFullName(changes.full_name);
    if (name !== bot.fullName) {
      checkNameAvailable(state, name);
      event.fullName = after.fullName = name;
      everyone.push(realmUserUpdated({ user_id: bot.id, full_name: name }));
      toAudience.push(update(bot.id, { full_name: name }));
    }
  }
  if (changes.role !== undefined && changes.role !== bot.role) {
    if (!isRole(changes.role)) throw bad('Invalid role');
    const touchesOwner = changes.role === ROLES.owner || bot.role === ROLES.owner;
    if (touchesOwner && !isOwner(who)) throw bad('Must be an organization owner');
    if (!isAdministrator(who)) throw bad('Must be an organization administrator');
    event.role = after.role = changes.role;
    everyone.push(realmUserUpdated({ user_id: bot.id, role: changes.role }));
  }
  if (changes.bot_owner_id !== undefined) {
    const owner = state.accounts[changes.bot_owner_id];
    if (!owner) throw bad('Failed to change owner, no such user');
    if (!owner.isActive) throw bad('Failed to change owner, user is deactivated');
    if (owner.botType !== null) throw bad("Failed to change owner, bots can't own other bots");
    if (owner.id !== bot.botOwnerId) fanouts.push(...ownerChange(state, after, owner));
    event.botOwnerId = after.botOwnerId = owner.id;
  }
  if (changes.default_sending_stream_id !== undefined) {
    config.defaultSendingStreamId = changes.default_sending_stream_id;
    toAudience.push(update(bot.id, { default_sending_stream: botJson(state, after).default_sending_stream }));
  }
  if (changes.default_events_register_stream_id !== undefined) {
    config.defaultEventsRegisterStreamId = changes.default_events_register_stream_id;
    const name = botJson(state, after).default_events_register_stream;
    toAudience.push(update(bot.id, { default_events_register_stream: name }));
  }
  if (changes.default_all_public_streams !== undefined) {
    config.defaultAllPublicStreams = changes.default_all_public_streams;
    toAudience.push(update(bot.id, { default_all_public_streams: changes.default_all_public_streams }));
  }
  if (changes.service_payload_url !== undefined) {
    const iface = changes.service_interface ?? INTERFACE_TYPES.generic;
    checkInterface(iface);
    // Only outgoing webhook bots have a service to change.
    const [service] = config.services;
    if (service) {
      config.services = [{ base_url: changes.service_payload_url, interface: iface, token: service.token }];
      toAudience.push(update(bot.id, { services: config.services.map((s) => ({ ...s })) }));
    }
  }
  const configChanged = (Object.keys(config) as Array<keyof BotConfig>).filter(
    (k) => config[k] !== (bot.bot ?? NO_CONFIG)[k],
  );
  if (configChanged.length > 0) event.bot = Object.fromEntries(configChanged.map((k) => [k, config[k]]));
  if (everyone.length > 0) fanouts.push(toEveryone(state, everyone));
  if (toAudience.length > 0) fanouts.push(botEvents(state, after, toAudience));
  const changed = Object.keys(event).length > 2;
  const owner = after.botOwnerId === null ? undefined : state.accounts[after.botOwnerId];
  // The owner's API address, as others see it (the placeholder while the owner hides the real one).
  const reply = { bot: botJson(state, after), owner_email: owner ? apiEmailOf(owner) : null };
  return changed ? { events: [event], fanouts, reply } : { reply };
}

/**
 * A new owner (the original's `do_change_bot_owner`): the previous owner,
 * unless an administrator, hears `delete`; the new one, unless an
 * administrator, hears `add`; the rest of the audience `update`; everyone
 * learns the new `bot_owner_id`.
 */
function ownerChange(state: RealmState, bot: Account, owner: Account): Fanout[] {
  const previous = bot.botOwnerId === null ? undefined : state.accounts[bot.botOwnerId];
  const moved: Account = { ...bot, botOwnerId: owner.id };
  const audience = new Set(botAudience(state, moved));
  const fanouts: Fanout[] = [];
  if (previous && !isAdministrator(previous)) {
    fanouts.push(toUsers(state, [previous.id], [botRemoved(bot.id)]));
    audience.delete(previous.id);
  }
  if (!isAdministrator(owner)) {
    fanouts.push(toUsers(state, [owner.id], [botAddEvent(botJson(state, moved))]));
    audience.delete(owner.id);
  }
  fanouts.push(toUsers(state, audience, [update(bot.id, { owner_id: owner.id })]));
  const person = { user_id: bot.id, bot_owner_id: owner.id };
  fanouts.push(toEveryone(state, [realmUserUpdated(person)]));
  return fanouts;
}

function deactivate(state: RealmState, command: Of<'realm.deactivateBot'>): Decision<RealmEvent, null> {
  const bot = accessBot(state, caller(state, command.actor.user_id), command.bot_id);
  if (!bot.isActive) return { reply: null };
  const person = { user_id: bot.id, is_active: false };
  return {
    events: [{ type: 'accountActiveSet', userId: bot.id, active: false }],
    fanouts: [
      toEveryone(state, [realmUserUpdated(person)]),
      botEvents(state, bot, [update(bot.id, { is_active: false })]),
    ],
    reply: null,
  };
}

function regenerate(
  state: RealmState,
  command: Of<'realm.regenerateBotKey'>,
): Decision<RealmEvent, { api_key: string }> {
  const bot = accessBot(state, humanMember(state, command.actor.user_id), command.bot_id);
  const apiKey = generateApiKey();
  return {
    events: [{ type: 'apiKeyChanged', userId: bot.id, apiKey }],
    fanouts: [botEvents(state, bot, [update(bot.id, { api_key: apiKey })])],
    reply: { api_key: apiKey },
  };
}

export const botHandlers: RealmHandlers<BotProtocol> = {
  'realm.createBot': create,
  'realm.bots': ({ state }, command) => list(state, command),
  'realm.updateBot': change,
  'realm.deactivateBot': ({ state }, command) => deactivate(state, command),
  'realm.regenerateBotKey': ({ state }, command) => regenerate(state, command),
  'realm.setAvatar': ({ state }, command) => setAvatar(state, command),
  'realm.outgoingServices': ({ state }, command) => {
    const services = command.user_ids
      .map((id) => state.accounts[id])
      .filter((a): a is Account => !!a && a.isActive && a.botType === BOT_TYPES.outgoing_webhook)
      .flatMap((a) =>
        (a.bot?.services ?? []).map((s) => ({
          ...s,
          user_id: a.id,
          email: a.email,
          full_name: a.fullName,
          principal: toPrincipal(state, a),
          owner_id: a.botOwnerId,
        })),
      );
    return { reply: services };
  },
  'realm.oweWebhooks': ({ now }, command) => ({
    events: [{ type: 'webhooksOwed', owed: command.owed.map((o) => ({ ...o, since: now })) }],
    reply: null,
  }),
  'realm.webhookDone': ({ state }, { message_id, bot_id }) =>
    state.owedWebhooks?.[`${message_id}:${bot_id}`]
      ? { events: [{ type: 'webhookDone', messageId: message_id, botId: bot_id }], reply: null }
      : { reply: null },
  'realm.claimOwedWebhooks': ({ state, now }, command) => {
    const due = Object.values(state.owedWebhooks ?? {}).filter((o) => o.since < command.before);
    if (due.length === 0) return { reply: [] };
    const claimed = due.map((o) => ({ ...o, since: now }));
    return { events: [{ type: 'webhooksOwed', owed: claimed }], reply: claimed };
  },
  'realm.owingRealms': async ({ store }) => {
    const realms: string[] = [];
    for await (const row of store.scan(OWING_REALMS.table, OWING_REALMS.partition)) realms.push(row.sort);
    return { reply: realms };
  },
};
