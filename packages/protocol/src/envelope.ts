import type { ActorAddress } from './address.js';
import type { WireError } from './errors.js';

/**
 * The envelopes that travel between edges and actor hosts. Each carries a
 * version so that a host can refuse (rather than misread) a message from a
 * newer peer during a rolling upgrade.
 */
export const ENVELOPE_VERSION = 1;

/** A command or query for one actor. `body.type` names the operation. */
export interface Command {
  type: string;
  [field: string]: unknown;
}

export interface AskEnvelope {
  v: typeof ENVELOPE_VERSION;
  /** A `fanout` tells the same body to every key in `keys` (of `to.type`) that the receiving host owns. */
  kind: 'ask' | 'tell' | 'fanout';
  to: ActorAddress;
  keys?: string[];
  body: Command;
  /** Absolute deadline, epoch milliseconds. A host drops work past it. */
  deadline: number;
  /** Set on commands a caller may retry; the actor applies each key once. */
  idempotencyKey?: string;
  /** For logs: the request id of the HTTP call that caused this message. */
  requestId?: string;
}

export type ReplyEnvelope =
  | {
      v: typeof ENVELOPE_VERSION;
      ok: true;
      body: unknown;
      /** The journal position of the newest change of the actor's state that the reply saw (-1: none). */
      at?: number;
    }
  | { v: typeof ENVELOPE_VERSION; ok: false; error: WireError };
