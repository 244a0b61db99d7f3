import { Type } from '@sinclair/typebox';
import { defineRoute, type Route } from '@chat/edge';
import {
  ChatError,
  isAdministrator,
  PROFILE_FIELD_TYPES as T,
  realmAddress,
  type Principal,
  type ProfileFieldSpec,
} from '@chat/protocol';
import type { ActorClient } from '@chat/runtime';
import { EXTERNAL_ACCOUNTS } from '../events/register/realm-section.js';
import { profileValue } from './profile-values.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
const NAME_LIMIT = 40;
const HINT_LIMIT = 80;

function requireAdmin(principal: Principal): void {
  if (!isAdministrator(principal))
    throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
}

const Field = {
  name: Type.Optional(Type.String()),
  hint: Type.Optional(Type.String()),
  field_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  display_in_profile_summary: Type.Optional(Type.Boolean()),
  required: Type.Optional(Type.Boolean()),
  editable_by_user: Type.Optional(Type.Boolean()),
};
type FieldParams = { [K in keyof typeof Field]?: unknown } & {
  name?: string | undefined;
  hint?: string | undefined;
  field_data?: Record<string, unknown> | undefined;
  display_in_profile_summary?: boolean | undefined;
  required?: boolean | undefined;
  editable_by_user?: boolean | undefined;
};

function checkSelect(data: Record<string, unknown>): void {
  const choices = Object.values(data);
  if (choices.length === 0) throw bad('Field must have at least one choice.');
  const texts = choices.map((c) => {
    const choice = c as { text?: unknown; order?: unknown };
    if (typeof choice?.text !== 'string' || choice.text.trim() === '') throw bad('Label cannot be blank.');
    return choice.text;
  });
  if (new Set(texts).size !== texts.length) throw bad('Field must not have duplicate choices.');
}

/** The original's checks of one field, alone; the realm then checks it among the others. */
function fieldSpec(type: number, params: FieldParams): ProfileFieldSpec {
  if (!Object.values(T).includes(type as never)) throw bad('Invalid field type.');
  let name = (params.name ?? '').trim();
  let hint = params.hint ?? '';
  const data = params.field_data ?? {};
  if (type === T.SELECT) checkSelect(data);
  if (type === T.EXTERNAL_ACCOUNT) {
    const subtype = data.subtype;
    if (typeof subtype !== 'string' || (subtype !== 'custom' && !(subtype in EXTERNAL_ACCOUNTS)))
      throw bad('Invalid external account type');
    if (subtype === 'custom') {
      const pattern = data.url_pattern;
      if (typeof pattern !== 'string' || !pattern) throw bad('Custom external account must define URL pattern');
      if (pattern.split('%(username)s').length !== 2) throw bad('Malformed URL pattern.');
    } else {
      const preset = EXTERNAL_ACCOUNTS[subtype]!;
      name = preset.name;
      hint = preset.hint;
    }
  }
  if (!name) throw bad('Label cannot be blank.');
  if (name.length > NAME_LIMIT) throw bad(`name is too long (limit: ${NAME_LIMIT} characters)`);
  if (hint.length > HINT_LIMIT) throw bad(`hint is too long (limit: ${HINT_LIMIT} characters)`);
  if (params.display_in_profile_summary && (type === T.LONG_TEXT || type === T.USER))
    throw bad('Field type not supported for display in profile summary.');
  return {
    type,
    name,
    hint,
    field_data: type === T.SELECT || type === T.EXTERNAL_ACCOUNT ? JSON.stringify(data) : '',
    display_in_profile_summary: params.display_in_profile_summary ?? false,
    required: params.required ?? false,
    editable_by_user: params.editable_by_user ?? true,
  };
}

const ProfileData = Type.Array(
  Type.Object({ id: Type.Integer(), value: Type.Union([Type.String(), Type.Array(Type.Integer())]) }),
);

/** Checks and renders values of `user_id`'s fields, then has the realm set them ("" clears, as in the original). */
export async function setProfileData(
  actors: ActorClient,
  principal: Principal,
  userId: number,
  data: { id: number; value: unknown }[],
): Promise<void> {
  const realm = realmAddress(principal.realm);
  const [fields, users] = await Promise.all([
    actors.ask(realm, { type: 'realm.profileFields' }),
    data.length ? actors.ask(realm, { type: 'realm.listUsers' }) : Promise.resolve([]),
  ]);
  const active = new Set(users.filter((u) => u.is_active).map((u) => u.user_id));
  const values = data.map(({ id, value }) => {
    const field = fields.find((f) => f.id === id);
    if (!field) throw bad(`Field id ${id} not found.`);
    if (value === '' || (Array.isArray(value) && value.length === 0)) return { id, value: null };
    return { id, value: profileValue(field, value, (u) => active.has(u)) };
  });
  await actors.ask(realm, { type: 'realm.setProfileData', actor_id: principal.user_id, user_id: userId, data: values });
}

/** Custom profile fields: everyone reads them; administrators define them; users fill in their own. */
export function profileFieldRoutes(): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/realm/profile_fields',
      auth: 'required',
      params: Type.Object({}),
      summary: 'Get all custom profile fields',
      description: 'The organization’s custom profile fields, in order.',
      tags: ['server_and_organizations'],
      async handler({ principal, actors }) {
        return { custom_fields: await actors.ask(realmAddress(principal.realm), { type: 'realm.profileFields' }) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/realm/profile_fields',
      auth: 'required',
      params: Type.Object({ field_type: Type.Integer(), ...Field }),
      summary: 'Create a custom profile field',
      description: 'Adds a custom profile field after the existing ones.',
      tags: ['server_and_organizations'],
      response: Type.Object({ id: Type.Integer() }),
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        const field = fieldSpec(params.field_type, params);
        return actors.ask(realmAddress(principal.realm), {
          type: 'realm.addProfileField',
          actor_id: principal.user_id,
          field,
        });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/realm/profile_fields',
      auth: 'required',
      params: Type.Object({ order: Type.Array(Type.Integer()) }),
      summary: 'Reorder custom profile fields',
      description: 'Sets the order of all the organization’s custom profile fields.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.reorderProfileFields',
          actor_id: principal.user_id,
          ids: params.order,
        });
        return {};
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/realm/profile_fields/{field_id}',
      auth: 'required',
      params: Type.Object({ field_id: Type.Integer(), ...Field }),
      summary: 'Update a custom profile field',
      description: 'Changes a custom profile field; what is not given stays.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        const realm = realmAddress(principal.realm);
        const fields = await actors.ask(realm, { type: 'realm.profileFields' });
        const now = fields.find((f) => f.id === params.field_id);
        if (!now) throw bad(`Field id ${params.field_id} not found.`);
        const field = fieldSpec(now.type, {
          name: params.name ?? now.name,
          hint: params.hint ?? now.hint,
          field_data:
            params.field_data ?? (now.field_data ? (JSON.parse(now.field_data) as Record<string, unknown>) : {}),
          display_in_profile_summary: params.display_in_profile_summary ?? now.display_in_profile_summary ?? false,
          required: params.required ?? now.required,
          editable_by_user: params.editable_by_user ?? now.editable_by_user,
        });
        await actors.ask(realm, { type: 'realm.updateProfileField', actor_id: principal.user_id, id: now.id, field });
        return {};
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/realm/profile_fields/{field_id}',
      auth: 'required',
      params: Type.Object({ field_id: Type.Integer() }),
      summary: 'Delete a custom profile field',
      description: 'Removes a custom profile field and every user’s value of it.',
      tags: ['server_and_organizations'],
      async handler({ params, principal, actors }) {
        requireAdmin(principal);
        await actors.ask(realmAddress(principal.realm), {
          type: 'realm.removeProfileField',
          actor_id: principal.user_id,
          id: params.field_id,
        });
        return {};
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/users/me/profile_data',
      auth: 'required',
      params: Type.Object({ data: ProfileData }),
      summary: 'Update your custom profile data',
      description: 'Sets the values of the caller’s own custom profile fields; an empty value clears one.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        await setProfileData(actors, principal, principal.user_id, params.data);
        return {};
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/users/me/profile_data',
      auth: 'required',
      params: Type.Object({ data: Type.Array(Type.Integer()) }),
      summary: 'Clear your custom profile data',
      description: 'Clears the caller’s values of the fields named.',
      tags: ['users'],
      async handler({ params, principal, actors }) {
        await setProfileData(
          actors,
          principal,
          principal.user_id,
          params.data.map((id) => ({ id, value: '' })),
        );
        return {};
      },
    }),
  ];
}
