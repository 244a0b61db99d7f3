/** The QueueActor's contract: one client's event queue. */
import type { UserRef } from './realm.js';
import type { ViewedMessage } from './channel.js';
import type { ProtocolOf } from './contract.js';
import type { ClientEvent } from './client-events/index.js';

/** What a client asked for at registration; fixed for the queue's life. */
export interface QueueSpec {
  user_id: number;
  /** null: every type. */
  event_types: string[] | null;
  /** Message events are kept only when they match (terms as `@chat/narrow` resolves them). */
  narrow: unknown[];
  all_public_streams: boolean;
  apply_markdown: boolean;
  client_gravatar: boolean;
  /** The client capabilities that change what events look like. */
  capabilities: Record<string, boolean>;
}

/**
 * A message event before it is shaped for one client: the edge renders it
 * with the queue's `apply_markdown`, `client_gravatar` and capabilities.
 */
export interface MessageQueueEvent {
  type: 'message';
  /** `flags` are the recipient's, filled in by their UserActor. */
  message: ViewedMessage;
  /** The sender and the participants of a direct message, for names and e-mails. */
  people: UserRef[];
  /** Set when the sender named its queue: that queue gets `local_id` back. */
  local?: { queue_id: string; local_id: string };
  /** Senders who asked for `read_by_sender: false` find their own message unread. */
  read_by_sender?: boolean;
  /** Recipients who get it already read (the send command's `mark_read`): their actors record it read. */
  read_by?: number[];
  /** For narrows by `channels:public` / `channels:web-public`. */
  channel_is_public: boolean;
  channel_is_web_public: boolean;
  /** Who took part in the topic before, for `topic_wildcard_mentioned`. */
  topic_participants?: number[];
}

/** Every event a queue holds: built by the constructors in client-events/, so a hand-written literal does not compile. */
export type QueueEvent = MessageQueueEvent | ClientEvent;

export const isMessageEvent = (event: QueueEvent): event is MessageQueueEvent => event.type === 'message';

/** An event as a queue holds it. */
export type NumberedEvent = QueueEvent & { id: number };

export interface QueueReply {
  events: NumberedEvent[];
  spec: QueueSpec;
}

/** A poll's answer: without the spec when the poll said it has it (`has_spec`). */
export interface QueueGetReply {
  events: NumberedEvent[];
  spec?: QueueSpec;
}

export type QueueReplies = {
  'queue.register': { queue_id: string; last_event_id: number };
  'queue.push': null;
  /** Held until there is something to answer (a long poll). */
  'queue.get': QueueGetReply;
  'queue.delete': null;
  /** The events it dropped. */
  'queue.cover': QueueReply;
};

/** The QueueActor's protocol table. */
export type QueueProtocol = ProtocolOf<QueueCommand, QueueReplies>;

export type QueueCommand =
  | { type: 'queue.register'; spec: QueueSpec }
  /** From the owner's UserActor: events for this queue (filtered here). */
  | { type: 'queue.push'; events: QueueEvent[] }
  /** Acknowledges up to `last_event_id` and waits for newer events unless `dont_block`. */
  | {
      type: 'queue.get';
      user_id: number;
      last_event_id: number | null;
      dont_block: boolean;
      /**
       * When the client's poll began (ms), if this ask continues it: an edge
       * that waits in slices asks again with the same `since`, and the
       * heartbeat still comes one interval after the poll began.
       */
      since?: number;
      /**
       * The edge has this queue's spec (fixed for the queue's life, and a
       * queue id is never registered twice): the answer leaves it out.
       */
      has_spec?: boolean;
    }
  | { type: 'queue.delete'; user_id: number }
  /**
   * From registration: the snapshot holds the state these event types
   * change, as each actor (`formatAddress`) had it at these journal
   * positions. Events of changes it holds are dropped, those held now and
   * those still on their way. Answers the events it dropped from the queue.
   * `accessible`: a restricted guest's snapshot's users he accesses (see the QueueActor's `access.ts`).
   */
  | {
      type: 'queue.cover';
      user_id: number;
      through: Record<string, Record<string, number>>;
      accessible?: number[];
    };
