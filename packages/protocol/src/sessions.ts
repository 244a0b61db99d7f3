import type { ProtocolOf } from './contract.js';
import type { Principal } from './realm.js';

/**
 * Browser sessions, kept by the RealmActor beside the accounts they open.
 * The edge makes each session's secret key and sends only its SHA-256, so
 * neither the actor's state nor the journal can open a session.
 */

/** The original's `SESSION_COOKIE_AGE`: two weeks. */
export const SESSION_AGE_SECONDS = 14 * 24 * 3600;

export type SessionCommand =
  /** Starts a session for an active account; replies null. */
  | { type: 'realm.startSession'; user_id: number; key_hash: string }
  /** The session's principal, or null when it is unknown, ended or expired. */
  | { type: 'realm.sessionPrincipal'; key_hash: string }
  /** Logout: ends the session (a repeat is harmless); replies null. */
  | { type: 'realm.endSession'; key_hash: string };

export type SessionReplies = {
  'realm.startSession': null;
  'realm.sessionPrincipal': Principal | null;
  'realm.endSession': null;
};

export type SessionProtocol = ProtocolOf<SessionCommand, SessionReplies>;
