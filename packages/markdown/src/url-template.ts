// RFC 6570 URL templates, as linkifiers and code playgrounds use them.

const OPERATORS: Record<string, { first: string; sep: string; named: boolean; empty: string; reserved: boolean }> = {
  '': { first: '', sep: ',', named: false, empty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, empty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, empty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, empty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, empty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, empty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, empty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, empty: '=', reserved: false },
};
const VARSPEC = /^((?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*)(\*|:([1-9]\d{0,3}))?$/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

interface Expression {
  operator: string;
  vars: { name: string; prefix?: number }[];
}
type Part = string | Expression;

/** The template's literals and expressions, or undefined when it is not a valid template. */
function parse(template: string): Part[] | undefined {
  const parts: Part[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const literal = template.slice(i, open < 0 ? undefined : open);
    if (literal.includes('}')) return undefined;
    if (literal) parts.push(literal);
    if (open < 0) break;
    const close = template.indexOf('}', open);
    if (close < 0) return undefined;
    let body = template.slice(open + 1, close);
    if (body.includes('{')) return undefined;
    const operator = body[0] !== undefined && body[0] in OPERATORS && body[0] !== '' ? body[0] : '';
    if (/^[=,!@|]/.test(body)) return undefined;
    body = body.slice(operator.length);
    const vars: Expression['vars'] = [];
    for (const spec of body.split(',')) {
      const m = VARSPEC.exec(spec);
      if (!m) return undefined;
      vars.push(m[3] ? { name: m[1]!, prefix: Number(m[3]) } : { name: m[1]! });
    }
    parts.push({ operator, vars });
    i = close + 1;
  }
  return parts;
}

/** The names of a valid template's variables, or undefined when the template is invalid. */
export function templateVariables(template: string): string[] | undefined {
  const parts = parse(template);
  if (!parts) return undefined;
  const names = parts.flatMap((p) => (typeof p === 'string' ? [] : p.vars.map((v) => v.name)));
  return [...new Set(names)];
}

function encode(value: string, reserved: boolean): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (reserved && c === '%' && /^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3))) out += c;
    else if (UNRESERVED.test(c) || (reserved && RESERVED.test(c))) out += c;
    else {
      const point = value.codePointAt(i)!;
      if (point > 0xffff) i++;
      out += [...new TextEncoder().encode(String.fromCodePoint(point))]
        .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
        .join('');
    }
  }
  return out;
}

/** Expands a template with string values; variables without a value are left out, as RFC 6570 says. */
export function expandTemplate(template: string, values: Record<string, string | undefined>): string | undefined {
  const parts = parse(template);
  if (!parts) return undefined;
  return parts
    .map((part) => {
      if (typeof part === 'string') return encode(part, true);
      const op = OPERATORS[part.operator]!;
      const pieces: string[] = [];
      for (const v of part.vars) {
        const raw = values[v.name];
        if (raw === undefined) continue;
        const value = encode(v.prefix ? [...raw].slice(0, v.prefix).join('') : raw, op.reserved);
        if (!op.named) pieces.push(value);
        else pieces.push(value === '' ? `${v.name}${op.empty}` : `${v.name}=${value}`);
      }
      return pieces.length ? op.first + pieces.join(op.sep) : '';
    })
    .join('');
}
