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
