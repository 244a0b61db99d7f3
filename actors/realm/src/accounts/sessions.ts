import { ChatError, SESSION_AGE_SECONDS, type SessionProtocol } from '@chat/protocol';
import { toPrincipal } from '../profile.js';
import type { RealmHandlers, RealmState } from '../state.js';

/** A browser session: whose, and until when (epoch seconds). Keyed by the SHA-256 of its key. */
export interface Session {
  userId: number;
  expiresAt: number;
}

export type SessionEvent =
  /** `now` lets the apply drop sessions that expired, the same way on every replay. */
  | { type: 'sessionStarted'; keyHash: string; userId: number; expiresAt: number; now: number }
  | { type: 'sessionEnded'; keyHash: string };

/** The realm's session commands (`SessionProtocol`). */
export const sessionHandlers: RealmHandlers<SessionProtocol> = {
  'realm.startSession': (ctx, command) => {
    const account = ctx.state.accounts[command.user_id];
    if (!account?.isActive) throw new ChatError('USER_DEACTIVATED', 'Account is deactivated');
    const now = Math.floor(ctx.now / 1000);
    const started: SessionEvent = {
      type: 'sessionStarted',
      keyHash: command.key_hash,
      userId: account.id,
      expiresAt: now + SESSION_AGE_SECONDS,
      now,
    };
    return { events: [started], reply: null };
  },
  'realm.sessionPrincipal': ({ state, now }, command) => {
    const session = state.sessions?.[command.key_hash];
    const account = session && session.expiresAt > Math.floor(now / 1000) ? state.accounts[session.userId] : undefined;
    return { reply: account?.isActive ? toPrincipal(state, account) : null };
  },
  'realm.endSession': ({ state }, command) => {
    if (!state.sessions?.[command.key_hash]) return { reply: null };
    return { events: [{ type: 'sessionEnded', keyHash: command.key_hash }], reply: null };
  },
};

export function applySessionEvent(state: RealmState, event: SessionEvent): void {
  const sessions = (state.sessions ??= {});
  if (event.type === 'sessionEnded') {
    delete sessions[event.keyHash];
    return;
  }
  for (const [hash, session] of Object.entries(sessions)) if (session.expiresAt <= event.now) delete sessions[hash];
  sessions[event.keyHash] = { userId: event.userId, expiresAt: event.expiresAt };
}

/** A new password or a deactivation ends every session of the account, as in the original. */
export function endSessionsOf(state: RealmState, userId: number): void {
  for (const [hash, session] of Object.entries(state.sessions ?? {})) {
    if (session.userId === userId) delete state.sessions![hash];
  }
}
