export { realmBehavior } from './behavior.js';
export type { Account, RealmEvent, RealmState } from './state.js';
