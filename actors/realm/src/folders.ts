import {
  ChatError,
  mayManageChannelFolders,
  type ChannelFolder,
  type FolderCommand,
  folderAdded,
  folderUpdated,
  foldersReordered,
  type ChannelFolderEvent,
} from '@chat/protocol';
import { toEveryone } from './broadcast.js';
import type { RealmState } from './state.js';
import type { RealmHandlers } from './state.js';
import type { FolderProtocol } from '@chat/protocol';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
const MAX_NAME_LENGTH = 60;
const MAX_DESCRIPTION_LENGTH = 1024;

const foldersOf = (state: RealmState): ChannelFolder[] =>
  Object.values(state.channelFolders ?? {}).sort((a, b) => a.order - b.order || a.id - b.id);

function find(state: RealmState, id: number): ChannelFolder {
  const folder = state.channelFolders?.[id];
  if (!folder) throw bad('Invalid channel folder ID');
  return folder;
}

/** Folders are organization structure: only administrators change them, as in the original. */
function requireAdmin(state: RealmState, actorId: number): void {
  const actor = state.accounts[actorId];
  if (!actor?.isActive || !mayManageChannelFolders(actor)) {
    throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  }
}

function checkName(state: RealmState, name: string): string {
  if (name.trim() === '') throw bad("Channel folder name can't be empty.");
  if ([...name].length > MAX_NAME_LENGTH) throw bad(`name is too long (limit: ${MAX_NAME_LENGTH} characters)`);
  const control = [...name].findIndex((c) => /[\p{Cc}\p{Cs}]/u.test(c));
  if (control >= 0) throw bad(`Invalid character in channel folder name, at position ${control + 1}.`);
  if (foldersOf(state).some((f) => f.name.toLowerCase() === name.toLowerCase())) {
    throw bad(`Channel folder '${name}' already exists`);
  }
  return name;
}

function checkDescription(description: string): string {
  if ([...description].length > MAX_DESCRIPTION_LENGTH) {
    throw bad(`description is too long (limit: ${MAX_DESCRIPTION_LENGTH} characters)`);
  }
  return description;
}

function save<R = null>(state: RealmState, folders: ChannelFolder[], event: ChannelFolderEvent, reply: R = null as R) {
  return {
    events: folders.map((folder) => ({ type: 'channelFolderSaved' as const, folder })),
    fanouts: [toEveryone(state, [event])],
    reply,
  };
}

function update(state: RealmState, cmd: Extract<FolderCommand, { type: 'realm.updateChannelFolder' }>) {
  requireAdmin(state, cmd.actor_id);
  const folder = { ...find(state, cmd.folder_id) };
  const data: Partial<ChannelFolder> = {};
  if (cmd.name !== undefined && cmd.name !== folder.name) data.name = folder.name = checkName(state, cmd.name);
  if (cmd.description !== undefined && cmd.description !== folder.description) {
    data.description = folder.description = checkDescription(cmd.description);
    data.rendered_description = folder.rendered_description = cmd.rendered_description ?? '';
  }
  if (cmd.is_archived !== undefined && cmd.is_archived !== folder.is_archived) {
    const inUse = Object.values(state.channels).some((c) => c.folder_id === folder.id && !c.is_archived);
    if (cmd.is_archived && inUse) throw bad('You need to remove all the channels from this folder to archive it.');
    data.is_archived = folder.is_archived = cmd.is_archived;
  }
  if (Object.keys(data).length === 0) return { reply: null };
  return save(state, [folder], folderUpdated(folder.id, data));
}

export const folderHandlers: RealmHandlers<FolderProtocol> = {
  'realm.channelFolders': ({ state }, command) => {
    return { reply: foldersOf(state).filter((f) => command.include_archived || !f.is_archived) };
  },
  'realm.findChannelFolder': ({ state }, command) => {
    return { reply: find(state, command.folder_id) };
  },
  'realm.createChannelFolder': (ctx, command) => {
    const state = ctx.state;
    requireAdmin(state, command.actor_id);
    const existing = foldersOf(state);
    const folder: ChannelFolder = {
      id: Math.max(0, ...existing.map((f) => f.id)) + 1,
      name: checkName(state, command.name),
      description: checkDescription(command.description),
      rendered_description: command.rendered_description,
      // New folders go last.
      order: existing.length === 0 ? 0 : Math.max(...existing.map((f) => f.order)) + 1,
      date_created: Math.floor(ctx.now / 1000),
      creator_id: command.actor_id,
      is_archived: false,
    };
    return save(state, [folder], folderAdded(folder), { channel_folder_id: folder.id });
  },
  'realm.updateChannelFolder': ({ state }, command) => {
    return update(state, command);
  },
  'realm.reorderChannelFolders': ({ state }, command) => {
    requireAdmin(state, command.actor_id);
    const folders = foldersOf(state);
    // As the original: every folder must be named once; ids of no folder are passed over.
    const order = command.order.filter((id) => folders.some((f) => f.id === id));
    const complete = new Set(order).size === order.length && order.length === folders.length;
    if (!complete) throw bad('Invalid order mapping.');
    const reordered = folders.map((f) => ({ ...f, order: order.indexOf(f.id) }));
    return save(state, reordered, foldersReordered(order));
  },
};
