import { Type, type TSchema } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  type AuthMethod,
  type AuthMethodsChange,
  ChatError,
  isAdministrator,
  notAdministrator,
  notOwner,
  isOwner,
  OWNER_ONLY_SETTINGS,
  realmAddress,
  REALM_GROUP_SETTINGS,
  REALM_OPTION_DEFAULTS,
  UNLIMITED,
  type GroupSettingChange,
  type RealmGroupSettingName,
  type RealmValue,
} from '@chat/protocol';
import { LANGUAGES } from '../users/settings-values.js';
import { GroupSettingUpdate } from '../groups/groups.js';
import type { ApiOptions } from '../options.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

const IntOrString = Type.Union([Type.Integer(), Type.String()]);

/** The original's limits: `Realm.MAX_REALM_NAME_LENGTH` and friends. */
const MAX_NAME_LENGTH = 40;
const MAX_DESCRIPTION_LENGTH = 1000;
const MAX_WELCOME_TEXT_LENGTH = 8000;
const MAX_JITSI_URL_LENGTH = 200;
/** `Realm.VIDEO_CHAT_PROVIDERS` this server can offer: none and Jitsi, and BigBlueButton when configured. */
const VIDEO_CHAT_DISABLED = 0;
const VIDEO_CHAT_JITSI = 1;
export const VIDEO_CHAT_BIG_BLUE_BUTTON = 4;
/** `Realm.GIPHY_RATING_OPTIONS` ids and `Realm.ORG_TYPES` ids. */
const GIPHY_RATINGS = [0, 1, 2, 3, 4, 5];
const ORG_TYPES = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000];

/** Seconds-valued limits: a positive number or "unlimited" (null). */
const SECONDS = [
  'message_content_delete_limit_seconds',
  'message_content_edit_limit_seconds',
  'move_messages_within_stream_limit_seconds',
  'move_messages_between_streams_limit_seconds',
];

const STRINGS: Record<string, TSchema> = {
  name: Type.String({ maxLength: MAX_NAME_LENGTH }),
  description: Type.String({ maxLength: MAX_DESCRIPTION_LENGTH }),
  welcome_message_custom_text: Type.String({ maxLength: MAX_WELCOME_TEXT_LENGTH }),
  default_code_block_language: Type.String(),
  default_language: Type.String(),
  jitsi_server_url: Type.String(),
  string_id: Type.String({ maxLength: 40 }),
  topics_policy: Type.String(),
  message_edit_history_visibility_policy: Type.String(),
};
const INTEGERS = [
  'digest_weekday',
  'giphy_rating',
  'org_type',
  'video_chat_provider',
  'waiting_period_threshold',
  'moderation_request_channel_id',
  'new_stream_announcements_stream_id',
  'signup_announcements_stream_id',
  'zulip_update_announcements_stream_id',
];
const BOOLEANS = [
  'allow_message_editing',
  'enable_spectator_access',
  'enable_read_receipts',
  ...Object.entries(REALM_OPTION_DEFAULTS)
    .filter(([, v]) => typeof v === 'boolean')
    .map(([k]) => k),
];

const optional = (names: string[], schema: TSchema) => Object.fromEntries(names.map((n) => [n, Type.Optional(schema)]));

const PARAMS = Type.Object({
  ...optional(BOOLEANS, Type.Boolean()),
  ...optional(INTEGERS, Type.Integer()),
  ...optional([...SECONDS, 'message_retention_days'], IntOrString),
  ...Object.fromEntries(Object.entries(STRINGS).map(([n, s]) => [n, Type.Optional(s)])),
  ...optional(REALM_GROUP_SETTINGS, GroupSettingUpdate),
  authentication_methods: Type.Optional(
    Type.Record(Type.String(), Type.Boolean(), {
      description: 'Owners only: which ways to log in are on, by name ("Email", and "Dev" on a development server).',
    }),
  ),
});

/** The ways to log in this server offers a realm: password ("Email"), and the development login where it exists. */
export function offeredAuthMethods(options: ApiOptions, development: boolean): AuthMethod[] {
  return options.mode === 'development' && development ? ['Dev', 'Email'] : ['Email'];
}

/** The original's checks of `authentication_methods`: owners only, known names, at least one turned on. */
function checkAuthMethods(raw: Record<string, boolean>, offered: AuthMethod[], owner: boolean): AuthMethodsChange {
  if (!owner) throw notOwner();
  const valid = [...offered].sort().map((name) => `'${name}'`);
  for (const name of Object.keys(raw)) {
    if (!(offered as string[]).includes(name))
      throw bad(`Invalid authentication method: ${name}. Valid methods are: [${valid.join(', ')}]`);
  }
  if (!Object.values(raw).includes(true)) throw bad('At least one authentication method must be enabled.');
  return { requested: raw as AuthMethodsChange['requested'], offered };
}

/** `parse_message_time_limit_setting` and `parse_message_retention_days`: a special word or a positive number. */
function positiveOr(name: string, raw: number | string, unlimited: number | null): number | null {
  if (raw === UNLIMITED) return unlimited;
  if (typeof raw === 'string' || raw <= 0) throw bad(`Bad value for '${name}': ${raw}`);
  return raw;
}

function oneOf(name: string, value: number, allowed: number[]): number {
  if (!allowed.includes(value)) throw bad(`Invalid ${name} ${value}`);
  return value;
}

/** The original's `check_jitsi_url`: "default" (the server's), or a URL of at most 200 characters. */
function jitsiUrl(raw: string): string | null {
  if (raw === 'default') return null;
  let ok = raw.length <= MAX_JITSI_URL_LENGTH;
  try {
    ok &&= ['http:', 'https:'].includes(new URL(raw).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw bad('jitsi_server_url is not an allowed_type');
  return raw;
}

/**
 * The values of one request, parsed and checked in the original's order
 * (`update_realm`): first what its parameter types refuse, then the
 * language, video provider and GIPHY rating, then who is not an owner
 * (`owner` false) naming an owner-only setting, and only then the
 * retention period, time limits and Jitsi URL. Whether channels and groups
 * exist, and the owner check again on the realm's own record, the realm decides.
 */
function parseValues(
  params: Record<string, unknown>,
  options: ApiOptions,
  owner: boolean,
  methods: () => AuthMethodsChange | undefined,
): { values: Record<string, RealmValue>; methods: AuthMethodsChange | undefined } {
  const values: Record<string, RealmValue> = {};
  for (const [name, raw] of Object.entries(params)) {
    const apart = (REALM_GROUP_SETTINGS as string[]).includes(name) || name in NOT_VALUES;
    if (raw === undefined || apart) continue;
    values[name] = raw as RealmValue;
  }
  if (typeof values.digest_weekday === 'number' && !(values.digest_weekday >= 0 && values.digest_weekday <= 6)) {
    throw bad('Invalid digest_weekday');
  }
  if (typeof values.org_type === 'number' && !ORG_TYPES.includes(values.org_type)) throw bad('Invalid org_type');
  if (typeof values.waiting_period_threshold === 'number' && values.waiting_period_threshold < 0) {
    throw bad('Invalid waiting_period_threshold');
  }
  const policy = values.topics_policy;
  if (policy !== undefined && policy !== 'allow_empty_topic' && policy !== 'disable_empty_topic') {
    throw bad('Invalid topics_policy');
  }
  const history = values.message_edit_history_visibility_policy;
  if (history !== undefined && !['all', 'moves_only', 'none'].includes(history as string)) {
    throw bad('Invalid message_edit_history_visibility_policy');
  }
  const lang = values.default_language;
  if (typeof lang === 'string' && !Object.hasOwn(LANGUAGES, lang)) throw bad(`Invalid language '${lang}'`);
  const authMethods = methods();
  if (typeof values.video_chat_provider === 'number') {
    const providers = [VIDEO_CHAT_DISABLED, VIDEO_CHAT_JITSI];
    if (options.bigBlueButton) providers.push(VIDEO_CHAT_BIG_BLUE_BUTTON);
    oneOf('video_chat_provider', values.video_chat_provider, providers);
  }
  if (typeof values.giphy_rating === 'number') oneOf('giphy_rating', values.giphy_rating, GIPHY_RATINGS);
  const named = Object.keys(params).filter((name) => params[name] !== undefined);
  if (!owner && named.some((name) => OWNER_ONLY_SETTINGS.has(name))) throw notOwner();
  if (values.message_retention_days !== undefined) {
    values.message_retention_days = positiveOr(
      'message_retention_days',
      values.message_retention_days as number | string,
      -1,
    );
  }
  for (const name of SECONDS)
    if (values[name] !== undefined) values[name] = positiveOr(name, values[name] as number | string, null);
  if (typeof values.jitsi_server_url === 'string') values.jitsi_server_url = jitsiUrl(values.jitsi_server_url);
  return { values, methods: authMethods };
}

/** Parameters that are not plain values: handled apart. */
const NOT_VALUES = { string_id: true, authentication_methods: true };

export function realmSettingsRoutes(options: ApiOptions): Route[] {
  return [
    defineRoute({
      method: 'PATCH',
      path: '/realm',
      auth: 'required',
      params: PARAMS,
      summary: 'Update organization settings',
      description:
        'Changes organization settings: administrators may change most, owners only a few (retention, ' +
        'invitations, group management, authentication methods). Answers the values that changed; strings as "updated".',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        const raw = params as Record<string, unknown>;
        // The original checks the role before it reads any parameter.
        if (!isAdministrator(principal)) {
          throw notAdministrator();
        }
        const requested = raw.authentication_methods as Record<string, boolean> | undefined;
        const info = requested && (await actors.ask(realmAddress(principal.realm), { type: 'realm.info' }));
        const { values, methods } = parseValues(
          raw,
          options,
          isOwner(principal),
          () =>
            requested &&
            checkAuthMethods(requested, offeredAuthMethods(options, !!info?.development), isOwner(principal)),
        );
        if (raw.string_id !== undefined) {
          if (!isOwner(principal)) throw notOwner();
          throw bad('Must be a demo organization.');
        }
        const groups: Partial<Record<RealmGroupSettingName, GroupSettingChange>> = {};
        for (const name of REALM_GROUP_SETTINGS) {
          if (raw[name] !== undefined) groups[name] = raw[name] as GroupSettingChange;
        }
        return actors.ask(realmAddress(principal.realm), {
          type: 'realm.updateSettings',
          actor_id: principal.user_id,
          values,
          groups,
          ...(methods && { authentication_methods: methods }),
        });
      },
    }),
  ];
}
