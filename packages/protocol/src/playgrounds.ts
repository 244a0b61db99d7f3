import type { ProtocolOf } from './contract.js';

/** A code playground: where code blocks of one language can be opened. */
export interface Playground {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

/** The realm's code playgrounds: everyone reads them, administrators add and remove them. */
export type PlaygroundCommand =
  | { type: 'realm.playgrounds' }
  | { type: 'realm.addPlayground'; actor_id: number; playground: Omit<Playground, 'id'> }
  | { type: 'realm.removePlayground'; actor_id: number; playground_id: number };

export type PlaygroundReplies = {
  'realm.playgrounds': Playground[];
  'realm.addPlayground': { id: number };
  'realm.removePlayground': null;
};

export type PlaygroundProtocol = ProtocolOf<PlaygroundCommand, PlaygroundReplies>;
