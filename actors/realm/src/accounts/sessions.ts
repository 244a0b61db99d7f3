import {
  ChatError,
  SESSION_AGE_SECONDS,
  SESSION_COMMANDS,
  type RealmCommand,
  type SessionCommand,
} from '@chat/protocol';
import type { ActorContext, Decision } from '@chat/runtime';
import { toPrincipal } from '../profile.js';
import type { RealmEvent, RealmState } from '../state.js';

/** A browser session: whose, and until when (epoch seconds). Keyed by the SHA-256 of its key. */
export interface Session {
  userId: number;
  expiresAt: number;
}

export type SessionEvent =
  /** `now` lets the apply drop sessions that expired, the same way on every replay. */
  | { type: 'sessionStarted'; keyHash: string; userId: number; expiresAt: number; now: number }
  | { type: 'sessionEnded'; keyHash: string };

export const isSessionCommand = (command: RealmCommand): command is SessionCommand =>
  SESSION_COMMANDS.has(command.type);

export function decideSession(ctx: ActorContext<RealmState>, command: SessionCommand): Decision<RealmEvent> {
  const state = ctx.state;
  const now = Math.floor(ctx.now / 1000);
  switch (command.type) {
    case 'realm.startSession': {
      const account = state.accounts[command.user_id];
      if (!account?.isActive) throw new ChatError('USER_DEACTIVATED', 'Account is deactivated');
      const started: SessionEvent = {
        type: 'sessionStarted',
        keyHash: command.key_hash,
        userId: account.id,
        expiresAt: now + SESSION_AGE_SECONDS,
        now,
      };
      return { events: [started], reply: null };
    }
    case 'realm.sessionPrincipal': {
      const session = state.sessions?.[command.key_hash];
      const account = session && session.expiresAt > now ? state.accounts[session.userId] : undefined;
      return { reply: account?.isActive ? toPrincipal(state, account) : null };
    }
    case 'realm.endSession':
      if (!state.sessions?.[command.key_hash]) return { reply: null };
      return { events: [{ type: 'sessionEnded', keyHash: command.key_hash }], reply: null };
  }
}

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
