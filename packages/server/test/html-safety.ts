/**
 * Judges HTML the server rendered (message content, rendered descriptions)
 * as a browser would read it: every `<` must open a tag the renderer is
 * known to write, with attributes from a known list, no event handler
 * (`on*=`), and links and images only to http, https, mailto or relative
 * URLs once entities are decoded and the characters browsers skip are
 * dropped. Text that merely mentions `javascript:` or `<script>` escaped is
 * harmless and passes. Returns the problems found, none for safe HTML.
 */
const TAGS = new Set(
  'p br a span div pre code em strong del blockquote ul ol li h1 h2 h3 h4 h5 h6 hr img table thead tbody tr th td time'.split(
    ' ',
  ),
);
const ATTRIBUTES = new Set(['class', 'href', 'title', 'src', 'start', 'style', 'datetime', 'aria-hidden', 'alt']);
const URL_ATTRIBUTES = new Set(['href', 'src']);
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);

const TAG = /<(\/?)([A-Za-z][A-Za-z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*(\/?)>/g;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

export function htmlProblems(html: string): string[] {
  const problems: string[] = [];
  if (/<\s*script/i.test(html)) problems.push('a script tag');
  const rest = html.replace(TAG, (whole, _close: string, name: string, attributes: string) => {
    if (!TAGS.has(name.toLowerCase())) problems.push(`tag <${name}>`);
    for (const [, attribute, ...values] of attributes.matchAll(ATTRIBUTE)) {
      const key = attribute!.toLowerCase();
      const value = decodeEntities(values.find((v) => v !== undefined) ?? '');
      if (key.startsWith('on')) problems.push(`event handler ${attribute} in ${whole}`);
      else if (!ATTRIBUTES.has(key) && !key.startsWith('data-')) problems.push(`attribute ${attribute} in ${whole}`);
      if (URL_ATTRIBUTES.has(key) && !safeUrl(value)) problems.push(`unsafe URL ${value} in ${whole}`);
      if (key === 'style' && !/^text-align:\s*(left|right|center)$/.test(value)) problems.push(`style ${value}`);
    }
    return '';
  });
  // Whatever the tag pattern could not read is markup a browser might read differently.
  if (rest.includes('<'))
    problems.push(`an unreadable tag near ${rest.slice(rest.indexOf('<'), rest.indexOf('<') + 60)}`);
  return problems;
}

function safeUrl(url: string): boolean {
  // Browsers drop ASCII whitespace and control characters anywhere in a URL's scheme.
  const cleaned = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  const scheme = /^([^/?#]*?):/.exec(cleaned);
  return !scheme || SAFE_SCHEMES.has(scheme[1]!.toLowerCase());
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", colon: ':', tab: '\t' };

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}
