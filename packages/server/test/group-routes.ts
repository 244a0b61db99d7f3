import type { ChatClient, Params } from '@chat/testkit';
import { missing, onMade, type LadderCase, type LadderSection } from './ladder.js';

/**
 * The route ladder's cases (routes.test.ts) for user groups and channel
 * folders. Each case that changes a group gets a group of its own, made by
 * `prepare`, since the ladder's cases run concurrently.
 */

const made = { patch: 0, members: 0, reads: 0, parent: 0, doomed: 0, folder: 0 };
const addSubgroup: Params = {};

async function prepare(client: ChatClient): Promise<void> {
  const create = async (name: string) => {
    const reply = await client.post<{ group_id: number }>('/user_groups/create', {
      name,
      description: '',
      members: [],
    });
    return reply.body.group_id;
  };
  made.patch = await create('ladder patch');
  made.members = await create('ladder members');
  made.reads = await create('ladder reads');
  made.parent = await create('ladder parent');
  made.doomed = await create('ladder doomed');
  addSubgroup.add = JSON.stringify([await create('ladder child')]);
  const folder = await client.post<{ channel_folder_id: number }>('/channel_folders/create', { name: 'ladder shelf' });
  made.folder = folder.body.channel_folder_id;
}

/** A case on one prepared group (or folder): its path is known only once `prepare` ran. */
function onGroup(
  method: LadderCase['method'],
  template: string,
  which: keyof typeof made,
  valid: Params,
  bad: LadderCase['bad'],
): LadderCase {
  const at = () => template.replace(/\{(user_group_id|channel_folder_id)\}/, String(made[which]));
  return onMade(method, template, at, valid, bad);
}

function cases(): LadderCase[] {
  const badGroup = (suffix = '') => ({ path: `/user_groups/x${suffix}`, params: {}, name: 'user_group_id' });
  const ids = (name: string) => ({ params: { [name]: 'nope' }, name });
  return [
    {
      method: 'GET',
      path: '/user_groups',
      auth: true,
      valid: {},
      bad: { params: { include_deactivated_groups: 'maybe' }, name: 'include_deactivated_groups' },
    },
    {
      method: 'POST',
      path: '/user_groups/create',
      auth: true,
      valid: { name: 'ladder created', description: '', members: '[]' },
      bad: { params: { name: 'x', description: '', members: 'nope' }, name: 'members' },
    },
    onGroup('PATCH', '/user_groups/{user_group_id}', 'patch', { description: 'climbed' }, badGroup()),
    onGroup('POST', '/user_groups/{user_group_id}/members', 'members', { add: '[8]' }, ids('add')),
    onGroup('GET', '/user_groups/{user_group_id}/members', 'reads', {}, badGroup('/members')),
    {
      ...onGroup(
        'GET',
        '/user_groups/{user_group_id}/members/{user_id}',
        'reads',
        {},
        {
          path: '/user_groups/9/members/x',
          params: {},
          name: 'user_id',
        },
      ),
      at: () => `/user_groups/${made.reads}/members/11`,
    },
    onGroup('POST', '/user_groups/{user_group_id}/subgroups', 'parent', addSubgroup, ids('add')),
    onGroup('GET', '/user_groups/{user_group_id}/subgroups', 'reads', {}, badGroup('/subgroups')),
    onGroup('POST', '/user_groups/{user_group_id}/deactivate', 'doomed', {}, badGroup('/deactivate')),
    {
      method: 'POST',
      path: '/channel_folders/create',
      auth: true,
      valid: { name: 'ladder folder' },
      bad: missing('name'),
    },
    {
      method: 'GET',
      path: '/channel_folders',
      auth: true,
      valid: {},
      bad: { params: { include_archived: 'maybe' }, name: 'include_archived' },
    },
    {
      // Ids of no folder are passed over, so this names the folder the create case makes, whenever it runs.
      method: 'PATCH',
      path: '/channel_folders',
      auth: true,
      valid: { order: JSON.stringify(Array.from({ length: 20 }, (_, i) => i + 1)) },
      bad: { params: { order: 'first' }, name: 'order' },
    },
    onGroup(
      'PATCH',
      '/channel_folders/{channel_folder_id}',
      'folder',
      { description: 'shelved' },
      {
        path: '/channel_folders/x',
        params: {},
        name: 'channel_folder_id',
      },
    ),
  ];
}

export const groupLadder: LadderSection = { prepare, cases: cases() };
