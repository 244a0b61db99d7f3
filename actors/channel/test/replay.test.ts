import { deepStrictEqual } from 'node:assert';
import test from 'ava';
import fc from 'fast-check';
import { ROLES, type ChannelCommand, type Principal } from '@chat/protocol';
import { channel, created, person, prepared, realmSettings, send } from './fixtures.js';

// Recovery rebuilds a conversation from its journal alone: whatever it was
// told, replaying its records must give the state the live actor has.

const people: Principal[] = [person(1, ROLES.administrator), person(2), person(3), person(4, ROLES.guest)];
const who = fc.constantFrom(...people);
const messageId = fc.integer({ min: 1, max: 25 });
const topic = fc.constantFrom('lunch', 'Lunch', 'dinner', '');
const settings = realmSettings({ message_content_edit_limit_seconds: null });
const ref = (p: Principal) => ({ ...p, is_active: true, bot_owner_id: null });

const command: fc.Arbitrary<ChannelCommand> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(who, topic, fc.boolean())
      .map(([p, t, all]) => send(p, t, { prepared: prepared(all ? '@**all**' : 'hi', { channel_wildcard: all }) })),
  },
  fc.tuple(who, messageId, fc.constantFrom('smile', 'heart'), fc.boolean()).map(([p, id, emoji, add]) => ({
    type: add ? ('reaction.add' as const) : ('reaction.remove' as const),
    actor: p,
    message_id: id,
    reaction: { emoji_name: emoji, emoji_code: emoji, reaction_type: 'unicode_emoji' as const, user_id: p.user_id },
  })),
  fc
    .tuple(
      who,
      messageId,
      fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
      fc.option(topic, { nil: undefined }),
    )
    .map(([p, id, content, t]) => ({
      type: 'message.edit' as const,
      actor: p,
      message_id: id,
      ...(content !== undefined ? { prepared: prepared(content || 'x') } : {}),
      ...(t !== undefined ? { topic: t } : {}),
      propagate_mode: 'change_all' as const,
      notify_old: false,
      notify_new: false,
      settings,
      wildcard_threshold: 15,
    })),
  fc.tuple(who, messageId).map(([p, id]) => ({ type: 'message.delete' as const, actor: p, message_id: id, settings })),
  fc.tuple(who, who).map(([p, q]) => ({ type: 'channel.subscribe' as const, actor: p, users: [ref(q)], settings })),
  fc.tuple(who, who).map(([p, q]) => ({ type: 'channel.unsubscribe' as const, actor: p, users: [ref(q)] })),
);

test('replaying the journal of any command sequence gives the live conversation its state', async (t) => {
  let records = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(command, fc.nat(90_000)), { maxLength: 40, size: 'medium' }), async (steps) => {
      const kit = channel(10, created(10, [1, 2], { invite_only: false }));
      for (const [body, pause] of steps) {
        kit.now += pause;
        await kit.run(body);
      }
      records += kit.journal.length;
      deepStrictEqual(kit.replay(), kit.state);
    }),
    { numRuns: 200 },
  );
  t.true(records > 200 * 3, `the commands changed state (${records} records)`);
});
