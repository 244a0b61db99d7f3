import { pino, type ChildLoggerOptions, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

const SECRETS = ['password', 'api_key', 'old_password', 'new_password'];

/**
 * Secrets never reach a log line, at whatever depth a handler logs them
 * (`{ params: { password } }`, `{ req: { headers: { authorization } } }`).
 * The edge applies these to the logger it is given; a server's own logger
 * can use them too.
 */
export const REDACT_PATHS: readonly string[] = [
  ...SECRETS.flatMap((name) => [name, `*.${name}`, `*.*.${name}`]),
  'headers.authorization',
  '*.headers.authorization',
  '*.*.headers.authorization',
];

export const redaction = { paths: [...REDACT_PATHS], censor: '[redacted]' };

/** A JSON-lines logger with the edge's redaction; options pass through to pino (stdout by default). */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const withSecretsHidden = { ...options, redact: redaction };
  return destination ? pino(withSecretsHidden, destination) : pino(withSecretsHidden);
}

/** The given logger, with redaction added for everything the edge and its handlers log. */
export const withRedaction = (logger: Logger): Logger => logger.child({}, { redact: redaction });

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace']);
const noop = () => {};
/** A lazy child's real logger, made on asking. */
const REAL = Symbol('real logger');

/**
 * `parent.child(bindings)`, made only when something is logged through it:
 * a child of a redacting logger costs its bindings' serialization and
 * redaction, which a request paid whether or not it logged (about 4% of the
 * server's busy time in a chat run at `warn`). Until then a level that is
 * off answers pino's own no-op, the level questions go to the parent, and a
 * child of it is lazy too.
 */
export function lazyChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  return new Proxy(parent, new LazyChild(parent, bindings));
}

/** The handler of a lazy child (one object per child: a request makes two). */
class LazyChild implements ProxyHandler<Logger> {
  private child: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
  ) {}

  private made(): Logger {
    const base = (this.parent as Logger & { [REAL]?: Logger })[REAL] ?? this.parent;
    return (this.child ??= base.child(this.bindings));
  }

  get(target: Logger, prop: string | symbol, receiver: unknown): unknown {
    if (prop === REAL) return this.made();
    if (this.child === undefined) {
      if (prop === 'child') {
        return (more: Record<string, unknown>, options?: ChildLoggerOptions) =>
          options ? this.made().child(more, options) : lazyChild(receiver as Logger, more);
      }
      if (prop === 'isLevelEnabled') return target.isLevelEnabled.bind(target);
      if (prop === 'level' || prop === 'levelVal') return Reflect.get(target, prop);
      if (typeof prop === 'string' && LEVELS.has(prop) && !target.isLevelEnabled(prop)) return noop;
    }
    const real = this.made();
    const value: unknown = Reflect.get(real, prop, real);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(real) : value;
  }

  set(_target: Logger, prop: string | symbol, value: unknown): boolean {
    return Reflect.set(this.made(), prop, value);
  }
}
