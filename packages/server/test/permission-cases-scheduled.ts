import type { Fixtures } from './matrix-fixtures.js';
import { authenticated, INVALID_MESSAGE, OK, type Caller, type Operation } from './matrix-model.js';

/**
 * Scheduled messages and reminders: each account keeps its own, so every
 * one may (the other realm's owner in its own realm). Each is a note to
 * self an hour away; edits and deletions work on one the caller made first.
 * A reminder of a message in Denmark is refused to those who cannot see it
 * (the guest, the other realm): "Invalid message(s)".
 */
const NONE = 1;
const made = { denmark: 0 };
const later = () => Math.floor(Date.now() / 1000) + 3600;

const noteToSelf = (caller: Caller) => ({
  type: 'direct',
  to: JSON.stringify([caller.userId ?? NONE]),
  content: 'matrix later',
  scheduled_delivery_timestamp: later(),
});

async function ownScheduled(caller: Caller): Promise<number> {
  if (!caller.signedIn) return NONE;
  const made = await caller.client.post<{ scheduled_message_id: number }>('/scheduled_messages', noteToSelf(caller));
  return made.body.scheduled_message_id;
}

async function ownReminder(caller: Caller): Promise<number> {
  if (!caller.signedIn) return NONE;
  const sent = await caller.client.post<{ id: number }>('/messages', {
    type: 'direct',
    to: JSON.stringify([caller.userId]),
    content: 'matrix reminder',
  });
  const reminder = await caller.client.post<{ reminder_id: number }>('/reminders', {
    message_id: sent.body.id,
    scheduled_delivery_timestamp: later(),
  });
  return reminder.body.reminder_id;
}

const ALL = authenticated({ everyone: OK });

export const scheduledCases: Operation[] = [
  { method: 'GET', template: '/scheduled_messages', request: () => ({ path: '/scheduled_messages' }), expect: ALL },
  {
    method: 'POST',
    template: '/scheduled_messages',
    request: (_fx, caller) => ({ path: '/scheduled_messages', params: noteToSelf(caller) }),
    expect: ALL,
  },
  {
    method: 'PATCH',
    template: '/scheduled_messages/{scheduled_message_id}',
    request: async (_fx, caller) => ({
      path: `/scheduled_messages/${await ownScheduled(caller)}`,
      params: { content: 'matrix edited' },
    }),
    expect: ALL,
  },
  {
    method: 'DELETE',
    template: '/scheduled_messages/{scheduled_message_id}',
    request: async (_fx, caller) => ({ path: `/scheduled_messages/${await ownScheduled(caller)}` }),
    expect: ALL,
  },
  { method: 'GET', template: '/reminders', request: () => ({ path: '/reminders' }), expect: ALL },
  {
    method: 'POST',
    template: '/reminders',
    prepare: async (fx: Fixtures) => {
      made.denmark = await fx.send(await fx.login('hamlet'), 'Denmark', 'remind me of this');
    },
    request: () => ({
      path: '/reminders',
      params: { message_id: made.denmark, scheduled_delivery_timestamp: later() },
    }),
    expect: authenticated({ everyone: OK, guest: INVALID_MESSAGE, otherRealm: INVALID_MESSAGE }),
  },
  {
    method: 'DELETE',
    template: '/reminders/{reminder_id}',
    request: async (_fx, caller) => ({ path: `/reminders/${await ownReminder(caller)}` }),
    expect: ALL,
  },
];
