import {
  AUTH_METHOD_OPTIONS,
  authMethodEnabled,
  type AuthMethodsChange,
  ChatError,
  isAdministrator,
  isOwner,
  OWNER_ONLY_SETTINGS,
  CHANNEL_SETTINGS,
  REALM_GROUP_RULES,
  REALM_GROUP_SETTINGS,
  REALM_OPTION_DEFAULTS,
  sameGroupSetting,
  SYSTEM_GROUPS,
  systemGroupDefault,
  type GroupSetting,
  type Organization,
  type QueueEvent,
  type RealmGroupSettingName,
  type RealmSettings,
  type RealmSettingsCommand,
  type RealmValue,
  type RealmSettingsProtocol,
  notAdministrator,
  notOwner,
  realmUpdated,
  realmUpdatedDict,
  userAddress,
  userDefaultsUpdated,
  type UserSettings,
} from '@chat/protocol';
import type { Decision, Tell } from '@chat/runtime';
import { toEveryone } from './broadcast.js';
import { checkGroupSetting } from './groups/settings.js';
import { apiEmailOf } from './profile.js';
import type { Account, RealmEvent, RealmHandlers, RealmState } from './state.js';

type Setting = RealmValue | GroupSetting;

/** A change of organization settings: the name and description live on the state, the rest in two maps. */
export interface SettingsChangedEvent {
  type: 'realmSettingsChanged';
  values: Record<string, Setting>;
}

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** The settings no messaging rule reads, with the defaults of those never changed. */
function optionsOf(state: RealmState): Record<string, Setting> {
  const groups = REALM_GROUP_SETTINGS.filter((name) => !(name in state.settings)).map((name) => [
    name,
    systemGroupDefault(name),
  ]);
  return { ...REALM_OPTION_DEFAULTS, ...Object.fromEntries(groups), ...state.options };
}

export function organization(state: RealmState): Organization {
  return {
    name: state.name,
    description: state.description,
    settings: { ...optionsOf(state), ...state.settings },
    user_defaults: state.userDefaults ?? {},
  };
}

/** The original's `access_user_group_for_setting` for a realm setting. */
function checkRealmGroup(state: RealmState, name: RealmGroupSettingName, value: GroupSetting): GroupSetting {
  const checked = checkGroupSetting(state, value);
  const rules = REALM_GROUP_RULES[name] as (typeof REALM_GROUP_RULES)[RealmGroupSettingName] & {
    system?: string[];
  };
  const systemName = Object.entries(SYSTEM_GROUPS).find(([, id]) => id === checked)?.[0];
  if (rules.system) {
    if (systemName === undefined) throw bad(`'${name}' must be a system user group.`);
    if (!rules.system.includes(systemName)) throw bad(`'${name}' setting cannot be set to '${systemName}' group.`);
  }
  const refused =
    systemName === 'role:internet' ||
    (systemName === 'role:everyone' && !rules.everyone) ||
    (systemName === 'role:nobody' && !rules.nobody);
  if (refused) throw bad(`'${name}' setting cannot be set to '${systemName}' group.`);
  return checked;
}

/** The event the original sends for one changed value (`do_set_realm_property` and friends). */
function eventFor(name: string, value: Setting): QueueEvent {
  if (name in REALM_GROUP_RULES) return realmUpdatedDict({ [name]: value });
  if (name === 'allow_message_editing' || name === 'message_content_edit_limit_seconds')
    return realmUpdatedDict({ [name]: value });
  if (name === 'topics_policy')
    return realmUpdatedDict({ topics_policy: value, mandatory_topics: value === 'disable_empty_topic' });
  return realmUpdated(name, value);
}

/**
 * The original's `do_set_realm_authentication_methods`: a change when the
 * request differs from the whole current table (names the request leaves out
 * keep their value); the event carries the whole table after it.
 */
function authMethodsChanged(now: Record<string, Setting>, change: AuthMethodsChange) {
  const current = Object.fromEntries(change.offered.map((method) => [method, authMethodEnabled(now, method)]));
  const requested = Object.entries(change.requested);
  const same = requested.length === change.offered.length && requested.every(([method, on]) => current[method] === on);
  if (same) return undefined;
  const after = { ...current, ...change.requested };
  const values = Object.fromEntries(
    requested.map(([method, on]) => [AUTH_METHOD_OPTIONS[method as keyof typeof AUTH_METHOD_OPTIONS], on]),
  );
  const table = Object.fromEntries(
    Object.entries(after).map(([method, enabled]) => [method, { enabled, available: true }]),
  );
  return { values, event: realmUpdatedDict({ authentication_methods: table }) };
}

function update(
  state: RealmState,
  cmd: Extract<RealmSettingsCommand, { type: 'realm.updateSettings' }>,
): Decision<RealmEvent, Record<string, unknown>> {
  const actor = state.accounts[cmd.actor_id];
  if (!actor?.isActive || !isAdministrator(actor)) throw notAdministrator();
  const names = [...Object.keys(cmd.values), ...Object.keys(cmd.groups)];
  if (cmd.authentication_methods && !isOwner(actor)) throw notOwner();
  if (names.some((name) => OWNER_ONLY_SETTINGS.has(name)) && !isOwner(actor)) throw notOwner();
  const current = organization(state);
  const now: Record<string, Setting> = { ...current.settings, name: current.name, description: current.description };
  const changed: Record<string, Setting> = {};
  for (const [name, value] of Object.entries(cmd.values)) {
    if (CHANNEL_SETTINGS.includes(name) && value !== -1) {
      const channel = state.channels[value as number];
      if (!channel || channel.is_archived) throw bad('Invalid channel ID');
    }
    if (now[name] !== value) changed[name] = value;
  }
  for (const name of REALM_GROUP_SETTINGS) {
    const change = cmd.groups[name];
    if (!change) continue;
    const before = now[name] as GroupSetting;
    if (change.old !== undefined && !sameGroupSetting(checkGroupSetting(state, change.old), before)) {
      throw bad("'old' value does not match the expected value.");
    }
    const value = checkRealmGroup(state, name, change.new);
    if (!sameGroupSetting(value, before)) changed[name] = value;
  }
  const reply: Record<string, unknown> = Object.fromEntries(
    Object.entries(changed).map(([name, value]) => [name, typeof value === 'string' ? 'updated' : value]),
  );
  const events = Object.entries(changed).map(([name, value]) => eventFor(name, value));
  const methods = cmd.authentication_methods && authMethodsChanged(now, cmd.authentication_methods);
  if (methods) {
    Object.assign(changed, methods.values);
    reply.authentication_methods = cmd.authentication_methods!.requested;
    events.push(methods.event);
  }
  if (Object.keys(changed).length === 0) return { reply };
  return {
    events: [{ type: 'realmSettingsChanged', values: changed }],
    fanouts: [toEveryone(state, events)],
    reply,
  };
}

/** The original's `update_realm_user_settings_defaults`: administrators; one event per changed setting. */
function updateUserDefaults(
  state: RealmState,
  cmd: Extract<RealmSettingsCommand, { type: 'realm.updateUserDefaults' }>,
): Decision<RealmEvent, null> {
  const actor = state.accounts[cmd.actor_id];
  if (!actor?.isActive || !isAdministrator(actor)) throw notAdministrator();
  const current = state.userDefaults ?? {};
  const changed = Object.entries(cmd.values).filter(([name, value]) => current[name] !== value);
  if (changed.length === 0) return { reply: null };
  const events = changed.map(([property, value]) => userDefaultsUpdated(property, value));
  return {
    events: [
      { type: 'userDefaultsChanged', values: Object.fromEntries(changed), ...(cmd.domain && { domain: cmd.domain }) },
    ],
    fanouts: [toEveryone(state, events)],
    reply: null,
  };
}

/**
 * New accounts start with the organization's defaults of users' settings
 * (`PATCH /realm/user_settings_defaults`), as the original copies them into
 * every user it creates: one tell to each new user's actor, durable with the
 * decision that creates the accounts. Nothing when no default was changed.
 */
export function startingSettings(state: RealmState, accounts: Account[]): Tell[] {
  const settings = (state.userDefaults ?? {}) as Partial<UserSettings>;
  if (Object.keys(settings).length === 0) return [];
  return accounts.map((account) => ({
    to: userAddress(state.stringId, account.id),
    body: { type: 'user.updateSettings', settings, email: apiEmailOf(account) },
  }));
}

export const settingsHandlers: RealmHandlers<RealmSettingsProtocol> = {
  'realm.updateUserDefaults': ({ state }, command) => updateUserDefaults(state, command),
  'realm.organization': ({ state }) => ({ reply: organization(state) }),
  'realm.updateSettings': ({ state }, command) => update(state, command),
};

/** A change of the settings new users start with. */
export interface UserDefaultsChangedEvent {
  type: 'userDefaultsChanged';
  values: Record<string, RealmValue>;
  /** The server's host, for placeholder addresses of accounts created hidden (accounts/email-visibility.ts). */
  domain?: string;
}

export function applyUserDefaultsChanged(state: RealmState, event: UserDefaultsChangedEvent): void {
  state.userDefaults = { ...state.userDefaults, ...event.values };
  if (event.domain) state.emailDomain = event.domain;
}

export function applySettingsChanged(state: RealmState, event: SettingsChangedEvent): void {
  const settings: RealmSettings = { ...state.settings };
  const options: Record<string, Setting> = { ...state.options };
  for (const [name, value] of Object.entries(event.values)) {
    if (name === 'name') state.name = value as string;
    else if (name === 'description') state.description = value as string;
    else if (name in settings) Object.assign(settings, { [name]: value });
    else options[name] = value;
  }
  state.settings = settings;
  state.options = options;
}
