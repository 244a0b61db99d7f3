export * from './fence.js';
export * from './files.js';
export * from './journal.js';
export * from './store.js';
export * from './transport.js';

import type { FileStore } from './files.js';
import type { Journal } from './journal.js';
import type { StateStore } from './store.js';
import type { Transport } from './transport.js';

/** The adapters a deployment plugs into the runtime. */
export interface Ports {
  transport: Transport;
  journal: Journal;
  store: StateStore;
  files: FileStore;
}
