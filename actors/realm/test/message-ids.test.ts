import test from 'ava';
import { BehaviorTestKit } from '@chat/runtime/testkit';
import { realmBehavior, type RealmEvent } from '../src/index.js';
import { ID_BLOCK } from '../src/message-ids.js';

const created: RealmEvent = {
  type: 'realmCreated',
  id: 1,
  name: 'Test',
  description: '',
  development: false,
  webPublicAccessEnabled: false,
  at: 0,
  firstUserId: 1,
};

const realm = () => new BehaviorTestKit(realmBehavior, { key: 'test' }).given([created]);
const next = async (kit: ReturnType<typeof realm>, floor = 0) => kit.run({ type: 'realm.nextMessageId', floor });

test('ids start at one and follow one another; only a reservation per block is journaled', async (t) => {
  const kit = realm();
  const first = await next(kit);
  t.is(first.reply, 1);
  t.deepEqual(first.events, [{ type: 'messageIdsReserved', through: ID_BLOCK }]);
  const ids = [1];
  for (let i = 1; i < ID_BLOCK + 1; i++) {
    const r = await next(kit);
    ids.push(r.reply as number);
    t.deepEqual(r.events, i < ID_BLOCK ? [] : [{ type: 'messageIdsReserved', through: 2 * ID_BLOCK }]);
  }
  t.deepEqual(
    ids,
    Array.from({ length: ID_BLOCK + 1 }, (_, i) => i + 1),
  );
});

test('an id is above the asking conversation’s newest', async (t) => {
  const kit = realm();
  t.is((await next(kit)).reply, 1);
  t.is((await next(kit, 500)).reply, 501);
  t.is((await next(kit)).reply, 502);
});

test('after a crash the realm goes on after its last reservation: a gap, never an id twice', async (t) => {
  const kit = realm();
  for (let i = 0; i < 5; i++) await next(kit);
  // Recovery: the journal alone (the handed-out ids were soft), then activation.
  const recovered = new BehaviorTestKit(realmBehavior, { key: 'test' });
  recovered.state = kit.replay();
  recovered.activate();
  t.is((await next(recovered)).reply, ID_BLOCK + 1);
  // A snapshot that saw the soft changes resumes after the reservation too.
  const snapshot = new BehaviorTestKit(realmBehavior, { key: 'test' });
  snapshot.state = structuredClone(kit.state);
  snapshot.activate();
  t.is((await next(snapshot)).reply, ID_BLOCK + 1);
});

test('put to rest (passivated or stopped gracefully), the realm goes on from its next id', async (t) => {
  const kit = realm();
  for (let i = 0; i < 5; i++) await next(kit);
  const saved = structuredClone(kit.rest().state);
  const back = new BehaviorTestKit(realmBehavior, { key: 'test' });
  back.state = structuredClone(saved);
  back.activate();
  const first = await next(back);
  t.is(first.reply, 6);
  // The first id after rest is reserved in the journal, so that a crash from here on is seen as one.
  t.deepEqual(first.events, [{ type: 'messageIdsReserved', through: 5 + ID_BLOCK }]);
  t.is((await next(back)).reply, 7);
  // A crash now: the snapshot at rest plus the journal since; ids 6 and 7 must not come again.
  const crashed = new BehaviorTestKit(realmBehavior, { key: 'test' });
  crashed.state = structuredClone(saved);
  for (const event of first.events) realmBehavior.apply(crashed.state, event);
  crashed.activate();
  t.is((await next(crashed)).reply, 6 + ID_BLOCK);
});

test('back from rest with no id handed out, a later rest still resumes exactly', async (t) => {
  const kit = realm();
  for (let i = 0; i < 3; i++) await next(kit);
  const again = new BehaviorTestKit(realmBehavior, { key: 'test' });
  again.state = structuredClone(kit.rest().state);
  again.activate().rest();
  const third = new BehaviorTestKit(realmBehavior, { key: 'test' });
  third.state = structuredClone(again.state);
  third.activate();
  t.is((await next(third)).reply, 4);
});
