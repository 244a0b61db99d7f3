export { userBehavior, userBehaviorWith } from './behavior.js';
export type { UserEvent, UserState } from './state.js';
