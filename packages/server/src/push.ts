import {
  BouncerError,
  type E2eeNotification,
  type E2eeRegistration,
  type PushBouncer,
  type PushNotification,
  type PushOutcome,
} from '@chat/api';

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
 * bouncer does not know the device. Anything else is a `BouncerError`, as below.
 *
 * E2EE registrations are POSTed beside it, to `e2ee/register` relative to
 * that URL (`…/push/e2ee/register` for `…/push/notify`): a 2xx answer
 * registers, a 4xx answer refuses with its JSON `code`; E2EE notifications
 * go to `e2ee/notify`. A bouncer not reached, or answering 5xx, is a
 * `BouncerError`.
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
      const { status, text } = await post(target, body);
      if (status < 300) return 'sent';
      if (status < 500 && codeOf(text) === 'INVALID_REMOTE_PUSH_DEVICE_TOKEN') return 'unknown_token';
      throw new BouncerError('refused', `push bouncer answered ${status}: ${text.slice(0, 200)}`);
    },
    async registerE2ee(registration: E2eeRegistration) {
      const { status, text } = await post(new URL('e2ee/register', target), registration);
      if (status < 300) return 'registered';
      return { error_code: String(codeOf(text) ?? 'BAD_REQUEST') };
    },
    async sendE2ee(notification: E2eeNotification) {
      const { status, text } = await post(new URL('e2ee/notify', target), notification);
      if (status >= 300) throw new BouncerError('refused', `push bouncer answered ${status}: ${text.slice(0, 200)}`);
    },
  };
}

/** One JSON POST; 5xx answers and failures to connect are BouncerErrors. */
async function post(url: URL, body: unknown): Promise<{ status: number; text: string }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new BouncerError('unreachable', String(err));
  }
  const text = await response.text();
  if (response.status >= 500) throw new BouncerError('server_error', `push bouncer answered ${response.status}`);
  return { status: response.status, text };
}

function codeOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}
