import { isObject } from './normalize.js';
import { loadReference, type RawSchema } from './reference.js';

/** A key of the register response, as the reference says when it is present. */
export interface RegisterKey {
  key: string;
  /** The `fetch_event_types` value that brings it; undefined: always present. */
  fetch?: string;
  /** A second `fetch_event_types` value the key needs besides `fetch`. */
  alsoNeeds?: string;
  /** Sent only to clients without the `user_settings_object` capability (the legacy top-level settings). */
  legacySetting: boolean;
  /** Sent only under a further condition (a demo organization, ...): not required. */
  conditional: boolean;
}

const CONDITIONAL = new Set(['demo_organization_scheduled_deletion_date']);

/** Keys whose descriptions do not say when they are present, as the original decides it. */
const OVERRIDES: Record<string, Partial<RegisterKey>> = {
  drafts: { fetch: 'drafts' },
  receives_typing_notifications: { fetch: 'update_display_settings', legacySetting: true },
  unread_msgs: { fetch: 'message', alsoNeeds: 'update_message_flags' },
};

/** Every key of the reference's `POST /register` 200 response, read from its descriptions ("Present if `x` ..."). */
export function registerKeys(): RegisterKey[] {
  const doc = loadReference();
  const deref = (schema: unknown): RawSchema => {
    let current = schema;
    for (let hops = 0; isObject(current) && hops < 20; hops++) {
      const ref = current['$ref'];
      if (typeof ref !== 'string') return current;
      const name = ref.replace('#/components/schemas/', '');
      current = doc.components.schemas[name];
    }
    throw new Error('unresolvable $ref in the register response');
  };
  const post = doc.paths['/register']?.['post'] as RawSchema | undefined;
  const responses = post?.['responses'] as Record<string, RawSchema> | undefined;
  const content = responses?.['200']?.['content'] as Record<string, RawSchema> | undefined;
  const root = deref(content?.['application/json']?.['schema']);
  const parts = Array.isArray(root['allOf']) ? (root['allOf'] as unknown[]).map(deref) : [root];
  const keys: RegisterKey[] = [];
  for (const part of parts) {
    const properties = isObject(part['properties']) ? part['properties'] : {};
    for (const [key, raw] of Object.entries(properties)) {
      const schema = isObject(raw) ? raw : {};
      const description = String(schema['description'] ?? deref(schema)['description'] ?? '');
      const fetch = /Present if `([a-z_]+)` is present in `fetch_event_types`/.exec(description)?.[1];
      keys.push({
        key,
        ...(fetch !== undefined ? { fetch } : {}),
        legacySetting: description.includes('did not include `user_settings_object`'),
        conditional: CONDITIONAL.has(key),
        ...OVERRIDES[key],
      });
    }
  }
  return keys;
}

/** Every property a component schema of the reference declares, through its `allOf` members and `$ref`s. */
export function schemaProperties(name: string): string[] {
  const doc = loadReference();
  const names = new Set<string>();
  const visit = (schema: unknown): void => {
    if (!isObject(schema)) return;
    const ref = schema['$ref'];
    if (typeof ref === 'string') return visit(doc.components.schemas[ref.replace('#/components/schemas/', '')]);
    if (Array.isArray(schema['allOf'])) for (const member of schema['allOf']) visit(member);
    if (isObject(schema['properties'])) for (const key of Object.keys(schema['properties'])) names.add(key);
  };
  const schema = doc.components.schemas[name];
  if (!schema) throw new Error(`the reference has no schema ${name}`);
  visit(schema);
  return [...names];
}
