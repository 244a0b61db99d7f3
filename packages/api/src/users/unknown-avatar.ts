import { Readable } from 'node:stream';
import { crc32, deflateSync } from 'node:zlib';
import type { RawMiddleware } from '../uploads/downloads.js';
import { answerImage } from '../uploads/public-image.js';
import { UNKNOWN_USER_AVATAR } from './access.js';

const SIZE = 100;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A grey silhouette (head and shoulders) on a light background, as a grayscale PNG. */
function silhouette(): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < SIZE; y++) {
    const row = Buffer.alloc(SIZE + 1); // filter byte 0, then one gray byte per pixel
    for (let x = 0; x < SIZE; x++) {
      const head = (x - 50) ** 2 + (y - 38) ** 2 <= 18 ** 2;
      const shoulders = y >= 62 && (x - 50) ** 2 / 36 ** 2 + (y - 100) ** 2 / 36 ** 2 <= 1;
      row[x + 1] = head || shoulders ? 0xa0 : 0xe8;
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

let image: Buffer | undefined;

/**
 * The avatar of an "Unknown user" (`UNKNOWN_USER_AVATAR`, the original's
 * `get_avatar_for_inaccessible_user`), served without credentials like the
 * other public images, so the URL a restricted guest is given shows a picture.
 */
export function unknownUserAvatar(): RawMiddleware {
  return async (ctx, next) => {
    if (ctx.path !== UNKNOWN_USER_AVATAR || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.state.route = UNKNOWN_USER_AVATAR;
    image ??= silhouette();
    answerImage(ctx, Readable.from([image]), 'image/png');
  };
}
