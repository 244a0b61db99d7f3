import type { ActorAddress, ActorType, Command } from '@chat/protocol';
import type { ActorClient, AskOptions, UntypedActorClient } from '../src/index.js';

/**
 * The runtime's own tests run test actors (counters, posters) whose
 * commands no protocol table names: their client takes any command, and
 * the caller says what it expects back.
 */
export interface TestClient extends Omit<UntypedActorClient, 'ask'> {
  ask<R = unknown>(to: ActorAddress, body: Command, opts?: AskOptions): Promise<R>;
}

export const untyped = (client: ActorClient) => client as unknown as TestClient;

/** A protocol map under which test actors may tell any command to anyone. */
export type AnyProtocols = Record<ActorType, Record<string, { command: Command; reply: unknown }>>;
