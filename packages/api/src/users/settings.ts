import { Type, type TSchema } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  ChatError,
  hashPassword,
  isChatError,
  USER_SETTING_DEFAULTS,
  DECOY_PASSWORD_HASH,
  verifyPassword,
  realmExportConsent,
  type UserSettings,
} from '@chat/protocol';
import { CallerContext } from '../context.js';
import { startEmailChange } from './email-change.js';
import type { ApiOptions } from '../options.js';
import { checkSettingValues, LANGUAGES } from './settings-values.js';
import { fakeEmailDomain } from '../email-domain.js';

// Verified when the account has no password, so that answer costs the same time.
/** The original's minimum password length. */
const MIN_PASSWORD_LENGTH = 6;

const oneOf = <T extends number | string>(values: readonly T[]) =>
  Type.Optional(Type.Union(values.map((v) => Type.Literal(v))));

/** Settings with a fixed set of values; a value outside it is "Invalid <name>", as the original says. */
const CHOICES: Record<string, readonly (number | string)[]> = {
  web_mark_read_on_scroll_policy: [1, 2, 3],
  // 3 (list of topics) exists since FL 383, though the documented constraint omits it.
  web_channel_default_view: [1, 2, 3, 4],
  color_scheme: [1, 2, 3],
  web_home_view: ['recent_topics', 'inbox', 'all_messages'],
  emojiset: ['google', 'google-blob', 'twitter', 'text'],
  demote_inactive_streams: [1, 2, 3],
  user_list_style: [1, 2, 3],
  web_animate_image_previews: ['always', 'on_hover', 'never'],
  web_stream_unreads_count_display_policy: [1, 2, 3],
  desktop_icon_count_display: [1, 2, 3, 4],
  realm_name_in_email_notifications_policy: [1, 2, 3],
  automatically_follow_topics_policy: [1, 2, 3, 4],
  automatically_unmute_topics_in_muted_streams_policy: [1, 2, 3, 4],
  resolved_topic_notice_auto_read_policy: ['always', 'except_followed', 'never'],
  email_address_visibility: [1, 2, 3, 4, 5],
};

function settingSchema(name: string, fallback: unknown): TSchema {
  const choices = CHOICES[name];
  if (choices) return oneOf(choices);
  if (typeof fallback === 'boolean') return Type.Optional(Type.Boolean());
  if (typeof fallback === 'number') return Type.Optional(Type.Integer());
  return Type.Optional(Type.String());
}

/** One optional parameter per personal setting, with its choices (also the organization's defaults for new users). */
export const settingParams = Object.fromEntries(
  Object.entries(USER_SETTING_DEFAULTS).map(([name, fallback]) => [name, settingSchema(name, fallback)]),
);

const SettingsParams = Type.Object({
  full_name: Type.Optional(Type.String({ description: 'A new display name.' })),
  email: Type.Optional(Type.String({ description: 'A new address; it changes once the link mailed to it is opened.' })),
  old_password: Type.Optional(Type.String({ description: 'The current password; needed with `new_password`.' })),
  new_password: Type.Optional(Type.String({ description: 'A new password.' })),
  timezone: Type.Optional(Type.String({ description: 'An IANA time zone.' })),
  ...settingParams,
});

type Params = { [name: string]: unknown } & {
  full_name?: string;
  email?: string;
  old_password?: string;
  new_password?: string;
  timezone?: string;
};

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/**
 * Stores personal settings in the caller's UserActor, which announces each
 * change to the caller's queues; the realm hears of `presence_enabled`,
 * which decides whether others see the caller's presence.
 */
export async function changeSettings(caller: CallerContext, settings: Partial<UserSettings>): Promise<string[]> {
  const language = settings.default_language;
  const { changed } = await caller.actors.ask(caller.me, {
    type: 'user.updateSettings',
    settings,
    email: caller.principal.api_email ?? caller.principal.email,
    ...(typeof language === 'string' ? { language_name: LANGUAGES[language] } : {}),
  });
  if (changed.includes('presence_enabled')) {
    await caller.actors.ask(caller.realm, {
      type: 'realm.presenceEnabled',
      user_id: caller.principal.user_id,
      enabled: settings.presence_enabled === true,
    });
  }
  if (changed.includes('allow_private_data_export')) {
    const consented = settings.allow_private_data_export === true;
    await caller.actors.ask(caller.realm, {
      type: 'realm.broadcast',
      events: [realmExportConsent(caller.principal.user_id, consented)],
      to: 'administrators',
      except: [],
    });
  }
  return changed;
}

/** Checks the old password the way login does; replies the new hash. */
async function newPasswordHash(caller: CallerContext, params: Params): Promise<string | undefined> {
  if (params.new_password === undefined) return undefined;
  if (params.old_password === undefined) throw bad("Missing 'old_password' argument");
  // As a login: with the realm's "Email" method off the original's backend finds no one, so "Wrong password!".
  const candidate = await caller.actors
    .ask(caller.realm, { type: 'realm.loginCandidate', username: caller.principal.email, login: true })
    .catch((err: unknown) => {
      throw isChatError(err) && err.code === 'PASSWORD_AUTH_DISABLED' ? bad('Wrong password!') : err;
    });
  const ok = await verifyPassword(params.old_password, candidate.password_hash ?? DECOY_PASSWORD_HASH);
  if (!ok || candidate.password_hash === null) throw bad('Wrong password!');
  if ([...params.new_password].length < MIN_PASSWORD_LENGTH) throw bad('New password is too weak!');
  return hashPassword(params.new_password);
}

async function updateSettings(caller: CallerContext, params: Params, options: ApiOptions): Promise<void> {
  if (caller.principal.is_bot) throw bad('This endpoint does not accept bot requests.');
  checkSettingValues(params);
  const passwordHash = await newPasswordHash(caller, params);
  // As in the original, the address is checked (and its link mailed) before names and settings change.
  if (params.email !== undefined) await startEmailChange(caller, params.email, options);
  const userId = caller.principal.user_id;
  if (passwordHash !== undefined || params.full_name !== undefined) {
    await caller.actors.ask(caller.realm, {
      type: 'realm.updateAccount',
      user_id: userId,
      ...(passwordHash !== undefined ? { password_hash: passwordHash } : {}),
      ...(params.full_name !== undefined ? { full_name: params.full_name } : {}),
    });
  }
  const settings = Object.fromEntries(
    Object.keys(USER_SETTING_DEFAULTS)
      .filter((name) => params[name] !== undefined)
      .map((name) => [name, params[name]]),
  ) as Partial<UserSettings>;
  if (Object.keys(settings).length > 0) await changeSettings(caller, settings);
  // Who sees the address decides what every list, message and event shows of it, so the realm keeps it too.
  if (typeof settings.email_address_visibility === 'number') {
    await caller.actors.ask(caller.realm, {
      type: 'realm.emailVisibility',
      user_id: userId,
      visibility: settings.email_address_visibility,
      domain: fakeEmailDomain(options.externalUrl, options.fakeEmailDomain),
    });
  }
  // The time zone belongs to the account (everyone sees it), so the realm keeps it.
  if (params.timezone !== undefined) {
    await caller.actors.ask(caller.realm, { type: 'realm.updateAccount', user_id: userId, timezone: params.timezone });
  }
}

export function settingsRoutes(options: ApiOptions): Route[] {
  // The two older paths are aliases of the one operation since FL 80.
  return ['/settings', '/settings/display', '/settings/notifications'].map((path) =>
    defineRoute({
      method: 'PATCH',
      path,
      auth: 'required',
      params: SettingsParams,
      summary: path === '/settings' ? 'Update settings' : 'Update settings (deprecated alias)',
      description: "Changes the caller's personal settings, name, time zone or password.",
      tags: ['users'],
      response: Type.Object({}),
      async handler({ params, principal, actors }) {
        await updateSettings(new CallerContext(actors, principal), params as Params, options);
        return {};
      },
    }),
  );
}
