import {
  ChatError,
  settingEvents,
  userAddress,
  type QueueEvent,
  type StatusCommand,
  type StatusReplies,
  realmUserUpdated,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { toEveryone } from '../broadcast.js';
import { apiEmailOf } from '../profile.js';
import type { RealmEvent, RealmState } from '../state.js';

/** A user's own changes to what the realm keeps of their account (`PATCH /settings`). */
export type AccountUpdateEvent = {
  type: 'accountUpdated';
  userId: number;
  fullName?: string;
  timezone?: string;
  passwordHash?: string;
};

type Command = Extract<StatusCommand, { type: 'realm.updateAccount' }>;

const MAX_NAME_LENGTH = 100;
const MIN_NAME_LENGTH = 2;
// Characters that would break the Markdown of a mention of the name.
const NAME_INVALID_CHARACTERS = /[*`\\>"@]/;

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);

/** The original's checks of a new full name, in its words. */
export function checkFullName(raw: string): string {
  const name = raw.trim();
  if (name.length > MAX_NAME_LENGTH) throw bad('Name too long!');
  if (name.length < MIN_NAME_LENGTH) throw bad('Name too short!');
  if (NAME_INVALID_CHARACTERS.test(name)) throw bad('Invalid characters in name!');
  // `Name|15` would read as a mention of user 15.
  if (/\|\d+$/.test(name)) throw bad('Invalid format!');
  return name;
}

export function decideAccountUpdate(
  ctx: ActorContext<RealmState>,
  command: Command,
): Decision<RealmEvent, StatusReplies['realm.updateAccount']> {
  const state = ctx.state;
  const account = state.accounts[command.user_id];
  if (!account) throw bad('No such user');
  const event: AccountUpdateEvent = { type: 'accountUpdated', userId: account.id };
  const everyone: QueueEvent[] = [];
  let own: QueueEvent[] = [];
  if (command.full_name !== undefined) {
    const name = checkFullName(command.full_name);
    if (name !== account.fullName) {
      event.fullName = name;
      everyone.push(realmUserUpdated({ user_id: account.id, full_name: name }));
    }
  }
  if (command.timezone !== undefined && command.timezone !== account.timezone) {
    event.timezone = command.timezone;
    const person = { user_id: account.id, email: apiEmailOf(account), timezone: command.timezone };
    everyone.push(realmUserUpdated(person));
    // The time zone is also one of the user's settings for their own clients.
    own = settingEvents(apiEmailOf(account), 'timezone', command.timezone);
  }
  if (command.password_hash !== undefined) event.passwordHash = command.password_hash;
  const changed = Object.keys(event).filter((k) => k !== 'type' && k !== 'userId');
  if (changed.length === 0) return { reply: { changed } };
  return {
    events: [event],
    fanouts: everyone.length > 0 ? [toEveryone(state, everyone)] : [],
    tells:
      own.length > 0
        ? [{ to: userAddress(state.stringId, account.id), body: { type: 'user.deliver', events: own } }]
        : [],
    reply: { changed },
  };
}

export function applyAccountUpdate(state: RealmState, event: AccountUpdateEvent): void {
  const account = state.accounts[event.userId];
  if (!account) return;
  if (event.fullName !== undefined) account.fullName = event.fullName;
  if (event.timezone !== undefined) account.timezone = event.timezone;
  if (event.passwordHash !== undefined) account.passwordHash = event.passwordHash;
}
