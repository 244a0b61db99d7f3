import type { ProfileField } from '../profile-fields.js';
import type { Linkifier } from '../linkifiers.js';
import type { RealmExportJson } from '../exports.js';

/** `realm` client events (an organization setting changed), in the reference's shapes (`GET /events`). */

export type RealmEventOfSettings =
  | { type: 'realm'; op: 'update'; property: string; value: unknown }
  | { type: 'realm'; op: 'update_dict'; property: 'default'; data: Record<string, unknown> };
export const realmUpdated = (property: string, value: unknown): RealmEventOfSettings => ({
  type: 'realm',
  op: 'update',
  property,
  value,
});
export const realmUpdatedDict = (data: Record<string, unknown>): RealmEventOfSettings => ({
  type: 'realm',
  op: 'update_dict',
  property: 'default',
  data,
});

/** `realm_linkifiers`: the organization's whole list of linkifiers after a change, in order. */
export type RealmLinkifiersEvent = {
  type: 'realm_linkifiers';
  realm_linkifiers: Linkifier[];
};
export const realmLinkifiers = (list: Linkifier[]): RealmLinkifiersEvent => ({
  type: 'realm_linkifiers',
  realm_linkifiers: list,
});

/** `realm_export`: the whole list of data exports, to administrators, whenever one starts, ends or fails. */
export type RealmExportEvent = { type: 'realm_export'; exports: RealmExportJson[] };
export const realmExportChanged = (exports: RealmExportJson[]): RealmExportEvent => ({ type: 'realm_export', exports });

/** `custom_profile_fields`: the organization's whole list of custom profile fields after a change. */
export type CustomProfileFieldsEvent = { type: 'custom_profile_fields'; fields: ProfileField[] };
export const customProfileFields = (fields: ProfileField[]): CustomProfileFieldsEvent => ({
  type: 'custom_profile_fields',
  fields,
});

/** `realm_export_consent`: one person's `allow_private_data_export` changed; to administrators. */
export type RealmExportConsentEvent = { type: 'realm_export_consent'; user_id: number; consented: boolean };
export const realmExportConsent = (user_id: number, consented: boolean): RealmExportConsentEvent => ({
  type: 'realm_export_consent',
  user_id,
  consented,
});
