export { realmBehavior } from './behavior.js';
export type { Account, RealmEvent, RealmState } from './state.js';
export { ID_BLOCK } from './message-ids.js';
