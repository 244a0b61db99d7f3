/**
 * Every value that crosses a process boundary (transport, journal, store) is
 * JSON in UTF-8. The embedded transport uses the same codec, so a message that
 * works embedded would also cross the wire.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encode(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function decode<T>(bytes: Uint8Array): T {
  return JSON.parse(decoder.decode(bytes)) as T;
}
