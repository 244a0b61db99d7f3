import type { PushKind } from '@chat/protocol';

/**
 * The port through which mobile push notifications leave the server: a
 * push bouncer relays them to Apple's and Google's services, which hold the
 * credentials this server does not have. The HTTP adapter lives in
 * packages/server (push.ts); tests pass their own.
 */
export interface PushBouncer extends E2eePushBouncer {
  /**
   * Delivers one notification to one device. Answers `unknown_token` when the
   * bouncer does not know the device; throws a `BouncerError` when the
   * bouncer cannot be reached or fails.
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

/**
 * End-to-end encrypted push (`/mobile_push/register`): the server hands the
 * bouncer the client's registration, which only the bouncer can decrypt,
 * and later sends notifications by push account id. Errors are thrown as
 * `BouncerError`.
 */
export interface E2eePushBouncer {
  /** Registers one device; answers the bouncer's error code when it refuses the registration. */
  registerE2ee(registration: E2eeRegistration): Promise<{ error_code: string } | 'registered'>;
  /** Delivers one notification to the device of this push account. */
  sendE2ee(notification: E2eeNotification): Promise<void>;
}

export interface E2eeRegistration {
  realm: string;
  user_id: number;
  push_account_id: number;
  token_kind: PushKind;
  bouncer_public_key: string;
  encrypted_push_registration: string;
}

export interface E2eeNotification {
  realm: string;
  user_id: number;
  push_account_id: number;
  /** Encrypted for the device with its `push_public_key` by the bouncer's side of this port. */
  push_public_key: string;
  payload: PushPayload;
}

/** Why the bouncer could not be used: not reached, a 5xx answer, or a refusal of this server (4xx). */
export class BouncerError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'server_error' | 'refused',
    message: string,
  ) {
    super(message);
  }
}
