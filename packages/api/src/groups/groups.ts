import { Type, type TOptional, type TSchema } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  ChatError,
  realmAddress,
  USER_GROUP_PERMISSIONS,
  type GroupSetting,
  type GroupSettingChange,
  type UserGroupPermission,
} from '@chat/protocol';
import { groupReadRoutes, requireMember } from './reads.js';

const GroupSetting = Type.Union([
  Type.Integer(),
  Type.Object({ direct_members: Type.Array(Type.Integer()), direct_subgroups: Type.Array(Type.Integer()) }),
]);
export const GroupSettingUpdate = Type.Object({ new: GroupSetting, old: Type.Optional(GroupSetting) });
const Ids = Type.Array(Type.Integer());

/** One optional parameter per group permission, in the form `schema` gives. */
function permissionParams<S extends TSchema>(schema: S): Record<UserGroupPermission, TOptional<S>> {
  const entries = USER_GROUP_PERMISSIONS.map((name) => [name, Type.Optional(schema) as TOptional<S>] as const);
  return Object.fromEntries(entries) as Record<UserGroupPermission, TOptional<S>>;
}

const pick = <T>(params: Record<string, unknown>): Partial<Record<UserGroupPermission, T>> =>
  Object.fromEntries(USER_GROUP_PERMISSIONS.filter((n) => params[n] !== undefined).map((n) => [n, params[n] as T]));

const nothingToDo = (names: string) => new ChatError('BAD_REQUEST', `Nothing to do. Specify at least one of ${names}.`);

export function groupRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/user_groups',
      auth: 'required',
      params: Type.Object({ include_deactivated_groups: Type.Optional(Type.Boolean({ default: false })) }),
      summary: 'Get user groups',
      description: 'Every user group of the organization, system groups included.',
      tags: ['users'],
      response: Type.Object({ user_groups: Type.Array(Type.Unknown()) }),
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const user_groups = await actors.ask(realmAddress(principal.realm), {
          type: 'realm.userGroups',
          include_deactivated: params.include_deactivated_groups ?? false,
        });
        return { user_groups };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user_groups/create',
      auth: 'required',
      params: Type.Object({
        name: Type.String(),
        description: Type.String(),
        members: Ids,
        subgroups: Type.Optional(Ids),
        ...permissionParams(GroupSetting),
      }),
      summary: 'Create a user group',
      description: 'Creates a user group; its creator manages it unless the settings say otherwise.',
      tags: ['users'],
      response: Type.Object({ group_id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        requireMember(principal);
        return actors.ask(realmAddress(principal.realm), {
          type: 'realm.createUserGroup',
          actor_id: principal.user_id,
          name: params.name,
          description: params.description,
          members: params.members,
          subgroups: params.subgroups ?? [],
          settings: pick<GroupSetting>(params),
        });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/user_groups/{user_group_id}',
      auth: 'required',
      params: Type.Object({
        user_group_id: Type.Integer(),
        name: Type.Optional(Type.String()),
        description: Type.Optional(Type.String()),
        deactivated: Type.Optional(Type.Boolean()),
        ...permissionParams(GroupSettingUpdate),
      }),
      summary: 'Update a user group',
      description: 'Renames a group, changes its description or permissions, or reactivates it.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        requireMember(principal);
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.updateUserGroup',
          actor_id: principal.user_id,
          group_id: params.user_group_id,
          ...(params.name !== undefined ? { name: params.name } : {}),
          ...(params.description !== undefined ? { description: params.description } : {}),
          ...(params.deactivated !== undefined ? { deactivated: params.deactivated } : {}),
          settings: pick<GroupSettingChange>(params),
        });
        return {};
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user_groups/{user_group_id}/members',
      auth: 'required',
      params: Type.Object({
        user_group_id: Type.Integer(),
        add: Type.Optional(Ids),
        delete: Type.Optional(Ids),
        add_subgroups: Type.Optional(Ids),
        delete_subgroups: Type.Optional(Ids),
      }),
      summary: 'Update user group members',
      description: 'Adds and removes members and subgroups; each change needs its own permission.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const { add = [], delete: remove = [], add_subgroups = [], delete_subgroups = [] } = params;
        if (add.length + remove.length + add_subgroups.length + delete_subgroups.length === 0) {
          throw nothingToDo('"add", "delete", "add_subgroups" or "delete_subgroups"');
        }
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.changeUserGroupMembers',
          actor_id: principal.user_id,
          group_id: params.user_group_id,
          add,
          delete: remove,
          add_subgroups,
          delete_subgroups,
        });
        return {};
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user_groups/{user_group_id}/subgroups',
      auth: 'required',
      params: Type.Object({ user_group_id: Type.Integer(), add: Type.Optional(Ids), delete: Type.Optional(Ids) }),
      summary: 'Update subgroups of a user group',
      description: 'Adds and removes subgroups; a group cannot end up inside itself.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        requireMember(principal);
        const { add = [], delete: remove = [] } = params;
        if (add.length + remove.length === 0) throw nothingToDo('"add" or "delete"');
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.changeUserGroupMembers',
          actor_id: principal.user_id,
          group_id: params.user_group_id,
          add: [],
          delete: [],
          add_subgroups: add,
          delete_subgroups: remove,
        });
        return {};
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user_groups/{user_group_id}/deactivate',
      auth: 'required',
      params: Type.Object({ user_group_id: Type.Integer() }),
      summary: 'Deactivate a user group',
      description: 'Deactivates a group that no setting or other group uses any more.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.deactivateUserGroup',
          actor_id: principal.user_id,
          group_id: params.user_group_id,
        });
        return {};
      },
    }),
    ...groupReadRoutes(),
  ];
}
