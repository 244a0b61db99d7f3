import { Ajv, type ValidateFunction } from 'ajv';
import { describeErrors } from './errors.js';
import { definitionName, isObject, Normalizer, REFERENCE_ID } from './normalize.js';
import { findOperation, referencePathOf } from './paths.js';
import { loadReference, type OpenApiDocument, type RawSchema } from './reference.js';

export interface SchemaCheck {
  ok: boolean;
  errors: string[];
}

/** One acceptable shape; a body is valid if it fits any alternative of its operation and status. */
interface Alternative {
  label: string;
  schema: RawSchema;
  validate?: ValidateFunction;
}

interface EventShape extends Alternative {
  types: unknown[];
  /** `undefined`: the shape has no `op`; `'any'`: an `op` of any value. */
  ops: unknown[] | 'any' | undefined;
}

class Reference {
  private readonly ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
  private readonly normalizer: Normalizer;
  private readonly definitions: Record<string, RawSchema>;
  private readonly responses = new Map<string, Alternative[] | string>();
  private events: EventShape[] | undefined;

  constructor(private readonly doc: OpenApiDocument) {
    this.normalizer = new Normalizer(doc.components.schemas);
    this.definitions = this.normalizer.definitions();
    this.ajv.addSchema({ $id: REFERENCE_ID, definitions: this.definitions });
  }

  /** Follows `$ref`-only schemas to the definition they name. */
  private deref(schema: unknown): RawSchema | undefined {
    let current = schema;
    for (let hops = 0; isObject(current) && hops < 50; hops++) {
      const name = definitionName(current['$ref']);
      if (name === undefined) return current;
      current = this.definitions[name];
    }
    return undefined;
  }

  /** A top-level `anyOf` (e.g. a 400 that may be one of several errors) is split so errors name the closest one. */
  private alternatives(schema: RawSchema, label: string): Alternative[] {
    const target = this.deref(schema);
    const branches = target && Object.keys(target).length === 1 ? target['anyOf'] : undefined;
    if (!Array.isArray(branches)) return [{ label, schema }];
    return branches.flatMap((branch: RawSchema, i) =>
      this.alternatives(branch, definitionName(branch['$ref']) ?? `${label} alternative ${i + 1}`),
    );
  }

  private run(alternatives: Alternative[], body: unknown): SchemaCheck {
    let closest: string[] | undefined;
    for (const alternative of alternatives) {
      alternative.validate ??= this.ajv.compile(alternative.schema);
      if (alternative.validate(body)) return { ok: true, errors: [] };
      const errors = describeErrors(alternative.validate.errors ?? []);
      const labelled = alternatives.length > 1 ? errors.map((e) => `[${alternative.label}] ${e}`) : errors;
      if (!closest || labelled.length < closest.length) closest = labelled;
    }
    return { ok: false, errors: closest ?? ['no schema to validate against'] };
  }

  private responseAlternatives(method: string, path: string, status: number): Alternative[] | string {
    const op = findOperation(this.doc, method, path);
    const request = `${method.toUpperCase()} ${referencePathOf(path)}`;
    if (!op) return `the reference has no operation matching ${request}`;
    const key = `${op.method} ${op.template} ${status}`;
    let cached = this.responses.get(key);
    if (cached === undefined) {
      cached = this.buildResponse(op.template, op.operation, method, status);
      this.responses.set(key, cached);
    }
    return cached;
  }

  private buildResponse(
    template: string,
    operation: RawSchema,
    method: string,
    status: number,
  ): Alternative[] | string {
    const where = `${method.toUpperCase()} ${template}`;
    const responses = isObject(operation['responses']) ? operation['responses'] : {};
    let response = responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses['default'];
    const ref = isObject(response) ? response['$ref'] : undefined;
    if (typeof ref === 'string') response = this.doc.components.responses?.[ref.split('/').pop()!];
    if (!isObject(response)) {
      return `the reference documents no ${status} response for ${where} (only ${Object.keys(responses).join(', ')})`;
    }
    const content = isObject(response['content']) ? response['content'] : {};
    const json = content['application/json'];
    if (!isObject(json) || !isObject(json['schema'])) {
      return `the reference's ${status} response for ${where} has no application/json schema`;
    }
    return this.alternatives(this.normalizer.normalize(json['schema']), `${where} ${status}`);
  }

  checkResponse(method: string, path: string, status: number, body: unknown): SchemaCheck {
    const alternatives = this.responseAlternatives(method, path, status);
    return typeof alternatives === 'string' ? { ok: false, errors: [alternatives] } : this.run(alternatives, body);
  }

  /** The event shapes, read from the GET /events response: `events` is an array of one of them. */
  private eventShapes(): EventShape[] {
    if (this.events) return this.events;
    const response = this.responseAlternatives('get', '/events', 200);
    if (typeof response === 'string' || response.length !== 1)
      throw new Error('the reference has no GET /events schema');
    const envelope = this.deref(response[0]!.schema);
    const events = this.deref(isObject(envelope?.['properties']) ? envelope['properties']['events'] : undefined);
    const inner = this.deref(events?.['items']);
    const branches = Array.isArray(inner?.['anyOf']) ? (inner['anyOf'] as RawSchema[]) : [];
    this.events = branches.map((schema, i) => {
      const shape = this.deref(schema);
      const properties = isObject(shape?.['properties']) ? shape['properties'] : {};
      const types = this.deref(properties['type'])?.['enum'];
      const op = this.deref(properties['op']);
      return {
        label: definitionName(schema['$ref']) ?? `event ${i + 1}`,
        schema,
        types: Array.isArray(types) ? types : [],
        ops: op === undefined ? undefined : Array.isArray(op['enum']) ? op['enum'] : 'any',
      };
    });
    return this.events;
  }

  checkEvent(event: unknown): SchemaCheck {
    if (!isObject(event)) return { ok: false, errors: ['(event): must be an object'] };
    const { type, op } = event;
    if (typeof type !== 'string') return { ok: false, errors: ['/type: missing or not a string'] };
    const ofType = this.eventShapes().filter((shape) => shape.types.includes(type));
    if (ofType.length === 0)
      return { ok: false, errors: [`/type: the reference has no event of type ${JSON.stringify(type)}`] };
    // The event shapes declare almost no required fields, so `op` is enforced here: where every shape of a
    // type declares one, it is what tells them apart, and an event without it fits none of them.
    const candidates = ofType.filter((shape) =>
      op === undefined ? shape.ops === undefined : shape.ops === 'any' || shape.ops?.includes(op),
    );
    if (candidates.length === 0) {
      const known = ofType.flatMap((shape) => (Array.isArray(shape.ops) ? shape.ops : []));
      const problem = op === undefined ? 'needs an op' : `has no op ${JSON.stringify(op)}`;
      return {
        ok: false,
        errors: [`/op: event type ${JSON.stringify(type)} ${problem} (known: ${known.join(', ') || 'none'})`],
      };
    }
    return this.run(candidates, event);
  }
}

let reference: Reference | undefined;

function shared(): Reference {
  reference ??= new Reference(loadReference());
  return reference;
}

/** Validates a JSON response body against the reference's schema for this operation and HTTP status. */
export function checkResponse(method: string, path: string, status: number, body: unknown): SchemaCheck {
  return shared().checkResponse(method, path, status, body);
}

/** Same, throwing an Error listing the problems (path of each bad field) when invalid. */
export function assertResponse(method: string, path: string, status: number, body: unknown): void {
  const { ok, errors } = checkResponse(method, path, status, body);
  if (!ok) {
    throw new Error(
      `${method.toUpperCase()} ${path} ${status}: body does not match the reference\n  ${errors.join('\n  ')}`,
    );
  }
}

/** Validates one event object against the GET /events event shapes, chosen by its `type` and `op`. */
export function checkEvent(event: unknown): SchemaCheck {
  return shared().checkEvent(event);
}

/**
 * Throws unless every event matches the reference. `local_message_id`, which
 * the original sends to the queue that sent a message and the reference's
 * event schema leaves out, is set aside first.
 */
export function assertEvents(events: Array<Record<string, unknown>>): void {
  for (const { local_message_id: _local, ...event } of events) {
    const { ok, errors } = checkEvent(event);
    if (!ok) throw new Error(`event ${String(event.type)} does not match the reference: ${errors.join('; ')}`);
  }
}
