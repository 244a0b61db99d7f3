// Two escapers: attribute values need quotes escaped; text nodes only need the
// characters that can open markup, which keeps output byte-compatible with the
// original server (it leaves quotes alone in text).

const ATTR: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const TEXT: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Escapes a value for a double-quoted attribute (and is safe for text too). */
export function escapeAttr(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ATTR[c]!);
}

/** Escapes a value for a text node. */
export function escapeText(value: string): string {
  return value.replace(/[&<>]/g, (c) => TEXT[c]!);
}
