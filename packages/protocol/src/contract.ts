/**
 * The typed contract between edges and actors (after Akka Typed, where a
 * command names its reply type). Each actor type has one protocol table:
 * for each command `type`, the command (its `type` included) and the reply
 * its actor answers. `ActorClient.ask` reads the reply type from it, and a
 * behavior is a table of handlers derived from it (`Handlers` in the
 * runtime), so a missing or mistyped handler does not compile. The wire
 * does not know any of this: commands and replies cross as plain JSON.
 */
import type { ActorType } from './address.js';
import type { ChannelProtocol } from './channel.js';
import type { QueueProtocol } from './queue.js';
import type { RealmProtocol } from './realm.js';
import type { UserProtocol } from './user.js';

/**
 * A protocol table made of a union of commands `C` and the reply to each of
 * them (`R`, by command type): a command without a reply does not compile.
 */
export type ProtocolOf<C extends { type: string }, R extends Record<C['type'], unknown>> = {
  [K in C['type']]: { command: Extract<C, { type: K }>; reply: R[K] };
};

/** The command of type `K` of a protocol table (any of its commands by default). */
export type CommandOf<P, K extends keyof P = keyof P> = K extends keyof P
  ? P[K] extends { command: infer C }
    ? C
    : never
  : never;

/** What the actor answers to the command of type `K`. */
export type ReplyOf<P, K> = K extends keyof P ? (P[K] extends { reply: infer R } ? R : never) : never;

/** Every actor type's protocol table. */
export interface Protocols {
  realm: RealmProtocol;
  channel: ChannelProtocol;
  user: UserProtocol;
  queue: QueueProtocol;
}

/** The commands an actor of type `T` takes. */
export type CommandTo<T extends ActorType> = CommandOf<Protocols[T]>;
/** The reply of an actor of type `T` to the command of type `K`. */
export type ReplyFrom<T extends ActorType, K> = ReplyOf<Protocols[T], K>;
