import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Secrets. Passwords are stored as salted scrypt hashes with their cost
 * parameters, so the cost can grow without breaking old hashes. Hashing and
 * verifying happen at the edge or the admin command, never inside an actor:
 * ~50 ms of CPU per call must not block an actor's mailbox.
 */
const COST = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, base64url parts. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * A well-formed hash that no password matches: checked when an account or
 * its password is missing, so that the answer takes as long as a wrong password.
 */
export const DECOY_PASSWORD_HASH =
  'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: COST.maxmem,
  });
  // A damaged stored hash of another length is a mismatch, not a crash (timingSafeEqual throws on it).
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A 32-character API key, as the original server issues them. */
export function generateApiKey(): string {
  // Rejection sampling: bytes past the last whole multiple of 62 would bias the key.
  const limit = 256 - (256 % KEY_ALPHABET.length);
  let key = '';
  while (key.length < 32) {
    for (const byte of randomBytes(48)) {
      if (byte < limit && key.length < 32) key += KEY_ALPHABET[byte % KEY_ALPHABET.length];
    }
  }
  return key;
}

/** Compares secrets in time independent of where they differ. */
export function secretsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
