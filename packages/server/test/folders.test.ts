import type { ChatClient } from '@chat/testkit';
import { withServer } from './context.js';
import { next, register, type Body, type Event } from './queues.js';
import { fails, ok } from './replies.js';

/**
 * Channel folders through the API: creation and listing, updates and
 * archiving, ordering (which must name every folder, so these tests run
 * one after another), a channel's folder, the events and the snapshot.
 */
const test = withServer(['iago', 'hamlet'], { heartbeatMs: 400 });

type Folder = Body & { id: number; name: string; order: number; is_archived: boolean };

async function folders(client: ChatClient, params: Body = {}): Promise<Folder[]> {
  const body = await ok(client, 'GET', '/channel_folders', params);
  return body.channel_folders as Folder[];
}

async function create(client: ChatClient, name: string, description = ''): Promise<number> {
  const body = await ok(client, 'POST', '/channel_folders/create', { name, description });
  return body.channel_folder_id as number;
}

const folderEvent = (op: string, test: (e: Event) => boolean) => (e: Event) =>
  e.type === 'channel_folder' && e.op === op && test(e);

test.serial('administrators create folders; everyone lists them, with rendered descriptions', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['channel_folder'] });
  const id = await create(iago, 'Frontend', 'Channels for **frontend** work');
  const folder = (await folders(hamlet)).find((f) => f.id === id)!;
  t.like(folder, {
    name: 'Frontend',
    description: 'Channels for **frontend** work',
    is_archived: false,
    creator_id: 11,
  });
  t.regex(folder.rendered_description as string, /<strong>frontend<\/strong>/);
  const event = await next(
    queue,
    folderEvent('add', (e) => (e.channel_folder as Body).id === id),
  );
  t.deepEqual(event.channel_folder, folder);

  const second = await create(iago, 'Backend');
  const listed = await folders(hamlet);
  t.true(listed.findIndex((f) => f.id === second) > listed.findIndex((f) => f.id === id), 'new folders go last');
  const denied = await fails(t, hamlet.post('/channel_folders/create', { name: 'Mine' }), 'UNAUTHORIZED_PRINCIPAL');
  t.is(denied.msg, 'Must be an organization administrator');
  await fails(
    t,
    iago.post('/channel_folders/create', { name: '  ' }),
    'BAD_REQUEST',
    "Channel folder name can't be empty.",
  );
  await fails(
    t,
    iago.post('/channel_folders/create', { name: 'frontend' }),
    'BAD_REQUEST',
    "Channel folder 'frontend' already exists",
  );
});

test.serial('PATCH renames, describes and archives a folder, with update events', async (t) => {
  const { iago, hamlet } = t.context;
  const id = await create(iago, 'Patchable');
  const queue = await register(hamlet, { event_types: ['channel_folder'] });
  const path = `/channel_folders/${id}`;
  await ok(iago, 'PATCH', path, { name: 'Patched', description: 'A *new* text' });
  const updated = await next(
    queue,
    folderEvent('update', (e) => e.channel_folder_id === id),
  );
  t.like(updated.data, { name: 'Patched', description: 'A *new* text' });
  t.regex((updated.data as Body).rendered_description as string, /<em>new<\/em>/);
  t.like(
    (await folders(hamlet)).find((f) => f.id === id),
    { name: 'Patched', description: 'A *new* text' },
  );

  await ok(iago, 'PATCH', path, { is_archived: true });
  const archived = await next(
    queue,
    folderEvent('update', (e) => (e.data as Body).is_archived === true),
  );
  t.is(archived.channel_folder_id, id);
  t.false((await folders(hamlet)).some((f) => f.id === id));
  t.true((await folders(hamlet, { include_archived: true })).find((f) => f.id === id)!.is_archived);

  await fails(t, hamlet.patch(path, { name: 'Hamlet was here' }), 'UNAUTHORIZED_PRINCIPAL');
  await fails(t, iago.patch('/channel_folders/9999', { name: 'x' }), 'BAD_REQUEST', 'Invalid channel folder ID');
});

test.serial('reordering names every folder, archived ones too', async (t) => {
  const { iago, hamlet } = t.context;
  await create(iago, 'Reorder me');
  const queue = await register(hamlet, { event_types: ['channel_folder'] });
  const all = await folders(iago, { include_archived: true });
  const reversed = all.map((f) => f.id).reverse();
  await ok(iago, 'PATCH', '/channel_folders', { order: JSON.stringify(reversed) });
  t.deepEqual(
    (
      await next(
        queue,
        folderEvent('reorder', () => true),
      )
    ).order,
    reversed,
  );
  const after = await folders(iago, { include_archived: true });
  t.deepEqual(
    after.map((f) => f.id),
    reversed,
  );
  t.deepEqual(
    after.map((f) => f.order),
    reversed.map((_, i) => i),
  );

  const missing = JSON.stringify(reversed.slice(1));
  await fails(t, iago.patch('/channel_folders', { order: missing }), 'BAD_REQUEST', 'Invalid order mapping.');
  await fails(t, hamlet.patch('/channel_folders', { order: JSON.stringify(reversed) }), 'UNAUTHORIZED_PRINCIPAL');
});

test.serial('a channel goes into an existing folder only; a folder in use cannot be archived', async (t) => {
  const { iago } = t.context;
  const id = await create(iago, 'Holds channels');
  const streamId = (await ok(iago, 'GET', '/get_stream_id', { stream: 'Verona' })).stream_id;
  const path = `/streams/${streamId}`;
  await fails(t, iago.patch(path, { folder_id: 9999 }), 'BAD_REQUEST', 'Invalid channel folder ID');
  await ok(iago, 'PATCH', path, { folder_id: id });
  t.is(((await ok(iago, 'GET', path)).stream as Body).folder_id, id);
  const archive = iago.patch(`/channel_folders/${id}`, { is_archived: true });
  await fails(t, archive, 'BAD_REQUEST', 'You need to remove all the channels from this folder to archive it.');
  await ok(iago, 'PATCH', path, { folder_id: JSON.stringify(null) });
  await ok(iago, 'PATCH', `/channel_folders/${id}`, { is_archived: true });
});

test.serial('the register snapshot has every folder, archived ones included', async (t) => {
  const { iago, hamlet } = t.context;
  const queue = await register(hamlet, { event_types: ['channel_folder'], fetch_event_types: ['channel_folders'] });
  t.deepEqual(queue.snapshot.channel_folders, await folders(iago, { include_archived: true }));
});
