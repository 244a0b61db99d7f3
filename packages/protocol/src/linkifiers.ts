import type { ProtocolOf } from './contract.js';

/** A linkifier: text matching `pattern` links to `url_template` filled in from its named groups. */
export interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
}

/** The realm's linkifiers, in their order: everyone reads them, administrators change them. */
export type LinkifierCommand =
  | { type: 'realm.linkifiers' }
  | { type: 'realm.addLinkifier'; actor_id: number; pattern: string; url_template: string }
  | { type: 'realm.updateLinkifier'; actor_id: number; id: number; pattern: string; url_template: string }
  | { type: 'realm.removeLinkifier'; actor_id: number; id: number }
  | { type: 'realm.reorderLinkifiers'; actor_id: number; ids: number[] };

export type LinkifierReplies = {
  'realm.linkifiers': Linkifier[];
  'realm.addLinkifier': { id: number };
  'realm.updateLinkifier': null;
  'realm.removeLinkifier': null;
  'realm.reorderLinkifiers': null;
};

export type LinkifierProtocol = ProtocolOf<LinkifierCommand, LinkifierReplies>;
