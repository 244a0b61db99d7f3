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
