import type { ErrorObject } from 'ajv';

function at(instancePath: string, field?: unknown): string {
  const path = field === undefined ? instancePath : `${instancePath}/${String(field)}`;
  return path === '' ? '(body)' : path;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? text.slice(0, 57) + '...' : text;
}

/** One line per problem, each starting with the JSON pointer of the offending field so a failure points at it. */
export function describeErrors(errors: readonly ErrorObject[]): string[] {
  const lines = errors.map((e) => {
    const params = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        return `${at(e.instancePath, params['missingProperty'])}: missing required field`;
      case 'additionalProperties':
        return `${at(e.instancePath, params['additionalProperty'])}: unexpected field (the schema allows no others)`;
      case 'enum':
        return `${at(e.instancePath)}: must be one of ${shown(params['allowedValues'])}, got ${shown(e.data)}`;
      case 'type':
        return `${at(e.instancePath)}: ${e.message ?? 'wrong type'}, got ${shown(e.data)}`;
      default:
        return `${at(e.instancePath)}: ${e.message ?? e.keyword}`;
    }
  });
  // Nullable fields and overlapping alternatives report the same problem several times.
  return [...new Set(lines)];
}
