import test from 'ava';
import { OWNER, realm } from './fixtures.js';

type Kit = Awaited<ReturnType<typeof realm>>;

async function group(kit: Kit, name: string): Promise<number> {
  const made = await kit.run({
    type: 'realm.createUserGroup',
    actor_id: OWNER,
    name,
    description: '',
    members: [OWNER],
    subgroups: [],
    settings: {},
  });
  if (made.error) throw made.error;
  return (made.reply as { group_id: number }).group_id;
}

const addSubgroups = (kit: Kit, groupId: number, subgroups: number[]) =>
  kit.run({
    type: 'realm.changeUserGroupMembers',
    actor_id: OWNER,
    group_id: groupId,
    add: [],
    delete: [],
    add_subgroups: subgroups,
    delete_subgroups: [],
  });

test('a group cannot become a subgroup of itself, directly or through other groups', async (t) => {
  const kit = await realm();
  const [a, b, c] = [await group(kit, 'a'), await group(kit, 'b'), await group(kit, 'c')];
  t.is((await addSubgroups(kit, a, [b])).error, undefined);
  t.is((await addSubgroups(kit, b, [c])).error, undefined);
  const cycle = await addSubgroups(kit, c, [a]);
  t.is(cycle.error?.code, 'BAD_REQUEST');
  t.is(cycle.error?.message, `User group ${c} is already a subgroup of one of the passed subgroups.`);
  t.deepEqual(cycle.events, []);
  const self = await addSubgroups(kit, a, [a]);
  t.is(self.error?.message, `User group ${a} is already a subgroup of one of the passed subgroups.`);
});

test('one refused subgroup refuses the whole change', async (t) => {
  const kit = await realm();
  const [a, b, c] = [await group(kit, 'a'), await group(kit, 'b'), await group(kit, 'c')];
  await addSubgroups(kit, a, [b]);
  t.truthy((await addSubgroups(kit, b, [c, a])).error);
  t.deepEqual(kit.state.userGroups?.[b]?.subgroups, []);
});

test('a group may sit below several groups, and groups in a chain may take a sibling', async (t) => {
  const kit = await realm();
  const [a, b, c, d] = [await group(kit, 'a'), await group(kit, 'b'), await group(kit, 'c'), await group(kit, 'd')];
  await addSubgroups(kit, a, [b]);
  await addSubgroups(kit, b, [c]);
  t.is((await addSubgroups(kit, a, [d])).error, undefined);
  t.is((await addSubgroups(kit, c, [d])).error, undefined, 'a diamond is no cycle');
  const saved = await addSubgroups(kit, d, []);
  t.deepEqual(saved.reply, null, 'nothing to change changes nothing');
  t.deepEqual(kit.state.userGroups?.[c]?.subgroups, [d]);
});

test('removing the link that closed nothing lets a former cycle through', async (t) => {
  const kit = await realm();
  const [a, b] = [await group(kit, 'a'), await group(kit, 'b')];
  await addSubgroups(kit, a, [b]);
  t.truthy((await addSubgroups(kit, b, [a])).error);
  await kit.run({
    type: 'realm.changeUserGroupMembers',
    actor_id: OWNER,
    group_id: a,
    add: [],
    delete: [],
    add_subgroups: [],
    delete_subgroups: [b],
  });
  t.is((await addSubgroups(kit, b, [a])).error, undefined);
});

test('a subgroup already there is refused, and an unknown group too', async (t) => {
  const kit = await realm();
  const [a, b] = [await group(kit, 'a'), await group(kit, 'b')];
  await addSubgroups(kit, a, [b]);
  t.is((await addSubgroups(kit, a, [b])).error?.message, `User group ${b} is already a subgroup of this group.`);
  t.is((await addSubgroups(kit, a, [999])).error?.message, 'Invalid user group ID: 999');
});
