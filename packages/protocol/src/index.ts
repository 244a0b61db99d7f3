export * from './address.js';
export * from './codec.js';
export * from './envelope.js';
export * from './errors.js';
export * from './credentials.js';
export * from './realm.js';
export * from './channel.js';
