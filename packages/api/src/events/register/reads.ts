import { formatAddress, type ActorAddress } from '@chat/protocol';
import { withOptions, type ActorClient } from '@chat/runtime';

const MESSAGES = ['message', 'update_message_flags', 'delete_message', 'update_message'];

/**
 * The snapshot's reads, and the sections (named by the event type that
 * changes them) each one builds from the state of the actor it asks, which
 * is also the actor those events come from.
 */
const BUILDS: Record<string, string[]> = {
  'realm.settings': ['realm'],
  'realm.organization': ['realm', 'realm_user_settings_defaults'],
  'realm.defaultChannels': ['default_streams'],
  'realm.playgrounds': ['realm_playgrounds'],
  'realm.linkifiers': ['realm_linkifiers'],
  'realm.profileFields': ['custom_profile_fields'],
  'realm.listUsers': ['realm_user'],
  'realm.usersVersioned': ['realm_user'],
  'realm.bots': ['realm_bot'],
  'realm.userGroups': ['user_group'],
  'realm.channelFolders': ['channel_folder'],
  // Which private channels the user's groups let him know of: their `stream` create and delete, and the
  // `peer_add` after a create, come from the realm's change of groups or settings (relayed by the channel).
  'realm.channelGrants': ['stream', 'subscription'],
  'realm.statuses': ['user_status'],
  'realm.presences': ['presence'],
  // The time zone.
  'realm.getUser': ['user_settings'],
  'user.settings': ['user_settings'],
  'user.personalSnapshot': ['drafts', 'saved_snippets', 'navigation_view', 'push_device'],
  'user.mutingSnapshot': ['muted_users', 'alert_words'],
  'user.scheduled': ['scheduled_messages', 'reminders'],
  // The subscriptions and their settings, topic policies, and read flags; a restricted guest's access
  // to users follows his direct-message conversations too (the adds recording one sends, `directAccessAdds`).
  'user.state': ['subscription', 'user_topic', 'update_message_flags', 'realm_user'],
  // Name, settings and subscribers of a channel the user is or was in; a restricted guest's
  // access to users follows the subscribers (`realm_user` adds and removes, users/access-events.ts).
  'channel.info': ['subscription', 'stream', 'realm_user'],
  'message.fetch': MESSAGES,
};

/**
 * The actors a snapshot read, with the journal position each answered at,
 * per section: the queue then drops the events of changes a section
 * already holds (`queue.cover`). An actor read twice for one section counts
 * at its first, lower position: a change between the two reads may be
 * missing from what the first built, so its event must still reach the
 * client.
 */
export class ReadPositions {
  private readonly bySection = new Map<string, Record<string, number>>();
  readonly client: ActorClient;

  constructor(inner: ActorClient) {
    this.client = withOptions(inner, (to, body) => ({
      onPosition: (position: number) => {
        for (const section of BUILDS[body.type] ?? []) this.note(section, to, position);
      },
    }));
  }

  /** That a section holds the changes of `actor` up to `position` (of two notes, the lower counts). */
  note(section: string, to: ActorAddress, position: number): void {
    const actor = formatAddress(to);
    const through = this.bySection.get(section) ?? {};
    through[actor] = Math.min(through[actor] ?? Infinity, position);
    this.bySection.set(section, through);
  }

  /** What the snapshot holds of these sections (the ones it built), by event type, then actor. */
  cover(sections: Iterable<string>): Record<string, Record<string, number>> {
    const cover: Record<string, Record<string, number>> = {};
    for (const section of sections) {
      const through = this.bySection.get(section);
      if (through) cover[section] = through;
    }
    return cover;
  }
}
