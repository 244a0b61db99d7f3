import { LEGACY_DISPLAY_SETTINGS, LEGACY_NOTIFICATION_SETTINGS } from '@chat/protocol';
import type { CallerContext } from '../../context.js';
import { onlyAccessible } from '../../users/access.js';
import { EMOJISET_CHOICES, NOTIFICATION_SOUNDS } from '../../users/settings-values.js';

export interface PeopleRequest {
  slim_presence: boolean;
  presence_history_limit_days?: number;
  /** Clients without it also get the settings as top-level fields. */
  user_settings_object: boolean;
}

const pick = (from: Record<string, unknown>, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, from[name]]));

/**
 * The register sections of settings, statuses and presence, as `wants` (the
 * snapshot's `fetch_event_types`) asks; read at once, in this order.
 */
export async function peopleSections(
  caller: CallerContext,
  req: PeopleRequest,
  wants: (section: string) => boolean,
  /** A restricted guest's accessible users (null: everyone): statuses and presence of the others stay out. */
  access: Set<number> | null = null,
): Promise<Record<string, unknown>> {
  const parts = await Promise.all([
    settingsSections(caller, req, wants),
    statuses(caller, wants, access),
    presences(caller, req, wants, access),
  ]);
  return Object.assign({}, ...parts);
}

async function settingsSections(caller: CallerContext, req: PeopleRequest, wants: (section: string) => boolean) {
  const body: Record<string, unknown> = {};
  const legacy = !req.user_settings_object;
  const display = legacy && wants('update_display_settings');
  const notifications = legacy && wants('update_global_notifications');
  if (!wants('user_settings') && !display && !notifications) return body;
  const [settings, me] = await Promise.all([
    caller.actors.ask(caller.me, { type: 'user.settings' }),
    caller.actors.ask(caller.realm, { type: 'realm.getUser', user_id: caller.principal.user_id }),
  ]);
  const sounds = [...NOTIFICATION_SOUNDS];
  const emojisets = EMOJISET_CHOICES.map((c) => ({ ...c }));
  if (wants('user_settings')) {
    body.user_settings = {
      ...settings,
      timezone: me.timezone,
      available_notification_sounds: sounds,
      emojiset_choices: emojisets,
    };
  }
  if (display)
    Object.assign(body, pick(settings, LEGACY_DISPLAY_SETTINGS), {
      receives_typing_notifications: settings.receives_typing_notifications,
      timezone: me.timezone,
      emojiset_choices: emojisets,
    });
  if (notifications)
    Object.assign(body, pick(settings, LEGACY_NOTIFICATION_SETTINGS), { available_notification_sounds: sounds });
  return body;
}

async function statuses(caller: CallerContext, wants: (section: string) => boolean, access: Set<number> | null) {
  if (!wants('user_status')) return {};
  const statuses = await caller.actors.ask(caller.realm, { type: 'realm.statuses' });
  return { user_status: access ? await onlyAccessible(caller, access, statuses) : statuses };
}

async function presences(
  caller: CallerContext,
  req: PeopleRequest,
  wants: (section: string) => boolean,
  access: Set<number> | null,
) {
  if (!wants('presence')) return {};
  const reply = await caller.actors.ask(caller.realm, {
    type: 'realm.presences',
    slim: req.slim_presence,
    ...(req.presence_history_limit_days !== undefined ? { history_limit_days: req.presence_history_limit_days } : {}),
  });
  // The reply is the realm's value, not to be changed (values crossing the transport are immutable).
  return access ? { ...reply, presences: await onlyAccessible(caller, access, reply.presences) } : reply;
}
