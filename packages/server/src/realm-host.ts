/**
 * Realms are told apart by subdomain, as in the original server: a request
 * to `acme.chat.example.com` is for realm `acme` when the server's external
 * host is `chat.example.com`. Any other host gets the default realm, which
 * is what a single-organization server (and `localhost`) wants.
 */
export function realmResolver(externalUrl: string, defaultRealm: string): (request: { host: string }) => string {
  const external = new URL(externalUrl).hostname.toLowerCase();
  const suffix = `.${external}`;
  return ({ host }) => {
    const hostname = host.replace(/:\d+$/, '').toLowerCase();
    if (hostname.endsWith(suffix)) {
      const sub = hostname.slice(0, -suffix.length);
      if (/^[a-z0-9-]+$/.test(sub)) return sub;
    }
    return defaultRealm;
  };
}
