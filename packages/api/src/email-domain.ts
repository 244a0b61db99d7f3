/**
 * The domain of the addresses the server makes up: hidden users' placeholders
 * (`user<id>@...`) and bots' addresses. As the original's
 * `get_fake_email_domain`: the server's host (port included) when it can
 * end a mail address, else `FAKE_EMAIL_DOMAIN` (by default the host without
 * its port). A host like `localhost:9991` thus gives `localhost`.
 */
export function fakeEmailDomain(externalUrl: string, configured?: string): string {
  const url = new URL(externalUrl);
  if (isMailDomain(url.host)) return url.host;
  return configured ?? url.hostname;
}

/** What Django's `validate_email` accepts after the @ (less IDNs and [literal] addresses): `localhost`, or a dotted name. */
export function isMailDomain(domain: string): boolean {
  if (domain.toLowerCase() === 'localhost') return true;
  return /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}(?<!-)$/i.test(domain);
}

/** The original's refusal of a `FAKE_EMAIL_DOMAIN` that cannot end an address; undefined when it can. */
export function fakeEmailDomainProblem(domain: string): string | undefined {
  if (isMailDomain(domain)) return undefined;
  return `${domain} is not a valid domain. Consider setting the FAKE_EMAIL_DOMAIN setting.`;
}
