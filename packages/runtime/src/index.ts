export * from './ports/index.js';
export * from './client.js';
export * from './shards.js';
export * from './behavior.js';
export * from './host.js';
export * from './logger.js';
export { originOf, outgoingKey } from './outbox.js';
export { checkpointDue, type CheckpointPolicy } from './partition.js';
export { atTurnEnd, TURN_HANDOVERS } from './turns.js';
