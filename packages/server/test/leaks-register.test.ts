import type { ChatClient } from '@chat/testkit';
import { expectOk } from './matrix-fixtures.js';
import { IDS, withServer } from './context.js';
import { eventsUntil, register, snapshotOf, type Body } from './queues.js';
import { newPerson } from './people.js';

/**
 * Register sections the permission matrix does not see (it asks routes):
 * what a user may no longer know once he left a channel. The original
 * (`has_metadata_access_to_previously_subscribed_stream`) keeps a former
 * channel in `unsubscribed` only when its reader may still know of it:
 * private ones for administrators, public ones for non-guests, web-public
 * ones for everyone. Each case first shows the channel to its subscriber.
 * And events whose audience the original restricts: `invites_changed`
 * reaches administrators and the inviter only (`notify_invites_changed`).
 * And a real address its owner hides (`email_address_visibility`).
 */
const test = withServer(['iago', 'hamlet', 'othello', 'polonius']);

interface Sub {
  stream_id: number;
  name: string;
  subscribers?: number[];
}

/** The ids of the channels named by each list of the `subscription` section. */
async function lists(client: ChatClient) {
  const snapshot: Body = await snapshotOf(client, { fetch_event_types: ['subscription'], include_subscribers: true });
  const ids = (name: string) => ((snapshot[name] ?? []) as Sub[]).map((s) => s.stream_id);
  return {
    subscriptions: ids('subscriptions'),
    unsubscribed: ids('unsubscribed'),
    never_subscribed: ids('never_subscribed'),
    snapshot,
  };
}

const leave = (client: ChatClient, name: string) =>
  expectOk(client.delete('/users/me/subscriptions', { subscriptions: JSON.stringify([name]) }));

test.serial('a member who left a private channel no longer learns of it; an administrator does', async (t) => {
  const { iago, hamlet } = t.context;
  const principals = [IDS.hamlet, IDS.iago];
  const created = await expectOk(
    iago.post<{ id: number }>('/channels/create', { name: 'left vault', subscribers: principals, invite_only: true }),
  );
  t.true((await lists(hamlet)).subscriptions.includes(created.id), 'the subscriber sees it');
  await leave(hamlet, 'left vault');
  const after = await lists(hamlet);
  t.false(after.subscriptions.includes(created.id));
  t.false(after.unsubscribed.includes(created.id), 'not its name, description nor subscribers');
  t.false(after.never_subscribed.includes(created.id));
  t.false(JSON.stringify(after.snapshot).includes('left vault'));
  await leave(iago, 'left vault');
  t.true((await lists(iago)).unsubscribed.includes(created.id), 'administrators keep it');
});

test.serial('a guest who left a public channel no longer learns of it; a member does', async (t) => {
  const { iago, hamlet, polonius } = t.context;
  const principals = [IDS.hamlet, IDS.polonius];
  const created = await expectOk(
    iago.post<{ id: number }>('/channels/create', { name: 'left square', subscribers: principals }),
  );
  t.true((await lists(polonius)).subscriptions.includes(created.id), 'the guest sees it while in it');
  await leave(polonius, 'left square');
  await leave(hamlet, 'left square');
  const guest = await lists(polonius);
  t.false(guest.unsubscribed.includes(created.id));
  t.false(JSON.stringify(guest.snapshot).includes('left square'));
  t.true((await lists(hamlet)).unsubscribed.includes(created.id), 'a member keeps a public one');
});

test.serial('invites_changed reaches administrators and the inviter, not other members', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const types = { event_types: ['invites_changed', 'user_status'] };
  const [admin, inviter, other] = await Promise.all([iago, hamlet, othello].map((c) => register(c, types)));
  const invited = (e: Body) => e.type === 'invites_changed';
  await expectOk(hamlet.post('/invites', { invitee_emails: 'leak-check@example.com', stream_ids: '[]' }));
  await eventsUntil(admin, invited);
  await eventsUntil(inviter, invited);
  // Othello's own status change, told by the realm after the invitation: what came before it has arrived.
  await expectOk(othello.post('/users/me/status', { status_text: 'after the invitation' }));
  const seen = await eventsUntil(other, (e) => e.type === 'user_status' && e.user_id === IDS.othello);
  t.deepEqual(seen.filter(invited), []);
});

test.serial('a private channel one never joined: administrators learn of it, members do not', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const created = await expectOk(
    othello.post<{ id: number }>('/channels/create', {
      name: 'closed room',
      subscribers: [IDS.othello],
      invite_only: true,
    }),
  );
  const admin = await lists(iago);
  t.true(admin.never_subscribed.includes(created.id), 'an administrator may read its metadata');
  t.false(admin.subscriptions.includes(created.id));
  t.false((await lists(hamlet)).never_subscribed.includes(created.id));
});

test.serial('an address its owner shows to nobody is in no section of anyone else’s register', async (t) => {
  const { iago, hamlet, polonius } = t.context;
  const hidden = await newPerson(t.context, 'Hidden Leak Check');
  await expectOk(hidden.client.patch('/settings', { email_address_visibility: 4 }));
  // Put the account where sections name people: a message, presence and a status.
  await expectOk(hidden.client.post('/messages', { type: 'stream', to: 'Verona', topic: 'hidden', content: 'hi' }));
  await expectOk(hidden.client.post('/users/me/presence', { status: 'active' }));
  await expectOk(hidden.client.post('/users/me/status', { status_text: 'hiding' }));
  for (const client of [iago, hamlet, polonius]) {
    const snapshot = await snapshotOf(client, { client_capabilities: { user_settings_object: true } });
    t.false(JSON.stringify(snapshot).includes(hidden.email));
  }
  t.true(JSON.stringify(await snapshotOf(hidden.client, {})).includes(hidden.email), 'the owner still sees it');
});
