/** Polls a condition instead of sleeping a guessed time. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 5000, everyMs = 10, what = 'condition' } = {},
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
