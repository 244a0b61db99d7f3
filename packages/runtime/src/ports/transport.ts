import { decode } from '@chat/protocol';

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
  /** True when it hands `Carried` messages (JSON text, not bytes) over unchanged (in this process only). */
  readonly carriesValues?: boolean;
}

export class TransportTimeout extends Error {
  override readonly name = 'TransportTimeout';
}

export class NoResponders extends Error {
  override readonly name = 'NoResponders';
}

/**
 * A message that carries its JSON text instead of bytes: an empty
 * `Uint8Array` with the text beside it. A transport in this process
 * (`carriesValues`) hands it over as it is, which saves the UTF-8 encode, the
 * byte copies and the UTF-8 decode of every ask, reply, tell and fan-out; a
 * transport to other processes never sees one (`toWire` encodes for it).
 * Each receiver still parses its own copy, as of the send, with JSON's rules:
 * an actor's state is never shared with an edge or another actor, and the
 * embedded server sees exactly the values a cluster would.
 */
export class Carried extends Uint8Array {
  constructor(readonly text: string) {
    super(0);
  }
}

/**
 * A value already written as JSON text (a reply copied as of its decision,
 * `cell.ts`): as the `body` of what is sent, the text goes out as it is
 * instead of being parsed back and written again. Anything else that writes
 * it as JSON gets the same value (`toJSON`).
 */
export class JsonText {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

const encoder = new TextEncoder();

/** What to send: the value's JSON text when the transport carries it in this process, else its JSON bytes. */
export const toWire = (transport: Transport, value: unknown): Uint8Array => {
  const text = jsonOf(value);
  return transport.carriesValues ? new Carried(text) : encoder.encode(text);
};

/** `JSON.stringify(value)`, with a `body` that is `JsonText` written as its text. */
function jsonOf(value: unknown): string {
  const body = (value as { body?: unknown } | null)?.body;
  if (!(body instanceof JsonText)) return JSON.stringify(value);
  const rest = JSON.stringify({ ...(value as object), body: undefined });
  return `${rest.slice(0, -1)}${rest.length > 2 ? ',' : ''}"body":${body.text}}`;
}

/** The value of a received message, whichever way it came: always a copy of its own. */
export const fromWire = <T>(data: Uint8Array): T =>
  data instanceof Carried ? (JSON.parse(data.text) as T) : decode<T>(data);
