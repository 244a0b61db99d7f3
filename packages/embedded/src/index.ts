export { InProcessTransport, type InProcessTransportOptions } from './transport.js';
export { FileJournal, type FileJournalOptions, type JournalStats } from './journal/file-journal.js';
export { LevelStore } from './store.js';
export { LocalFileStore } from './files.js';
export {
  ChannelTransport,
  POLLS_PER_TURN,
  serveChannel,
  type Channel,
  type ChannelCalls,
  type Downward,
  type Upward,
} from './channel-transport.js';
