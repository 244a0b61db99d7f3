import { IDS, withServer } from './context.js';
import { next, register, snapshotOf, type Body, type Event } from './queues.js';
import { bodyOf, ok, refusal } from './replies.js';

/**
 * Custom profile fields: administrators define, change, reorder and delete
 * them (`custom_profile_fields` events, the register section); users set
 * their own values (`realm_user` update events, `profile_data` on users),
 * administrators anyone's, each checked by its field's type.
 */
const test = withServer(['iago', 'hamlet', 'othello']);

const bad = (msg: string) => ({ status: 400, result: 'error', code: 'BAD_REQUEST', msg });
const NOT_ADMIN = {
  status: 400,
  result: 'error',
  code: 'UNAUTHORIZED_PRINCIPAL',
  msg: 'Must be an organization administrator',
};
type Field = { id: number; name: string; order: number; type: number; field_data: string };
const fieldsOf = async (client: Parameters<typeof ok>[0]) =>
  ((await ok(client, 'GET', '/realm/profile_fields')) as { custom_fields: Field[] }).custom_fields;

test.serial('fields are made, listed, announced, reordered, changed and deleted by administrators', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: JSON.stringify(['custom_profile_fields']) });
  const { id: phone } = (await ok(iago, 'POST', '/realm/profile_fields', {
    name: 'Phone',
    hint: 'Your number',
    field_type: 1,
    display_in_profile_summary: true,
  })) as { id: number };
  const colors = { red: { text: 'Red', order: '1' }, blue: { text: 'Blue', order: '2' } };
  const { id: color } = (await ok(iago, 'POST', '/realm/profile_fields', {
    name: 'Color',
    field_type: 3,
    field_data: JSON.stringify(colors),
  })) as { id: number };
  const { id: github } = (await ok(iago, 'POST', '/realm/profile_fields', {
    field_type: 7,
    field_data: JSON.stringify({ subtype: 'github' }),
  })) as { id: number };
  const event = await next(
    queue,
    (e: Event) => e.type === 'custom_profile_fields' && (e.fields as Body[]).length === 3,
  );
  t.like((event.fields as Body[])[0], {
    id: phone,
    name: 'Phone',
    hint: 'Your number',
    type: 1,
    order: 1,
    field_data: '',
    display_in_profile_summary: true,
    required: false,
    editable_by_user: true,
  });
  t.like((event.fields as Body[])[2], { id: github, name: 'GitHub', hint: 'Enter your GitHub username' });
  t.deepEqual(JSON.parse((await fieldsOf(hamlet))[1]!.field_data), colors);
  const snapshot = await snapshotOf(hamlet, { fetch_event_types: JSON.stringify(['custom_profile_fields']) });
  t.deepEqual(
    (snapshot.custom_profile_fields as Field[]).map((f) => f.id),
    [phone, color, github],
  );

  await ok(iago, 'PATCH', '/realm/profile_fields', { order: JSON.stringify([github, phone, color]) });
  t.deepEqual(
    (await fieldsOf(hamlet)).map((f) => [f.id, f.order]),
    [
      [github, 1],
      [phone, 2],
      [color, 3],
    ],
  );
  t.deepEqual(
    await refusal(iago.patch('/realm/profile_fields', { order: JSON.stringify([phone]) })),
    bad('Invalid order mapping.'),
  );
  await bodyOf(iago.patch(`/realm/profile_fields/${phone}`, { name: 'Telephone' }));
  t.like(
    (await fieldsOf(hamlet)).find((f) => f.id === phone),
    { name: 'Telephone', hint: 'Your number' },
  );
  t.deepEqual(await refusal(hamlet.delete(`/realm/profile_fields/${phone}`)), NOT_ADMIN);
  for (const id of [phone, color, github]) await bodyOf(iago.delete(`/realm/profile_fields/${id}`));
  t.deepEqual(await fieldsOf(hamlet), []);
  t.deepEqual(await refusal(iago.delete(`/realm/profile_fields/${phone}`)), bad(`Field id ${phone} not found.`));
});

test.serial('field definitions are checked as the original checks them', async (t) => {
  const { iago, hamlet } = t.context;
  const add = (params: Body) => iago.post('/realm/profile_fields', { field_type: 1, name: 'X', ...params });
  t.deepEqual(await refusal(hamlet.post('/realm/profile_fields', { field_type: 1, name: 'X' })), NOT_ADMIN);
  t.deepEqual(await refusal(add({ field_type: 99 })), bad('Invalid field type.'));
  t.deepEqual(await refusal(add({ name: ' ' })), bad('Label cannot be blank.'));
  t.deepEqual(await refusal(add({ name: 'x'.repeat(41) })), bad('name is too long (limit: 40 characters)'));
  t.deepEqual(await refusal(add({ field_type: 3, field_data: '{}' })), bad('Field must have at least one choice.'));
  t.deepEqual(
    await refusal(add({ field_type: 7, field_data: JSON.stringify({ subtype: 'myspace' }) })),
    bad('Invalid external account type'),
  );
  t.deepEqual(
    await refusal(add({ field_type: 7, field_data: JSON.stringify({ subtype: 'custom', url_pattern: 'https://x/' }) })),
    bad('Malformed URL pattern.'),
  );
  t.deepEqual(
    await refusal(add({ field_type: 2, display_in_profile_summary: true })),
    bad('Field type not supported for display in profile summary.'),
  );
  const made = [];
  for (const name of ['A', 'B'])
    made.push(
      (
        (await ok(iago, 'POST', '/realm/profile_fields', {
          name,
          field_type: 1,
          display_in_profile_summary: true,
        })) as { id: number }
      ).id,
    );
  t.deepEqual(
    await refusal(add({ name: 'C', display_in_profile_summary: true })),
    bad('Only 2 custom profile fields can be displayed in the profile summary.'),
  );
  t.deepEqual(await refusal(add({ name: 'A' })), bad('A field with that label already exists.'));
  for (const id of made) await bodyOf(iago.delete(`/realm/profile_fields/${id}`));
});

test.serial('users set and clear their values; everyone hears; users show them', async (t) => {
  const { iago, hamlet, othello } = t.context;
  const field = async (params: Body) =>
    ((await ok(iago, 'POST', '/realm/profile_fields', params)) as { id: number }).id;
  const bio = await field({ name: 'Bio', field_type: 2 });
  const birthday = await field({ name: 'Birthday', field_type: 4 });
  const mentor = await field({ name: 'Mentor', field_type: 6 });
  const site = await field({ name: 'Site', field_type: 5 });
  const badge = await field({ name: 'Badge', field_type: 1, editable_by_user: false });
  const queue = await register(othello, { event_types: JSON.stringify(['realm_user']) });

  const set = (data: Body[]) => hamlet.patch('/users/me/profile_data', { data: JSON.stringify(data) });
  await bodyOf(
    hamlet.patch('/users/me/profile_data', {
      data: JSON.stringify([
        { id: bio, value: 'I **act**' },
        { id: birthday, value: '1600-01-01' },
        { id: mentor, value: [IDS.othello] },
      ]),
    }),
  );
  const update = await next(
    queue,
    (e) =>
      e.type === 'realm_user' &&
      (e.person as Body).custom_profile_field !== undefined &&
      ((e.person as Body).custom_profile_field as Body).id === bio,
  );
  t.deepEqual(update.person, {
    user_id: IDS.hamlet,
    custom_profile_field: { id: bio, value: 'I **act**', rendered_value: '<p>I <strong>act</strong></p>' },
  });
  const user = (await ok(othello, 'GET', `/users/${IDS.hamlet}`, { include_custom_profile_fields: true })) as {
    user: { profile_data: Body };
  };
  t.deepEqual(user.user.profile_data, {
    [bio]: { value: 'I **act**', rendered_value: '<p>I <strong>act</strong></p>' },
    [birthday]: { value: '1600-01-01' },
    [mentor]: { value: JSON.stringify([IDS.othello]) },
  });
  // Only when asked for, as in the original.
  t.false('profile_data' in ((await ok(othello, 'GET', `/users/${IDS.hamlet}`)) as { user: Body }).user);
  const snapshot = await snapshotOf(othello, { fetch_event_types: JSON.stringify(['realm_user']) });
  const inRegister = (snapshot.realm_users as { user_id: number; profile_data: Body }[]).find(
    (u) => u.user_id === IDS.hamlet,
  )!;
  t.deepEqual(Object.keys(inRegister.profile_data).sort(), [String(bio), String(birthday), String(mentor)].sort());

  t.deepEqual(await refusal(set([{ id: birthday, value: 'soon' }])), bad('Birthday is not a date'));
  t.deepEqual(await refusal(set([{ id: site, value: 'not a url' }])), bad('Site is not a URL'));
  t.deepEqual(await refusal(set([{ id: mentor, value: [IDS.othello, 9999] }])), bad('Invalid user ID: 9999'));
  t.deepEqual(
    await refusal(set([{ id: bio, value: 'x'.repeat(501) }])),
    bad('Bio is too long (limit: 500 characters)'),
  );
  t.deepEqual(await refusal(set([{ id: 9999, value: 'x' }])), bad('Field id 9999 not found.'));
  t.deepEqual(
    await refusal(set([{ id: badge, value: 'gold' }])),
    bad('You are not allowed to change this field. Contact an administrator to update it.'),
  );
  // An administrator may set anyone's, that field included.
  await ok(iago, 'PATCH', `/users/${IDS.hamlet}`, { profile_data: JSON.stringify([{ id: badge, value: 'gold' }]) });
  t.deepEqual(
    await refusal(othello.patch(`/users/${IDS.hamlet}`, { profile_data: JSON.stringify([{ id: bio, value: 'x' }]) })),
    NOT_ADMIN,
  );

  await bodyOf(hamlet.delete('/users/me/profile_data', { data: JSON.stringify([bio]) }));
  await next(
    queue,
    (e) => e.type === 'realm_user' && ((e.person as Body).custom_profile_field as Body | undefined)?.value === null,
  );
  const after = (await ok(othello, 'GET', `/users/${IDS.hamlet}`, { include_custom_profile_fields: true })) as {
    user: { profile_data: Body };
  };
  t.deepEqual(Object.keys(after.user.profile_data).sort(), [String(birthday), String(mentor), String(badge)].sort());
  // Deleting a field deletes its values.
  await bodyOf(iago.delete(`/realm/profile_fields/${birthday}`));
  const last = (await ok(othello, 'GET', `/users/${IDS.hamlet}`, { include_custom_profile_fields: true })) as {
    user: { profile_data: Body };
  };
  t.false(String(birthday) in last.user.profile_data);
  for (const id of [bio, mentor, site, badge]) await bodyOf(iago.delete(`/realm/profile_fields/${id}`));
});

test.serial(
  'a required field is only a mark for clients: its value may still be cleared, as in the original',
  async (t) => {
    const { iago, hamlet } = t.context;
    // The original stores `required` and shows it (the web app nags who has no value); its value
    // routes check only `editable_by_user`, so clearing a required field's value succeeds.
    const { id } = (await ok(iago, 'POST', '/realm/profile_fields', {
      name: 'Team',
      field_type: 1,
      required: true,
    })) as { id: number };
    t.like(
      (await fieldsOf(hamlet)).find((f) => f.id === id),
      { required: true },
    );
    const data = JSON.stringify([{ id, value: 'Blue' }]);
    await bodyOf(hamlet.patch('/users/me/profile_data', { data }));
    await bodyOf(hamlet.delete('/users/me/profile_data', { data: JSON.stringify([id]) }));
    const user = (await ok(iago, 'GET', `/users/${IDS.hamlet}`, { include_custom_profile_fields: true })) as {
      user: { profile_data: Body };
    };
    t.false(String(id) in user.user.profile_data);
    await bodyOf(iago.patch(`/realm/profile_fields/${id}`, { required: false }));
    t.like(
      (await fieldsOf(hamlet)).find((f) => f.id === id),
      { required: false },
    );
    await bodyOf(iago.delete(`/realm/profile_fields/${id}`));
  },
);
