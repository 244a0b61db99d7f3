import { ChatError, type Principal } from '@chat/protocol';
import type { CallerContext } from '../context.js';
import type { ApiOptions } from '../options.js';
import { BouncerError, type PushBouncer, type PushPayload } from '../ports/push-bouncer.js';

/** Registrations belong to people's phones; bots have none (the original's `human_users_only`). */
export function humansOnly(principal: Principal): void {
  if (principal.is_bot) throw new ChatError('BAD_REQUEST', 'This endpoint does not accept bot requests.');
}

export function bouncerOf(options: ApiOptions): PushBouncer {
  if (!options.pushBouncer) {
    throw new ChatError('PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.');
  }
  return options.pushBouncer;
}

/** The original's errors for a bouncer that cannot be used, on both kinds of push. */
export function bouncerFailure(err: unknown): ChatError {
  if (!(err instanceof BouncerError)) throw err;
  if (err.kind === 'unreachable')
    return new ChatError(
      'FAILED_TO_CONNECT_BOUNCER',
      'Network error while connecting to Zulip push notification service.',
    );
  if (err.kind === 'server_error')
    return new ChatError(
      'INTERNAL_SERVER_ERROR_ON_BOUNCER',
      'Internal server error on Zulip push notification service, retry later.',
    );
  return new ChatError(
    'ADMIN_ACTION_REQUIRED',
    'Push notification configuration issue on server, contact the server administrator or retry later.',
  );
}

/** The test notification's payload, the same for every device and both kinds of push. */
export async function testPayload(options: ApiOptions, caller: CallerContext): Promise<PushPayload> {
  const realm = await caller.actors.ask(caller.realm, { type: 'realm.info' });
  return {
    event: 'test',
    server: new URL(options.externalUrl).host,
    realm_id: realm.id,
    realm_name: realm.name,
    realm_url: options.externalUrl,
    user_id: caller.principal.user_id,
    time: Math.floor(Date.now() / 1000),
  };
}
