import { crc32 } from './crc32.js';

/**
 * On-disk record framing. Every record is self-describing, so the in-memory
 * index can be rebuilt from the segments alone:
 *
 *   frame = u32 bodyLength | u32 crc32(body) | body          (little endian)
 *   body  = u8 version | f64 position | f64 epoch | u32 shard
 *         | u16 topicLength | topic | u32 keyLength | key | data
 *
 * The CRC covers the body, and the length is checked against what the file
 * holds, so a write torn by a crash reads as "invalid" and never as a record.
 * The epoch is kept so that fencing survives a restart (see FileJournal).
 */
export const FRAME_HEADER = 8;
const VERSION = 1;
const FIXED_BODY = 1 + 8 + 8 + 4 + 2 + 4;

export interface LogRecord {
  position: number;
  epoch: number;
  topic: string;
  shard: number;
  key: string;
  data: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encodeRecord(record: LogRecord): Buffer {
  const topic = encoder.encode(record.topic);
  const key = encoder.encode(record.key);
  if (topic.length > 0xffff) throw new Error('journal topic longer than 65535 bytes');
  const bodyLength = FIXED_BODY + topic.length + key.length + record.data.length;
  const frame = Buffer.allocUnsafe(FRAME_HEADER + bodyLength);
  let at = FRAME_HEADER;
  at = frame.writeUInt8(VERSION, at);
  at = frame.writeDoubleLE(record.position, at);
  at = frame.writeDoubleLE(record.epoch, at);
  at = frame.writeUInt32LE(record.shard, at);
  at = frame.writeUInt16LE(topic.length, at);
  frame.set(topic, at);
  at += topic.length;
  at = frame.writeUInt32LE(key.length, at);
  frame.set(key, at);
  at += key.length;
  frame.set(record.data, at);
  frame.writeUInt32LE(bodyLength, 0);
  frame.writeUInt32LE(crc32(frame.subarray(FRAME_HEADER)), 4);
  return frame;
}

/**
 * Decodes the frame at `offset`, or returns undefined when it is incomplete
 * or damaged. `data` is a view into `buf`: copy it before handing it out.
 */
export function decodeFrame(buf: Buffer, offset: number): { record: LogRecord; length: number } | undefined {
  if (buf.length - offset < FRAME_HEADER) return undefined;
  const bodyLength = buf.readUInt32LE(offset);
  if (bodyLength < FIXED_BODY || bodyLength > buf.length - offset - FRAME_HEADER) return undefined;
  const body = buf.subarray(offset + FRAME_HEADER, offset + FRAME_HEADER + bodyLength);
  if (crc32(body) !== buf.readUInt32LE(offset + 4)) return undefined;
  try {
    let at = 0;
    if (body.readUInt8(at) !== VERSION) return undefined;
    at += 1;
    const position = body.readDoubleLE(at);
    const epoch = body.readDoubleLE((at += 8));
    const shard = body.readUInt32LE((at += 8));
    const topicLength = body.readUInt16LE((at += 4));
    at += 2;
    const topic = decoder.decode(body.subarray(at, (at += topicLength)));
    const keyLength = body.readUInt32LE(at);
    at += 4;
    if (at + keyLength > body.length) return undefined;
    const key = decoder.decode(body.subarray(at, (at += keyLength)));
    const data = body.subarray(at);
    return { record: { position, epoch, topic, shard, key, data }, length: FRAME_HEADER + bodyLength };
  } catch {
    // A read past the body or invalid UTF-8 despite a good CRC: treat as damage.
    return undefined;
  }
}

export interface ScannedRecord {
  record: LogRecord;
  offset: number;
  length: number;
}

/**
 * Reads frames from the start of a segment until the first one that is
 * damaged, or whose position does not increase. `validBytes` is where the
 * good prefix ends: everything after it is a torn or corrupt tail.
 */
export function scanSegment(buf: Buffer, afterPosition: number): { records: ScannedRecord[]; validBytes: number } {
  const records: ScannedRecord[] = [];
  let offset = 0;
  let last = afterPosition;
  while (offset < buf.length) {
    const frame = decodeFrame(buf, offset);
    if (!frame || !(frame.record.position > last)) break;
    records.push({ record: frame.record, offset, length: frame.length });
    last = frame.record.position;
    offset += frame.length;
  }
  return { records, validBytes: offset };
}
