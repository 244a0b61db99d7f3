import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * A registry per server rather than prom-client's global one, so that two
 * edges in one process (as in tests) never share or double-register metrics.
 * The server adds its own metrics to the same registry.
 */
export function createMetricsRegistry(options: { processMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}

export interface EdgeMetrics {
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
}

/** Registers the edge's metrics, or reuses them when this registry already has them. */
export function edgeMetrics(registry: Registry): EdgeMetrics {
  const requests =
    (registry.getSingleMetric('http_requests_total') as EdgeMetrics['requests'] | undefined) ??
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric('http_request_duration_seconds') as EdgeMetrics['duration'] | undefined) ??
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time the edge took to produce a response, by method and route template.',
      labelNames: ['method', 'route'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });
  return { requests, duration };
}
