import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import anyTest, { type TestFn } from 'ava';
import { pythonEnvironment } from './python.js';
import { tempDir, TestServer } from './support.js';

/**
 * schemathesis (requirements-schemathesis.txt) generates requests from the
 * server's own GET /api/v1/openapi.json, valid and invalid, including
 * stateful sequences along the document's links, and checks every answer.
 * The checks are those our document can honestly promise: no server error,
 * a declared status and content type, and bodies matching the declared
 * success and error schemas. (positive_data_acceptance and
 * negative_data_rejection are left out: the document does not describe
 * permissions or which ids exist, so schema-valid requests are refused.)
 */
const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'response_headers_conformance',
];
const MAX_EXAMPLES = 10;
const MAX_SECONDS = 60;

interface Report {
  exit_code: number;
  operations: { total: number; selected: number; tested: number; errored: number };
  test_cases: { generated: number; with_failures: number; errored: number };
  failures: unknown[];
  errors: unknown[];
}

const test = anyTest as TestFn<{ server: TestServer; python: string; dir: string }>;

test.before(async (t) => {
  // The first run installs schemathesis from PyPI (about 30 s); later runs reuse the environment.
  t.timeout(10 * 60_000);
  const [server, python, dir] = await Promise.all([
    TestServer.start({ heartbeatMs: 2000, passivateAfterMs: 2000 }),
    pythonEnvironment('requirements-schemathesis.txt', 'schemathesis'),
    tempDir('schemathesis'),
  ]);
  Object.assign(t.context, { server, python, dir });
});
test.after.always(async (t) => {
  await t.context.server?.stop();
  if (t.context.dir) await rm(t.context.dir, { recursive: true, force: true });
});

// Every operation is served under /json too (the original's web app's form), with the same credentials.
for (const base of ['/api/v1', '/json']) {
  test.serial(
    `schemathesis finds no server error and no answer that breaks the served OpenAPI document (${base})`,
    async (t) => {
      t.timeout((MAX_SECONDS + 180) * 1000);
      const { server, python, dir } = t.context;
      const url = server.server.url;
      const hamlet = await server.login('hamlet@zulip.com');
      const reportPath = join(dir, `report${base.replace(/\//g, '-')}.json`);
      const args = [
        ...['-m', 'schemathesis.cli', 'run', `${url}/api/v1/openapi.json`, '--url', `${url}${base}`],
        ...['--auth', `${hamlet.credentials!.email}:${hamlet.credentials!.apiKey}`],
        ...['--checks', CHECKS.join(','), '--max-examples', String(MAX_EXAMPLES), '--seed', '1'],
        ...['--max-time', String(MAX_SECONDS), '--request-timeout', '15'],
        // A new API key would turn every later request into a 401.
        ...['--exclude-path', '/users/me/api_key/regenerate'],
        // Deactivating the caller's own account would too.
        ...['--exclude-name-regex', '^DELETE .*/users/me$'],
        ...['--generation-database', 'none', '--no-color', '--report', 'json', '--report-json-path', reportPath],
      ];
      // Run in the temporary folder: schemathesis writes .hypothesis and .schemathesis where it runs.
      const run = await promisify(execFile)(python, args, {
        cwd: dir,
        timeout: (MAX_SECONDS + 120) * 1000,
        killSignal: 'SIGKILL',
        maxBuffer: 64 << 20,
      }).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (err: Error & { code?: number | string; stdout?: string; stderr?: string }) => ({
          code: err.code ?? err.message,
          stdout: `${err.stdout ?? ''}\n${err.stderr ?? ''}`,
        }),
      );
      const report = JSON.parse(await readFile(reportPath, 'utf8').catch(() => 'null')) as Report | null;
      if (report) {
        const { operations, test_cases: cases } = report;
        t.log(`${operations.tested} of ${operations.total} operations tested, ${cases.generated} test cases`);
        t.log(`${cases.with_failures} with failures, ${cases.errored} errored, ${report.errors.length} errors`);
      }
      if (run.code !== 0) t.log(run.stdout.slice(-8000));
      t.is(run.code, 0);
      t.truthy(report, 'no report written');
      // A document that lost its operations would pass vacuously. (How many were tested depends on
      // how far the time bound let it get on a busy machine; every one is on a quiet one.)
      t.true((report?.operations.selected ?? 0) >= 50);
      t.true((report?.operations.tested ?? 0) > 0);
    },
  );
}
