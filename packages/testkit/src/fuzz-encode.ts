/**
 * Request bodies and query strings written byte by byte, so that the fuzzer
 * can send what a well-behaved encoder never would: invalid UTF-8, broken
 * percent escapes, repeated keys, a multipart part with a hostile file name.
 */

/** One name=value pair; `encoded` values are already percent-encoded and go out as they are. */
export interface Field {
  name: string;
  text: string;
  encoded?: boolean;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Percent-encodes the UTF-8 bytes of `text`; a lone surrogate becomes U+FFFD, as any encoder does. */
export function percent(text: string): string {
  return encodeURIComponent(text.replace(LONE_SURROGATE, '\uFFFD'));
}

export function formText(fields: readonly Field[]): string {
  return fields.map((f) => `${percent(f.name)}=${f.encoded ? f.text : percent(f.text)}`).join('&');
}

export interface FilePart {
  field: string;
  /** Written into the part's header as is, quotes and all. */
  filename: string;
  contentType: string;
  data: string;
}

export const BOUNDARY = 'fuzz-boundary-7d1a';

/** A multipart/form-data body; encoded field values are decoded first, since multipart carries bytes. */
export function multipartBody(fields: readonly Field[], files: readonly FilePart[]): Buffer {
  const parts: Buffer[] = [];
  const head = (text: string) => Buffer.from(`--${BOUNDARY}\r\n${text}\r\n\r\n`, 'utf8');
  for (const field of fields) {
    parts.push(head(`Content-Disposition: form-data; name="${field.name}"`));
    parts.push(field.encoded ? bytesOf(field.text) : Buffer.from(field.text, 'utf8'), Buffer.from('\r\n'));
  }
  for (const file of files) {
    const disposition = `Content-Disposition: form-data; name="${file.field}"; filename="${file.filename}"`;
    parts.push(head(`${disposition}\r\nContent-Type: ${file.contentType}`));
    parts.push(Buffer.from(file.data, 'utf8'), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

/** The bytes a percent-encoded text stands for; a broken escape stays literal. */
function bytesOf(encoded: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const hex = encoded.slice(i + 1, i + 3);
    if (encoded[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(encoded[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

/** A JSON object text from property texts that are already JSON (possibly hostile ones). */
export function jsonObjectText(properties: ReadonlyArray<[string, string]>): string {
  return `{${properties.map(([name, text]) => `${JSON.stringify(name)}:${text}`).join(',')}}`;
}

export const basic = (user: string, secret: string) =>
  `Basic ${Buffer.from(`${user}:${secret}`, 'utf8').toString('base64')}`;
