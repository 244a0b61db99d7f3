import type { PushBouncer, PushNotification, PushOutcome } from '@chat/api';

/** A bouncer that does not answer in this long is taken as failed (the original waits 15 s). */
const TIMEOUT_MS = 15_000;

/**
 * The push bouncer port over HTTP: each notification is POSTed as JSON to
 * `PUSH_BOUNCER_URL`:
 *
 *     {"realm": "zulip", "user_id": 10,
 *      "token": "…", "token_kind": "apns" | "fcm", "appid": "…" (APNs only),
 *      "payload": {"event": "test", "realm_name": "…", "user_id": 10, …}}
 *
 * A 2xx answer means sent. A 4xx answer whose JSON `code` is
 * `INVALID_REMOTE_PUSH_DEVICE_TOKEN` (the original bouncer's code) means the
 * bouncer does not know the device. Anything else is a failure.
 */
export function httpPushBouncer(url: string): PushBouncer {
  const target = new URL(url); // a malformed setting fails at startup, not on the first notification
  return {
    async send(notification: PushNotification): Promise<PushOutcome> {
      const { device, ...rest } = notification;
      const body = {
        realm: rest.realm,
        user_id: rest.user_id,
        token: device.token,
        token_kind: device.kind,
        ...(device.appid !== undefined && { appid: device.appid }),
        payload: rest.payload,
      };
      const response = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = await response.text();
      if (response.ok) return 'sent';
      if (response.status >= 400 && response.status < 500 && codeOf(text) === 'INVALID_REMOTE_PUSH_DEVICE_TOKEN') {
        return 'unknown_token';
      }
      throw new Error(`push bouncer answered ${response.status}: ${text.slice(0, 200)}`);
    },
  };
}

function codeOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}
