import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { ChatError, type SubscriptionProperty } from '@chat/protocol';
import { CallerContext } from '../context.js';

/** The properties a subscriber may change, as the original's `property_converters` name them. */
const BOOLEAN_PROPERTIES = [
  'in_home_view',
  'is_muted',
  'pin_to_top',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
];
const HEX_COLOR = /^#([a-fA-F0-9]{3,6})$/;

interface Change {
  stream_id: number;
  property: string;
  value: unknown;
}

/** A subscription color as the original takes it (`check_color`). */
export function checkColor(value: unknown): string {
  if (typeof value !== 'string' || !HEX_COLOR.test(value)) {
    throw new ChatError('BAD_REQUEST', 'color is not a valid hex color code');
  }
  return value;
}

/** One change as stored: `in_home_view` is the inverse of `is_muted`. Refuses what the original refuses. */
function checked(change: Change): { property: SubscriptionProperty; value: string | boolean } {
  const { property, value } = change;
  if (property === 'color') return { property, value: checkColor(value) };
  if (typeof value !== 'boolean') throw new ChatError('BAD_REQUEST', `${property} is not a boolean`);
  if (property === 'in_home_view') return { property: 'is_muted', value: !value };
  return { property: property as SubscriptionProperty, value };
}

/** Checks every change first (unknown property, channel, subscription, value), then applies them in order. */
async function changeSubscriptionSettings(caller: CallerContext, changes: Change[]): Promise<void> {
  const { subscriptions } = await caller.state();
  const stored = [];
  for (const change of changes) {
    if (change.property !== 'color' && !BOOLEAN_PROPERTIES.includes(change.property)) {
      throw new ChatError('BAD_REQUEST', `Unknown subscription property: ${change.property}`);
    }
    if (!subscriptions[change.stream_id]) {
      // A channel the caller cannot see is "Invalid channel ID", as the original's access_stream_by_id.
      await caller.channelInfo(change.stream_id);
      throw new ChatError('BAD_REQUEST', `Not subscribed to channel ID ${change.stream_id}`);
    }
    stored.push({ channel_id: change.stream_id, ...checked(change) });
  }
  for (const change of stored) {
    await caller.actors.ask(caller.me, { type: 'user.subscriptionProperty', ...change });
  }
}

export function subscriptionSettingsRoutes(): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/users/me/subscriptions/properties',
      auth: 'required',
      params: Type.Object({
        subscription_data: Type.Array(
          Type.Object({
            stream_id: Type.Integer(),
            property: Type.String(),
            value: Type.Union([Type.Boolean(), Type.String()]),
          }),
        ),
      }),
      summary: 'Update subscription settings',
      description:
        'Changes personal settings of subscriptions: color, is_muted (in_home_view, its inverse), pin_to_top and the notification settings.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        await changeSubscriptionSettings(new CallerContext(actors, principal), params.subscription_data);
        return {};
      },
    }),
  ];
}
