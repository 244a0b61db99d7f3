import {
  ChatError,
  customProfileFields,
  isAdministrator,
  realmUserUpdated,
  type ProfileField,
  type ProfileFieldProtocol,
  type ProfileFieldSpec,
  type ProfileValue,
} from '@chat/protocol';
import { toEveryone } from './broadcast.js';
import type { RealmHandlers, RealmState } from './state.js';

/** The realm's fields after a change (in order), the next id, and a removed field whose values go too. */
export interface ProfileFieldsSetEvent {
  type: 'profileFieldsSet';
  fields: ProfileField[];
  nextId: number;
  removed?: number;
}

/** Values of one user's fields set (or, with null, cleared). */
export interface ProfileDataSetEvent {
  type: 'profileDataSet';
  userId: number;
  data: { id: number; value: ProfileValue | null }[];
}

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
const notFound = (id: number) => bad(`Field id ${id} not found.`);
/** The original shows at most this many fields in the profile summary. */
const SUMMARY_LIMIT = 2;

function requireAdmin(state: RealmState, actorId: number): void {
  const actor = state.accounts[actorId];
  if (!actor?.isActive || !isAdministrator(actor)) {
    throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
  }
}

const fieldsOf = (state: RealmState) => state.profileFields ?? [];

function find(state: RealmState, id: number): ProfileField {
  const field = fieldsOf(state).find((f) => f.id === id);
  if (!field) throw notFound(id);
  return field;
}

/** The checks that need the other fields: a unique label and the summary's limit. */
function checkAmongOthers(state: RealmState, spec: ProfileFieldSpec, except?: number): void {
  const others = fieldsOf(state).filter((f) => f.id !== except);
  if (others.some((f) => f.name === spec.name)) throw bad('A field with that label already exists.');
  if (spec.display_in_profile_summary && others.filter((f) => f.display_in_profile_summary).length >= SUMMARY_LIMIT) {
    throw bad(`Only ${SUMMARY_LIMIT} custom profile fields can be displayed in the profile summary.`);
  }
}

function withSpec(field: Pick<ProfileField, 'id' | 'order'>, spec: ProfileFieldSpec): ProfileField {
  const { display_in_profile_summary, ...rest } = spec;
  return { ...field, ...rest, ...(display_in_profile_summary ? { display_in_profile_summary: true } : {}) };
}

/** Stores the new list and tells everyone the whole of it, as the original does. */
function set(state: RealmState, fields: ProfileField[], extra: Partial<ProfileFieldsSetEvent> = {}) {
  const event: ProfileFieldsSetEvent = {
    type: 'profileFieldsSet',
    fields,
    nextId: state.nextProfileFieldId ?? 1,
    ...extra,
  };
  return { events: [event], fanouts: [toEveryone(state, [customProfileFields(fields)])] };
}

export const profileFieldHandlers: RealmHandlers<ProfileFieldProtocol> = {
  'realm.profileFields': ({ state }) => ({ reply: fieldsOf(state) }),
  'realm.addProfileField': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    checkAmongOthers(state, cmd.field);
    const id = state.nextProfileFieldId ?? 1;
    const order = Math.max(0, ...fieldsOf(state).map((f) => f.order)) + 1;
    return {
      ...set(state, [...fieldsOf(state), withSpec({ id, order }, cmd.field)], { nextId: id + 1 }),
      reply: { id },
    };
  },
  'realm.updateProfileField': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    const field = find(state, cmd.id);
    checkAmongOthers(state, cmd.field, cmd.id);
    const changed = withSpec(field, { ...cmd.field, type: field.type });
    return {
      ...set(
        state,
        fieldsOf(state).map((f) => (f.id === cmd.id ? changed : f)),
      ),
      reply: null,
    };
  },
  'realm.removeProfileField': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    find(state, cmd.id);
    return {
      ...set(
        state,
        fieldsOf(state).filter((f) => f.id !== cmd.id),
        { removed: cmd.id },
      ),
      reply: null,
    };
  },
  'realm.reorderProfileFields': ({ state }, cmd) => {
    requireAdmin(state, cmd.actor_id);
    const fields = fieldsOf(state);
    const wanted = new Set(cmd.ids);
    if (wanted.size !== cmd.ids.length || fields.length !== wanted.size || fields.some((f) => !wanted.has(f.id))) {
      throw bad('Invalid order mapping.');
    }
    const byId = new Map(fields.map((f) => [f.id, f]));
    return {
      ...set(
        state,
        cmd.ids.map((id, i) => ({ ...byId.get(id)!, order: i + 1 })),
      ),
      reply: null,
    };
  },
  'realm.setProfileData': ({ state }, cmd) => {
    const actor = state.accounts[cmd.actor_id];
    const user = state.accounts[cmd.user_id];
    if (!actor?.isActive || !user) throw bad('No such user');
    const admin = isAdministrator(actor);
    if (cmd.actor_id !== cmd.user_id && !admin) {
      throw new ChatError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    }
    for (const item of cmd.data) {
      const field = find(state, item.id);
      if (!field.editable_by_user && !admin) {
        throw bad('You are not allowed to change this field. Contact an administrator to update it.');
      }
    }
    const event: ProfileDataSetEvent = { type: 'profileDataSet', userId: cmd.user_id, data: cmd.data };
    const updates = cmd.data.map(({ id, value }) =>
      realmUserUpdated({
        user_id: cmd.user_id,
        custom_profile_field: {
          id,
          value: value?.value ?? null,
          ...(value?.rendered_value !== undefined ? { rendered_value: value.rendered_value } : {}),
        },
      }),
    );
    return { events: [event], fanouts: [toEveryone(state, updates)], reply: null };
  },
};

export function applyProfileFieldsSet(state: RealmState, event: ProfileFieldsSetEvent): void {
  state.profileFields = [...event.fields].sort((a, b) => a.order - b.order);
  state.nextProfileFieldId = event.nextId;
  if (event.removed === undefined) return;
  for (const account of Object.values(state.accounts)) delete account.profileData?.[String(event.removed)];
}

export function applyProfileDataSet(state: RealmState, event: ProfileDataSetEvent): void {
  const account = state.accounts[event.userId];
  if (!account) return;
  const data = (account.profileData ??= {});
  for (const { id, value } of event.data) {
    if (value) data[String(id)] = value;
    else delete data[String(id)];
  }
}
