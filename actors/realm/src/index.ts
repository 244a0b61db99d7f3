export { realmBehavior, realmIdOf } from './behavior.js';
export type { Account, RealmEvent, RealmState } from './state.js';
