export { userBehavior } from './behavior.js';
export type { UserEvent, UserState } from './state.js';
