import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import { realmAddress } from '@chat/protocol';
import { renderDescription } from '../markdown.js';

/** Channel folders: anyone lists them, administrators create, edit, archive and order them (the realm checks). */
export function folderRoutes(): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/channel_folders/create',
      auth: 'required',
      params: Type.Object({ name: Type.String(), description: Type.Optional(Type.String({ default: '' })) }),
      summary: 'Create a channel folder',
      description: 'Creates a folder for organizing channels; it goes last in the order.',
      tags: ['channels'],
      response: Type.Object({ channel_folder_id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        const description = params.description ?? '';
        return actors.ask(realmAddress(principal.realm), {
          type: 'realm.createChannelFolder',
          actor_id: principal.user_id,
          name: params.name,
          description,
          rendered_description: renderDescription(description),
        });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/channel_folders',
      auth: 'required',
      params: Type.Object({ include_archived: Type.Optional(Type.Boolean({ default: false })) }),
      summary: 'Get channel folders',
      description: 'The folders of the organization, by their order.',
      tags: ['channels'],
      response: Type.Object({ channel_folders: Type.Array(Type.Unknown()) }),
      async handler({ params, principal, actors }) {
        const channel_folders = await actors.ask(realmAddress(principal.realm), {
          type: 'realm.channelFolders',
          include_archived: params.include_archived ?? false,
        });
        return { channel_folders };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/channel_folders',
      auth: 'required',
      params: Type.Object({ order: Type.Array(Type.Integer()) }),
      summary: 'Reorder channel folders',
      description: 'Sets the order of every folder, archived ones included.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.reorderChannelFolders',
          actor_id: principal.user_id,
          order: params.order,
        });
        return {};
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/channel_folders/{channel_folder_id}',
      auth: 'required',
      params: Type.Object({
        channel_folder_id: Type.Integer(),
        name: Type.Optional(Type.String()),
        description: Type.Optional(Type.String()),
        is_archived: Type.Optional(Type.Boolean()),
      }),
      summary: 'Update a channel folder',
      description: 'Renames a folder, changes its description, or archives or unarchives it.',
      tags: ['channels'],
      async handler({ params, principal, actors }) {
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.updateChannelFolder',
          actor_id: principal.user_id,
          folder_id: params.channel_folder_id,
          ...(params.name !== undefined ? { name: params.name } : {}),
          ...(params.description !== undefined
            ? { description: params.description, rendered_description: renderDescription(params.description) }
            : {}),
          ...(params.is_archived !== undefined ? { is_archived: params.is_archived } : {}),
        });
        return {};
      },
    }),
  ];
}
