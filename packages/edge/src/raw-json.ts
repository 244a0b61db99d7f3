/**
 * A field of a success body already written as JSON (a register's ten
 * thousand users, kept between answers): the body is written around it, as
 * `JSON.stringify` would have written the value it stands for.
 */
export class RawJson {
  constructor(readonly json: string) {}
}

/** The body as Koa would send it: an object, or the same JSON text when a field is raw. */
export function jsonBody(body: Record<string, unknown>): Record<string, unknown> | string {
  if (!hasRaw(body)) return body;
  const fields: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    const json = value instanceof RawJson ? value.json : (JSON.stringify(value) as string | undefined);
    if (json !== undefined) fields.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${fields.join(',')}}`;
}

function hasRaw(body: Record<string, unknown>): boolean {
  for (const key in body) if (body[key] instanceof RawJson) return true;
  return false;
}
