import type { PushKind } from '@chat/protocol';

/**
 * The port through which mobile push notifications leave the server: a
 * push bouncer relays them to Apple's and Google's services, which hold the
 * credentials this server does not have. The HTTP adapter lives in
 * packages/server (push.ts); tests pass their own.
 */
export interface PushBouncer {
  /**
   * Delivers one notification to one device. Answers `unknown_token` when the
   * bouncer does not know the device; throws when the bouncer cannot be
   * reached or fails.
   */
  send(notification: PushNotification): Promise<PushOutcome>;
}

export type PushOutcome = 'sent' | 'unknown_token';

export interface PushNotification {
  realm: string;
  user_id: number;
  device: { kind: PushKind; token: string; appid?: string };
  /** What the app receives: `event` says which kind (`test` for a test notification). */
  payload: PushPayload;
}

/** The original's base payload plus the event, e.g. `{event: 'test', realm_name, user_id, ...}`. */
export interface PushPayload {
  event: string;
  server: string;
  realm_id: number;
  realm_name: string;
  realm_url: string;
  user_id: number;
  /** Seconds. */
  time: number;
  [field: string]: unknown;
}
