/**
 * Outgoing mail settings, under the original server's names so that an
 * operator's existing values carry over.
 */
export interface EmailSettings {
  /** SMTP server; unset: mail goes to the outbox folder. */
  host: string | undefined;
  port: number;
  user: string | undefined;
  password: string | undefined;
  /** STARTTLS on a plain connection (port 587). */
  useTls: boolean;
  /** TLS from the first byte (port 465). */
  useSsl: boolean;
  /** The From address; `noreply@<host of EXTERNAL_URL>` when unset. */
  noreplyAddress: string | undefined;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new Error(`${name} must be true or false, got '${env[name]}'`);
}

export function readEmailSettings(env: NodeJS.ProcessEnv): EmailSettings {
  const port = Number(env.EMAIL_PORT || 587);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`EMAIL_PORT must be a port number, got '${env.EMAIL_PORT}'`);
  }
  return {
    host: env.EMAIL_HOST || undefined,
    port,
    user: env.EMAIL_HOST_USER || undefined,
    password: env.EMAIL_HOST_PASSWORD || undefined,
    useTls: flag(env, 'EMAIL_USE_TLS', true),
    useSsl: flag(env, 'EMAIL_USE_SSL', false),
    noreplyAddress: env.NOREPLY_EMAIL_ADDRESS || undefined,
  };
}
