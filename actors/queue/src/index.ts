export { queueBehavior, type QueueOptions } from './behavior.js';
export type { QueueEventRecord, QueueState } from './state.js';
