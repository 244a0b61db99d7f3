#!/usr/bin/env node
// Compares every operation of the reference (../shared/reference/zulip-openapi.yaml) with the
// document this server serves (/api/v1/openapi.json): missing operations, and per operation the
// parameters (missing, extra, required, type, enum) and the reference's documented error
// messages that appear nowhere in the sources. It prints the differences and exits 0: a map
// of what is left, not a gate; differences known to be the reference's own slips
// (REFERENCE_SLIPS) are left out. Run after `npx tsc -b`:
//   node scripts/openapi-diff.mjs [--json] [--only /path/prefix]
// It starts an embedded development server on a free loopback port and stops it at the end.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const asJson = args.includes('--json');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;

const reference = parse(
  await readFile(
    process.env.CHAT_REFERENCE_OPENAPI ?? join(root, '..', 'shared', 'reference', 'zulip-openapi.yaml'),
    'utf8',
  ),
);
const served = await servedDocument();

/** Follows `$ref`s of the reference (only local ones exist). */
function deref(doc, node, seen = 0) {
  while (node && typeof node === 'object' && typeof node.$ref === 'string' && seen++ < 20) {
    node = node.$ref
      .slice(2)
      .split('/')
      .reduce((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return node;
}

/** A schema's type as one word: `integer`, `string|integer`, `array<integer>`, `object`. */
function typeOf(doc, schema, depth = 0) {
  schema = deref(doc, schema);
  if (!schema || depth > 5) return 'any';
  for (const key of ['oneOf', 'anyOf']) {
    if (Array.isArray(schema[key])) {
      const types = [...new Set(schema[key].map((s) => typeOf(doc, s, depth + 1)))].sort();
      return types.join('|');
    }
  }
  if (Array.isArray(schema.allOf)) return typeOf(doc, schema.allOf[0], depth + 1);
  if (schema.type === 'array') return `array<${typeOf(doc, schema.items, depth + 1)}>`;
  if (schema.type === 'number') return 'number';
  return schema.type ?? (schema.properties || schema.additionalProperties ? 'object' : 'any');
}

function enumOf(doc, schema) {
  schema = deref(doc, schema);
  if (!schema) return undefined;
  if (Array.isArray(schema.enum))
    return schema.enum
      .filter((v) => v !== null)
      .map(String)
      .sort();
  if (schema.type === 'array') return enumOf(doc, schema.items);
  return undefined;
}

/** name -> { required, type, enum } of one operation: path and query parameters and the form body. */
function paramsOf(doc, op) {
  const params = {};
  for (const raw of op.parameters ?? []) {
    const p = deref(doc, raw);
    const schema = p.schema ?? p.content?.['application/json']?.schema;
    params[p.name] = { in: p.in, required: !!p.required, type: typeOf(doc, schema), enum: enumOf(doc, schema) };
  }
  const content = deref(doc, op.requestBody)?.content ?? {};
  for (const media of Object.values(content)) {
    const schema = deref(doc, media.schema);
    const required = new Set(schema?.required ?? []);
    for (const [name, s] of Object.entries(schema?.properties ?? {})) {
      if (name === 'filename') continue;
      params[name] = { in: 'body', required: required.has(name), type: typeOf(doc, s), enum: enumOf(doc, s) };
    }
  }
  return params;
}

/** Every `msg` of the examples of the reference's error answers of one operation. */
function errorMessages(doc, op) {
  const found = new Set();
  const walk = (node, depth) => {
    node = deref(doc, node);
    if (!node || typeof node !== 'object' || depth > 12) return;
    if (typeof node.msg === 'string' && node.result === 'error') found.add(node.msg);
    for (const value of Object.values(node)) walk(value, depth + 1);
  };
  for (const [status, response] of Object.entries(op.responses ?? {})) if (!status.startsWith('2')) walk(response, 0);
  return [...found];
}

async function sourceText() {
  const parts = [];
  const visit = async (dir) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'test') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await visit(path);
      else if (entry.name.endsWith('.ts')) parts.push(await readFile(path, 'utf8'));
    }
  };
  for (const top of ['packages', 'actors']) await visit(join(root, top));
  return parts.join('\n');
}

/** Whether the sources hold the message: literally, or its fixed pieces (around quoted or numeric values) in order. */
function inSources(text, msg) {
  if (text.includes(msg)) return true;
  const pieces = msg
    .split(/'[^']*'|"[^"]*"|\b\d+\b/)
    .map((p) => p.trim())
    .filter((p) => p.length >= 6);
  return pieces.length > 0 && pieces.every((p) => text.includes(p));
}

async function servedDocument() {
  const { loadConfig, startServer } = await import(join(root, 'packages/server/dist/src/index.js'));
  const dataDir = await mkdtemp(join(tmpdir(), 'openapi-diff-'));
  const server = await startServer(loadConfig({}, { port: 0, dataDir, logLevel: 'silent' }));
  try {
    const reply = await fetch(`${server.url}/api/v1/openapi.json`);
    return await reply.json();
  } finally {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Differences where the reference is wrong and the original behaves as served, left out of the report:
 * parameters the original's views require (it answers "Missing 'name' argument") that the reference marks
 * optional, `web_channel_default_view`, whose enum drops 3 ("List of topics") that its own text lists, and
 * error examples the original's code never says: a blank snippet title is "title cannot be blank"
 * (typed_endpoint's min_length=1), a used address "Email '…' already in use" (create_user_backend), and
 * "Guests cannot be organization administrators" was only said by the is_admin/is_guest API that `role` replaced.
 */
const REFERENCE_SLIPS = new Set([
  'POST /reminders: message_id: required false in the reference, true here',
  'POST /reminders: scheduled_delivery_timestamp: required false in the reference, true here',
  'POST /channel_folders/create: name: required false in the reference, true here',
  'PATCH /channel_folders: order: required false in the reference, true here',
  'PATCH /settings: web_channel_default_view: enum [1,2,4] in the reference, [1,2,3,4] here',
  'POST /saved_snippets: error message not in the sources: "Title cannot be empty."',
  'POST /users: error message not in the sources: "Email is already in use."',
  'PATCH /users/{email}: error message not in the sources: "Guests cannot be organization administrators"',
  'PATCH /users/{user_id}: error message not in the sources: "Guests cannot be organization administrators"',
]);

const text = await sourceText();
const servedOps = new Map();
for (const [path, ops] of Object.entries(served.paths)) {
  for (const [method, op] of Object.entries(ops))
    servedOps.set(`${method.toUpperCase()} ${path.replace(/^\/api\/v1/, '')}`, op);
}

const report = { missing: [], operations: [] };
for (const [path, ops] of Object.entries(reference.paths)) {
  if (only && !path.startsWith(only)) continue;
  for (const [method, op] of Object.entries(ops)) {
    if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
    const name = `${method.toUpperCase()} ${path}`;
    const ours = servedOps.get(name);
    if (!ours) {
      report.missing.push(name);
      continue;
    }
    const want = paramsOf(reference, op);
    const have = paramsOf(served, ours);
    const diffs = [];
    for (const [param, w] of Object.entries(want)) {
      const h = have[param];
      if (!h) {
        diffs.push(`missing parameter ${param} (${w.required ? 'required' : 'optional'} ${w.type})`);
        continue;
      }
      if (w.required !== h.required)
        diffs.push(`${param}: required ${w.required} in the reference, ${h.required} here`);
      if (w.type !== h.type && w.type !== 'any')
        diffs.push(`${param}: type ${w.type} in the reference, ${h.type} here`);
      if (w.enum && JSON.stringify(w.enum) !== JSON.stringify(h.enum ?? w.enum)) {
        diffs.push(`${param}: enum [${w.enum}] in the reference, [${h.enum}] here`);
      }
    }
    for (const param of Object.keys(have)) if (!(param in want)) diffs.push(`extra parameter ${param}`);
    for (const msg of errorMessages(reference, op)) {
      if (!inSources(text, msg)) diffs.push(`error message not in the sources: "${msg}"`);
    }
    const kept = diffs.filter((d) => !REFERENCE_SLIPS.has(`${name}: ${d}`));
    if (kept.length) report.operations.push({ operation: name, differences: kept });
  }
}

if (asJson) console.log(JSON.stringify(report, null, 2));
else {
  for (const name of report.missing) console.log(`not served: ${name}`);
  for (const { operation, differences } of report.operations) {
    console.log(operation);
    for (const d of differences) console.log(`  ${d}`);
  }
  const count = report.operations.reduce((n, o) => n + o.differences.length, 0);
  console.log(
    `\n${report.missing.length} operations not served; ${count} differences in ${report.operations.length} operations`,
  );
}
