import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

/**
 * Package boundaries, checked on the sources: a package imports another only
 * through an entry its package.json exports (`.`, or a subpath such as
 * `@chat/runtime/testkit`), only if its package.json declares it, and the
 * graph of packages has no cycle.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

interface Workspace {
  name: string;
  dir: string;
  declared: Set<string>;
  /** The import specifiers its `exports` allows: the name itself and each declared subpath. */
  entries: Set<string>;
}

async function workspaces(): Promise<Workspace[]> {
  const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return Promise.all(
    root.workspaces.map(async (dir) => {
      const pkg = JSON.parse(await readFile(join(ROOT, dir, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
        exports?: Record<string, unknown>;
      };
      const entries = new Set(Object.keys(pkg.exports ?? { '.': null }).map((sub) => join(pkg.name, sub)));
      return {
        name: pkg.name,
        dir,
        declared: new Set(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })),
        entries,
      };
    }),
  );
}

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => !file.includes('/dist/') && !file.includes('/node_modules/'));
}

const IMPORT = /(?:import|export)[^'"]*from\s+'(@chat\/[^']+)'|import\('(@chat\/[^']+)'\)/g;

test('packages import each other only through declared public entries, without cycles', async (t) => {
  const all = await workspaces();
  const names = new Set(all.map((w) => w.name));
  const entries = new Set(all.flatMap((w) => [...w.entries]));
  const edges = new Map<string, Set<string>>();
  const problems: string[] = [];
  for (const ws of all) {
    const uses = new Set<string>();
    for (const part of ['src', 'test']) {
      for (const file of await sources(join(ROOT, ws.dir, part))) {
        const text = await readFile(file, 'utf8');
        for (const match of text.matchAll(IMPORT)) {
          const spec = (match[1] ?? match[2])!;
          const target = spec.split('/').slice(0, 2).join('/');
          const where = relative(ROOT, file);
          if (spec !== target && !entries.has(spec)) problems.push(`${where}: deep import of ${spec}`);
          if (!names.has(target)) problems.push(`${where}: ${target} is not a workspace`);
          else if (!ws.declared.has(target) && target !== ws.name) {
            // Test-only projects may use siblings they do not ship with.
            if (part === 'src') problems.push(`${where}: ${target} is not in ${ws.name}'s dependencies`);
          }
          if (part === 'src') uses.add(target);
        }
      }
    }
    edges.set(ws.name, uses);
  }
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (name: string, path: string[]): void => {
    if (done.has(name)) return;
    if (visiting.has(name)) {
      problems.push(`cycle: ${[...path, name].join(' -> ')}`);
      return;
    }
    visiting.add(name);
    for (const next of edges.get(name) ?? []) visit(next, [...path, name]);
    visiting.delete(name);
    done.add(name);
  };
  for (const name of edges.keys()) visit(name, []);
  t.deepEqual(problems, []);
  t.true(edges.size >= 8, `only ${edges.size} workspaces found`);
});
