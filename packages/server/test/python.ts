import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Python scripts that drive the server through the official `zulip` package.
 * The scripts stay in test/python (tsc does not copy them), found from
 * dist/test through the package root; the interpreter comes from
 * scripts/python-env.sh, which installs requirements-test.txt once into a cache
 * outside the repository.
 */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const PYTHON_SCRIPTS = `${PACKAGE_ROOT}test/python/`;
const ENV_SCRIPT = `${REPO_ROOT}scripts/python-env.sh`;

let interpreter: Promise<string> | undefined;

/** The interpreter with requirements-test.txt installed; the script runs once per test file (process). */
export function pythonInterpreter(): Promise<string> {
  interpreter ??= promisify(execFile)('bash', [ENV_SCRIPT], { timeout: 10 * 60_000, maxBuffer: 16 << 20 }).then(
    ({ stdout }) => {
      const path = stdout.trim().split('\n').at(-1);
      if (!path) throw new Error(`${ENV_SCRIPT} printed no interpreter`);
      return path;
    },
    (error: Error & { stderr?: string }) => {
      throw new Error(`${ENV_SCRIPT} failed: ${error.message}\n${error.stderr ?? ''}`);
    },
  );
  return interpreter;
}

const environments = new Map<string, Promise<string>>();

/**
 * The interpreter of another requirements file's environment (e.g.
 * requirements-schemathesis.txt), built and cached by the same script;
 * `module` is what the script imports to check the result.
 */
export function pythonEnvironment(requirements: string, module: string): Promise<string> {
  let found = environments.get(requirements);
  if (!found) {
    found = promisify(execFile)('bash', [ENV_SCRIPT, requirements, module], {
      timeout: 10 * 60_000,
      maxBuffer: 16 << 20,
    }).then(
      ({ stdout }) => stdout.trim().split('\n').at(-1) ?? '',
      (error: Error & { stderr?: string }) => {
        throw new Error(`${ENV_SCRIPT} ${requirements} failed: ${error.message}\n${error.stderr ?? ''}`);
      },
    );
    environments.set(requirements, found);
  }
  return found;
}

export interface PythonResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface PythonOptions {
  /** Written to the script's stdin, JSON-encoded unless a string; stdin is closed after it. */
  input?: unknown;
  /** The child is killed (SIGKILL, by pid) when it has not exited after this long. Default 30 s. */
  timeoutMs?: number;
  /** Extra environment variables. */
  env?: Record<string, string>;
}

export interface PythonRun {
  pid: number;
  /** Settles when the child exits; rejects on timeout, with what it printed so far. */
  result: Promise<PythonResult>;
  /** The first line of stdout or stderr matching `pattern` (for a script that says when it is ready). */
  line(pattern: RegExp): Promise<string>;
  kill(): void;
}

/** Starts `test/python/<script>` with the test interpreter. */
export async function startPython(script: string, options: PythonOptions = {}): Promise<PythonRun> {
  const python = await pythonInterpreter();
  const env: NodeJS.ProcessEnv = {};
  // No ZULIP_* settings or ~/.zuliprc of whoever runs the tests reach the client.
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('ZULIP_')) env[name] = value;
  Object.assign(env, {
    ZULIP_CONFIG: '/dev/null/no-zuliprc',
    PYTHONUNBUFFERED: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    ...options.env,
  });
  const child = spawn(python, [`${PYTHON_SCRIPTS}${script}`], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) {
    const error = await new Promise<Error>((resolve) => child.once('error', resolve));
    throw new Error(`cannot start ${python} ${script}: ${error.message}`);
  }

  let stdout = '';
  let stderr = '';
  const lines: string[] = [];
  const watchers: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const partial = { stdout: '', stderr: '' };
  const collect = (stream: 'stdout' | 'stderr', chunk: string) => {
    const parts = (partial[stream] + chunk).split('\n');
    partial[stream] = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const watcher of watchers.filter((w) => w.pattern.test(line))) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve(line);
      }
    }
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    collect('stdout', chunk);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    collect('stderr', chunk);
  });
  // A script that exits without reading all of its input is not an error of ours.
  child.stdin.on('error', () => {});
  if (options.input !== undefined) {
    child.stdin.write(typeof options.input === 'string' ? options.input : JSON.stringify(options.input));
  }
  child.stdin.end();

  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  };
  const timeoutMs = options.timeoutMs ?? 30_000;
  const result = new Promise<PythonResult>((resolve, reject) => {
    // Settles once the child is gone (reaped), so a timeout leaves no process behind.
    const timer = setTimeout(() => {
      child.once('exit', () =>
        reject(new Error(`${script} did not finish in ${timeoutMs} ms; killed.\nstdout: ${stdout}\nstderr: ${stderr}`)),
      );
      kill();
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  // Callers that only use line() must not see an unhandled rejection.
  result.catch(() => {});

  const line = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const existing = lines.find((l) => pattern.test(l));
      if (existing !== undefined) return resolve(existing);
      watchers.push({ pattern, resolve });
      result.then(
        () => reject(new Error(`${script} exited without printing ${pattern}.\nstdout: ${stdout}\nstderr: ${stderr}`)),
        reject,
      );
    });

  return { pid, result, line, kill };
}

/** Runs `test/python/<script>` to its end; its last line of stdout is JSON, returned parsed. */
export async function runPython<T = Record<string, unknown>>(script: string, options: PythonOptions = {}): Promise<T> {
  const run = await startPython(script, options);
  const { code, signal, stdout, stderr } = await run.result;
  if (code !== 0) throw new Error(`${script} exited with ${code ?? signal}.\nstdout: ${stdout}\nstderr: ${stderr}`);
  const last = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as T;
  } catch {
    throw new Error(`${script} did not end with a JSON line.\nstdout: ${stdout}\nstderr: ${stderr}`);
  }
}
