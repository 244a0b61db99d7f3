import {
  botUpdated,
  ChatError,
  gravatarUrl,
  isAdministrator,
  realmUserUpdated,
  type BotCommand,
  type BotReplies,
  uploadedAvatarUrl,
} from '@chat/protocol';
import type { Decision } from '@chat/runtime';
import { toEveryone, toUsers } from './broadcast.js';
import { administers, botAudience, isRealmBot } from './bots/model.js';
import type { Account, RealmEvent, RealmState } from './state.js';

type SetAvatar = Extract<BotCommand, { type: 'realm.setAvatar' }>;
const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** Who may change whose avatar: one's own (unless the organization disabled it), or a bot one administers. */
function target(state: RealmState, command: SetAvatar): Account {
  const who = state.accounts[command.actor.user_id];
  if (!who || !who.isActive) throw new ChatError('USER_DEACTIVATED', 'Account is deactivated');
  if (command.user_id === who.id) {
    if (state.options?.avatar_changes_disabled === true && !isAdministrator(who)) {
      throw bad('Avatar changes are disabled in this organization.');
    }
    return who;
  }
  const bot = state.accounts[command.user_id];
  if (!bot || !isRealmBot(state, bot)) throw bad('No such bot');
  if (!administers(who, bot)) throw bad('Insufficient permission');
  return bot;
}

/** The avatar fields of a `realm_user` update: an account's image (`file`; null: its gravatar) at `version`. */
export function avatarFields(email: string, file: string | null, version: number) {
  const uploaded = file === null ? null : uploadedAvatarUrl(file, version);
  const avatar_url = uploaded ?? gravatarUrl(email, version);
  return {
    avatar_source: uploaded ? 'U' : 'G',
    avatar_url,
    avatar_url_medium: uploaded ?? `${avatar_url}&s=500`,
    avatar_version: version,
  };
}

/**
 * The original's `do_change_avatar_fields`: a new version, `realm_user`
 * update to everyone with the new URLs and, for a bot, `realm_bot` update to
 * its audience. No resizing: the medium URL serves the image as uploaded.
 */
export function setAvatar(state: RealmState, command: SetAvatar): Decision<RealmEvent, BotReplies['realm.setAvatar']> {
  const account = target(state, command);
  const fields = avatarFields(account.email, command.file, account.avatarVersion + 1);
  const { avatar_url } = fields;
  const person = { user_id: account.id, ...fields };
  const fanouts = [toEveryone(state, [realmUserUpdated(person)])];
  if (account.botType !== null) {
    fanouts.push(toUsers(state, botAudience(state, account), [botUpdated({ user_id: account.id, avatar_url })]));
  }
  return {
    events: [{ type: 'avatarChanged', userId: account.id, file: command.file }],
    fanouts,
    reply: { avatar_url, previous: account.avatarFile ?? null },
  };
}
