import {
  ChatError,
  isAdministrator,
  isGuest,
  type EmojiProtocol,
  type GroupSetting,
  type RealmEmoji,
  realmEmojiEvent,
} from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { toEveryone } from './broadcast.js';
import { holds } from './groups/model.js';
import { organization } from './settings.js';
import type { RealmEvent, RealmHandlers, RealmState } from './state.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

const active = (state: RealmState, name: string) =>
  Object.values(state.emoji ?? {}).find((e) => e.name === name && !e.deactivated);

/** One emoji saved, and everyone told the whole new set, as the original's `realm_emoji` `update` event. */
function save<R>(state: RealmState, emoji: RealmEmoji, reply: R): Decision<RealmEvent, R> {
  const all = { ...state.emoji, [emoji.id]: emoji };
  return {
    events: [{ type: 'emojiSaved', emoji }],
    fanouts: [toEveryone(state, [realmEmojiEvent(all)])],
    reply,
  };
}

/**
 * Custom emoji, with the original's rules: guests never add one; others need
 * `can_add_custom_emoji_group`; a name in use by an active emoji is taken;
 * only administrators may shadow a Unicode emoji's name. Removing
 * deactivates, by an administrator or the emoji's author.
 */
export const emojiHandlers: RealmHandlers<EmojiProtocol> = {
  'realm.emoji': ({ state }) => ({ reply: state.emoji ?? {} }),
  'realm.addEmoji': ({ state }, command) => {
    const account = state.accounts[command.actor_id];
    if (!account?.isActive) throw new ChatError('UNAUTHORIZED', 'Account is deactivated');
    if (isGuest(account)) throw bad('Not allowed for guest users');
    const setting = organization(state).settings['can_add_custom_emoji_group'] as GroupSetting;
    if (!holds(state, setting, account)) throw bad('Insufficient permission');
    if (active(state, command.name)) throw bad('A custom emoji with this name already exists.');
    if (command.overrides_default && !isAdministrator(account)) {
      throw bad('Only administrators can override default emoji.');
    }
    if (command.check_only) return { reply: null };
    const id = String(Math.max(0, ...Object.keys(state.emoji ?? {}).map(Number)) + 1);
    const emoji: RealmEmoji = {
      id,
      name: command.name,
      source_url: command.source_url,
      still_url: null,
      deactivated: false,
      author_id: account.id,
    };
    return save(state, emoji, { id });
  },
  'realm.removeEmoji': ({ state }, command) => {
    const emoji = active(state, command.name);
    if (!emoji) throw new ChatError('RESOURCE_NOT_FOUND', `Emoji '${command.name}' does not exist`);
    const account = state.accounts[command.actor_id];
    const allowed = account?.isActive && (isAdministrator(account) || emoji.author_id === account.id);
    if (!allowed) throw bad('Must be an organization administrator or emoji author');
    return save(state, { ...emoji, deactivated: true }, null);
  },
};
