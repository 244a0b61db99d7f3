import type { MutingSnapshot, PersonalSnapshot } from '@chat/protocol';
import type { CallerContext } from '../../context.js';

/** The register sections the caller's own UserActor keeps. */
const SECTIONS = ['drafts', 'saved_snippets', 'navigation_views', 'push_device'];

/** The wanted ones among them, read in one ask: `{drafts, saved_snippets, navigation_views}`. */
export async function personalSections(
  caller: CallerContext,
  wants: (section: string) => boolean,
): Promise<PersonalSnapshot> {
  const sections = SECTIONS.filter(wants);
  if (sections.length === 0) return {};
  return caller.actors.ask(caller.me, { type: 'user.personalSnapshot', sections });
}

/** The register sections of muting (muting.ts in the UserActor), read in one ask: `{muted_users, alert_words}`. */
export async function mutingSections(
  caller: CallerContext,
  wants: (section: string) => boolean,
): Promise<MutingSnapshot> {
  const sections = ['muted_users', 'alert_words'].filter(wants);
  if (sections.length === 0) return {};
  return caller.actors.ask(caller.me, { type: 'user.mutingSnapshot', sections });
}

/** The caller's scheduled messages and reminders, as their sections (`scheduled_messages`, `reminders`). */
export async function scheduledSections(
  caller: CallerContext,
  wants: (section: string) => boolean,
): Promise<Record<string, unknown>> {
  const kinds = [
    ['scheduled_messages', 'message'],
    ['reminders', 'reminder'],
  ] as const;
  const wanted = kinds.filter(([section]) => wants(section));
  const lists = await Promise.all(
    wanted.map(([, kind]) => caller.actors.ask(caller.me, { type: 'user.scheduled', kind })),
  );
  return Object.fromEntries(wanted.map(([section], i) => [section, lists[i]]));
}
