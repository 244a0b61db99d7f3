import { decode } from '@chat/protocol';

/**
 * Subject-addressed messaging with request/reply, shaped after NATS so that
 * the cluster adapter is a thin wrapper and the embedded one is a map of
 * subjects to handlers. Payloads are bytes (the runtime owns the codec), or
 * in this process the value itself (`Carried`).
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
   * Rejects with `TransportTimeout` after `timeoutMs`, `NoResponders` when
   * nobody serves the subject, or `TransportClosed` once the transport is
   * closed (a request still waiting then too).
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
  /** True when it hands `Carried` messages (values, not bytes) over unchanged (in this process only). */
  readonly carriesValues?: boolean;
}

export class TransportTimeout extends Error {
  override readonly name = 'TransportTimeout';
}

export class NoResponders extends Error {
  override readonly name = 'NoResponders';
}

/** The transport was closed (its process is stopping): no request goes, none waiting is answered. */
export class TransportClosed extends Error {
  override readonly name = 'TransportClosed';
  constructor() {
    super('transport is closed');
  }
}

/**
 * A message that carries its value instead of bytes: an empty `Uint8Array`
 * with the value beside it. A transport in this process (`carriesValues`)
 * hands it over as it is, with no JSON text written or parsed; a transport to
 * other processes never sees one (`toWire` encodes for it).
 *
 * The rule that makes this safe: **a value handed to the transport is never
 * changed again**, by its sender or by any receiver (several receivers may
 * share it: a fan-out, a publish to many). An actor's state, which `apply`
 * changes in place, never shares an object with such a value: its cell
 * copies each decision's events, reply, tells and fan-outs (`copyJson`,
 * `copied` in `cell.ts`). In the test runs (`CHAT_CHECK_VALUES=1`, `scripts/test.sh`) `toWire` deep-freezes
 * every value it hands over, so a change throws, and throws when the value
 * would not come out of a JSON round trip the same (what a cluster sees).
 */
export class Carried extends Uint8Array {
  constructor(readonly value: unknown) {
    super(0);
  }
}

/**
 * A value already written as JSON text: as the `body` of what is sent, the
 * text goes on the wire as it is instead of being parsed back and written
 * again; in this process `fromWire` gives the receiver the value it stands
 * for. Anything else that writes it as JSON gets the same value (`toJSON`).
 */
export class JsonText {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

const encoder = new TextEncoder();

let checking = process.env.CHAT_CHECK_VALUES === '1';

/** Turns the check mode on or off (tests of the check itself; otherwise set by `CHAT_CHECK_VALUES=1`). */
export const checkValues = (on: boolean): void => void (checking = on);

/** Whether the check mode is on: the behavior test kit then hands a behavior frozen messages too. */
export const checkingValues = (): boolean => checking;

/**
 * What to send: the value itself when the transport carries values in this
 * process, else its JSON bytes. `subject` names the message in a check's error.
 */
export const toWire = (transport: Transport, value: unknown, subject = '?'): Uint8Array => {
  if (!transport.carriesValues) return encoder.encode(jsonOf(value));
  if (checking) {
    assertJson(value, subject);
    deepFreeze(value);
  }
  return new Carried(value);
};

/** `JSON.stringify(value)`, with a `body` that is `JsonText` written as its text. */
export function jsonOf(value: unknown): string {
  const body = (value as { body?: unknown } | null)?.body;
  if (!(body instanceof JsonText)) return JSON.stringify(value);
  const rest = JSON.stringify({ ...(value as object), body: undefined });
  return `${rest.slice(0, -1)}${rest.length > 2 ? ',' : ''}"body":${body.text}}`;
}

/**
 * The value of a received message, whichever way it came: bytes are decoded
 * into a copy of its own; a value in this process is the sender's, not to be
 * changed (see `Carried`).
 */
export function fromWire<T>(data: Uint8Array): T {
  if (!(data instanceof Carried)) return decode<T>(data);
  const value = data.value as { body?: unknown } | null;
  return (value?.body instanceof JsonText ? { ...value, body: value.body.toJSON() } : value) as T;
}

/**
 * A copy of a value as a JSON round trip gives it (`JSON.parse(JSON.stringify(value))`),
 * without the text: `toJSON` is called, `undefined` and functions are left
 * out of objects and are `null` in arrays, so are NaN and the infinities, -0 is 0.
 */
export function copyJson(value: unknown): unknown {
  return copied(value) ?? null;
}

function copied(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value + 0 : null;
    case 'object':
      break;
    default:
      return undefined; // undefined, a function, a symbol (a bigint throws in JSON; it never crosses)
  }
  if (value === null) return null;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return copied((value as { toJSON(): unknown }).toJSON());
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copied(value[i]) ?? null;
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = copied((value as Record<string, unknown>)[key]);
    if (v === undefined) continue;
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}

/**
 * Throws, naming the subject and the place, when a JSON round trip would not
 * give the value back the same: `undefined` or a function in an array, a
 * function or symbol in an object, NaN, an infinity, -0, a bigint, a hole, an
 * object that is not plain (a Date, a Map, a class instance) other than
 * `JsonText`. A property that is `undefined` counts as absent: reading it
 * gives the same on both sides.
 */
export function assertJson(value: unknown, subject: string): void {
  const fail = (path: string, what: string): never => {
    throw new Error(
      `not a JSON value on ${subject}: ${what} at ${path || 'the top'} (a cluster would see another value)`,
    );
  };
  const walk = (v: unknown, path: string, inArray: boolean): void => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(v)) fail(path, String(v));
        if (Object.is(v, -0)) fail(path, '-0');
        return;
      case 'undefined':
        if (inArray || path === '') fail(path, 'undefined');
        return;
      case 'object':
        break;
      default:
        return fail(path, `a ${typeof v}`);
    }
    if (v === null || v instanceof JsonText) return;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (!(i in v)) fail(`${path}[${i}]`, 'a hole');
        walk(v[i], `${path}[${i}]`, true);
      }
      return;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null)
      fail(path, `a ${(v as object).constructor?.name ?? 'non-plain'} object`);
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') fail(path, 'an object with toJSON');
    for (const key of Object.keys(v)) walk((v as Record<string, unknown>)[key], path ? `${path}.${key}` : key, false);
  };
  walk(value, '', false);
}

/** Freezes a value and everything in it, so that a change throws (in strict mode, as every module is). */
export function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}
