/**
 * Moving messages to another channel. The move spans two ChannelActors, so
 * it runs in three steps that a crash can interrupt anywhere without losing
 * a message: the source records the move (`message.moveOut`), the target
 * imports the messages with their ids (`message.moveIn`, idempotent), and
 * only then does the source let them go (`message.moveEnd`). A source that
 * holds an unfinished move completes it itself (see actors/channel/src/move/out.ts).
 */
import type { ChannelInfo, EditPropagation, StoredMessage } from './channel.js';
import type { Principal, RealmSettings } from './realm.js';

/** What the source hands the target: the messages as they will be there. */
export interface ChannelMove {
  /** Unique per move; the target's idempotency key. */
  id: string;
  /** Conversation actor keys. */
  from: string;
  to: string;
  actor: Principal;
  /** With their new topic and the history entry of the move. */
  messages: StoredMessage[];
  /**
   * Holders who never were subscribed to the source (their rows are
   * historical): they keep the messages wherever they go, as the original
   * deletes only the rows of the source's subscribers, past and present,
   * not subscribed to the destination (absent when none).
   */
  outsiders?: number[];
}

/** What `message.moveOut` answers the edge. */
export interface MoveBegun {
  move: ChannelMove;
  old_topic: string;
  new_topic: string;
  /** No message of the old topic the mover can see stays behind (decides the notices' wording). */
  moved_all_visible: boolean;
}

/** What `message.moveIn` answers. */
export interface MoveImported {
  /** The new topic already held messages the mover can see. */
  preexisting: boolean;
}

export type MoveReplies = {
  'message.moveOut': MoveBegun;
  'message.moveIn': MoveImported;
  /** Whether this answer ended a move the source still held. */
  'message.moveEnd': { ended: boolean };
};

export type MoveCommand =
  /** To the source. `target` is the destination as `channel.info` showed it to the mover. */
  | {
      type: 'message.moveOut';
      actor: Principal;
      message_id: number;
      target: ChannelInfo;
      /** Absent: the messages keep their topic. */
      topic?: string;
      propagate_mode: EditPropagation;
      settings: RealmSettings;
      /** Guests among both channels' subscribers: who loses access depends on it. */
      guest_ids: number[];
    }
  /** To the target. With `notify_source`, the target tells the source how it went (recovery). */
  | { type: 'message.moveIn'; move: ChannelMove; notify_source?: boolean }
  /** To the source: the target holds the messages (`done`), or refused them. */
  | { type: 'message.moveEnd'; move_id: string; done: boolean };

/**
 * To the UserActors of both channels' subscribers: moved messages keep their
 * read state under the target's key. `copy`: read there if read in `from`;
 * otherwise all read (the user did not receive them in `from`).
 */
export type MovedReadReplies = { 'user.moved': null };

export type MovedReadCommand = { type: 'user.moved'; from: string; to: string; ids: number[]; copy: boolean };
