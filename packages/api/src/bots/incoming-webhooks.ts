import { ChatError, BOT_TYPES } from '@chat/protocol';
import type { Route } from '@chat/edge';

/** What an incoming webhook bot may call: sending messages, as in the original. */
const OPEN_TO_INCOMING_WEBHOOKS = new Set(['POST /messages']);

/**
 * Incoming webhook bots only send messages: every other operation refuses
 * them in the original's words (`validate_api_key` without webhook access).
 */
export function withIncomingWebhookLimit(routes: Route[]): Route[] {
  return routes.map((route) => {
    if (route.auth === 'none' || OPEN_TO_INCOMING_WEBHOOKS.has(`${route.method} ${route.path}`)) return route;
    const handler = route.handler;
    return {
      ...route,
      // Not an async function: it would keep a promise of its own alive around every request (each long poll's).
      handler: (ctx) =>
        ctx.principal?.bot_type === BOT_TYPES.incoming_webhook
          ? Promise.reject(new ChatError('BAD_REQUEST', 'This API is not available to incoming webhook bots.'))
          : handler(ctx),
    };
  });
}
