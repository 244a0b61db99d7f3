import {
  isUserSettingName,
  settingEvents,
  USER_SETTING_DEFAULTS,
  type SettingsProtocol,
  type SettingValue,
  type UserSettingName,
  type UserSettings,
} from '@chat/protocol';
import { toOwnQueues } from './queues.js';
import type { UserEvent, UserHandlers, UserState } from './state.js';

/** The user's personal settings: what they changed, by name (absent in snapshots older than settings). */
export type StoredSettings = Partial<Record<UserSettingName, SettingValue>>;

export type SettingsEvent = { type: 'settingsChanged'; settings: StoredSettings };

/**
 * The automatic topic policies existed before the settings did, as the
 * state's `followPolicy` and `unmutePolicy`, which the send path reads; they
 * stay the one place those two settings live.
 */
const POLICY_FIELDS = {
  automatically_follow_topics_policy: 'followPolicy',
  automatically_unmute_topics_in_muted_streams_policy: 'unmutePolicy',
} as const satisfies Partial<Record<UserSettingName, keyof UserState>>;

const policyField = (name: string) => POLICY_FIELDS[name as keyof typeof POLICY_FIELDS];

/** One setting's current value, its default if the user never changed it. */
export function settingOf<K extends UserSettingName>(state: Readonly<UserState>, name: K): SettingValue {
  const field = policyField(name);
  if (field) return state[field];
  return state.settings?.[name] ?? USER_SETTING_DEFAULTS[name];
}

export function allSettings(state: Readonly<UserState>): UserSettings {
  const all = { ...USER_SETTING_DEFAULTS } as UserSettings;
  for (const name of Object.keys(all) as UserSettingName[]) all[name] = settingOf(state, name);
  return all;
}

export const isSettingsEvent = (event: UserEvent): event is SettingsEvent => event.type === 'settingsChanged';

export const settingsHandlers: UserHandlers<SettingsProtocol> = {
  'user.settings': ({ state }) => ({ reply: allSettings(state) }),
  'user.updateSettings': (ctx, command) => {
    const state = ctx.state;
    const changed: StoredSettings = {};
    for (const [name, value] of Object.entries(command.settings)) {
      if (!isUserSettingName(name) || value === undefined) continue;
      if (settingOf(state, name) !== value) changed[name] = value;
    }
    const names = Object.keys(changed);
    if (names.length === 0) return { reply: { changed: names } };
    // One event per changed setting, in the order the user sent them.
    const events = Object.entries(changed).flatMap(([name, value]) =>
      settingEvents(command.email, name, value, command.language_name),
    );
    return {
      events: [{ type: 'settingsChanged', settings: changed }],
      tells: toOwnQueues(ctx.address.key, state, events),
      reply: { changed: names },
    };
  },
};

export function applySettingsEvent(state: UserState, event: SettingsEvent): void {
  for (const [name, value] of Object.entries(event.settings)) {
    const field = policyField(name);
    if (field) {
      state[field] = value as number;
      continue;
    }
    state.settings = { ...state.settings, [name]: value };
  }
  // Turning synchronization off deletes the drafts kept on the server (clients keep their own copies).
  if (event.settings.enable_drafts_synchronization === false && state.drafts) state.drafts.byId = {};
}
