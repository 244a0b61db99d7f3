// URL policy and the original's URL shapes for channel links and uploads.

const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);

/**
 * Whether a link target may become an href: http, https, mailto or relative.
 * Browsers ignore ASCII whitespace and control characters inside a scheme
 * ("java\tscript:"), so they are dropped before reading the scheme; anything
 * with a colon before the first "/", "?" or "#" is a scheme and must be allowed.
 */
export function isSafeUrl(url: string): boolean {
  const cleaned = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  const scheme = /^([^/?#]*?):/.exec(cleaned);
  if (!scheme) return true;
  return ALLOWED_SCHEMES.has(scheme[1]!.toLowerCase());
}

/**
 * The original's hash-fragment encoding of a narrow operand: percent-encode
 * everything but [A-Za-z0-9_.~-], then turn "." into ".2E" and "%" into ".", so
 * the result survives browsers that decode fragments.
 */
export function hashEncode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/\./g, '%2E')
    .replace(/%/g, '.');
}

/** "/#narrow/channel/9-Verona-Team" for channel 9 named "Verona Team". */
export function channelUrl(id: number, name: string): string {
  return `/#narrow/channel/${id}-${hashEncode(name.replace(/ /g, '-'))}`;
}

export function topicUrl(id: number, channel: string, topic: string): string {
  return `${channelUrl(id, channel)}/topic/${hashEncode(topic)}`;
}

// An upload path is <realm id>/<two or more segments>, as "2/ab/cdef/file.png";
// the numeric first segment keeps out thumbnails and other non-upload routes.
const UPLOAD = /^(?:[a-z][a-z0-9+.-]*:\/\/[^/?#]*)?\/user_uploads\/(\d+\/[^?#]+)/i;

/** The upload path a link points at (relative or absolute to any host), decoded. */
export function uploadPathOf(href: string): string | undefined {
  const m = UPLOAD.exec(href);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1];
  }
}

const IMAGE_EXTENSIONS = new Set(['bmp', 'gif', 'jpe', 'jpeg', 'jpg', 'png', 'webp']);

export function isImagePath(path: string): boolean {
  const dot = path.lastIndexOf('.');
  return dot >= 0 && IMAGE_EXTENSIONS.has(path.slice(dot + 1).toLowerCase());
}
