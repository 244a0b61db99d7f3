/**
 * Edges that serve one cluster. Once `spreadOver` names them, every request
 * a ChatClient sends to any of them goes to the next one in turn, so that
 * consecutive requests of a test cross edges: any state an edge kept for
 * itself would show as a failure.
 */
const groups = new Map<string, { origins: string[]; next: number }>();

export function spreadOver(urls: string[]): () => void {
  const group = { origins: urls.map((url) => new URL(url).origin), next: 0 };
  for (const origin of group.origins) groups.set(origin, group);
  return () => {
    for (const origin of group.origins) groups.delete(origin);
  };
}

/** `url` with its origin replaced by the next edge of its group, if it has one. */
export function nextEdge(url: string): string {
  const parsed = new URL(url);
  const group = groups.get(parsed.origin);
  if (!group) return url;
  const origin = new URL(group.origins[group.next++ % group.origins.length]!);
  parsed.host = origin.host;
  return parsed.toString();
}
