import { decode, encode } from '@chat/protocol';

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
  /** True when it hands `Carried` messages over unchanged (in this process only). */
  readonly carriesValues?: boolean;
}

export class TransportTimeout extends Error {
  override readonly name = 'TransportTimeout';
}

export class NoResponders extends Error {
  override readonly name = 'NoResponders';
}

/**
 * A message that carries its value instead of bytes: an empty `Uint8Array`
 * with the value beside it. A transport in this process (`carriesValues`)
 * hands it over as it is, so an ask and its reply are not turned to JSON and
 * back (that was a fifth of the embedded server's CPU); a transport to other
 * processes never sees one (`toWire` encodes for it). The value is shared
 * with the receiver, not copied: neither side may change it after sending.
 */
export class Carried extends Uint8Array {
  constructor(readonly value: unknown) {
    super(0);
  }
}

/** What to send: the value itself when the transport carries values, else its JSON bytes. */
export const toWire = (transport: Transport, value: unknown): Uint8Array =>
  transport.carriesValues ? new Carried(value) : encode(value);

/** The value of a received message, whichever way it came. */
export const fromWire = <T>(data: Uint8Array): T => (data instanceof Carried ? (data.value as T) : decode<T>(data));
