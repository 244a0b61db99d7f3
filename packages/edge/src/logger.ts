import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

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
