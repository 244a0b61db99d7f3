/**
 * Subject-addressed messaging with request/reply, shaped after NATS so that
 * the cluster adapter is a thin wrapper and the embedded one is a map of
 * subjects to handlers. Payloads are bytes: the runtime owns the codec.
 */
export interface TransportMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /** Present when the sender awaits a reply. Calling it twice is a no-op. */
  respond?(data: Uint8Array): void;
}

export type TransportHandler = (msg: TransportMessage) => void;

export interface Subscription {
  unsubscribe(): void;
}

export interface Transport {
  /**
   * Sends a request to whoever serves `subject` and resolves with the reply.
   * Rejects with `TransportTimeout` after `timeoutMs`, or `NoResponders` when
   * nobody serves the subject.
   */
  request(subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array>;
  /** Fire and forget; delivered at most once. */
  publish(subject: string, data: Uint8Array): void;
  /**
   * Serves a subject. With `queue`, each message goes to one member of the
   * queue group (NATS queue groups); without, to every subscriber.
   */
  subscribe(subject: string, handler: TransportHandler, opts?: { queue?: string }): Subscription;
  close(): Promise<void>;
}

export class TransportTimeout extends Error {
  override readonly name = 'TransportTimeout';
}

export class NoResponders extends Error {
  override readonly name = 'NoResponders';
}
