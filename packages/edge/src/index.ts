export { createEdgeApp, type EdgeAppOptions, type RawHandler } from './app.js';
export {
  defineRoute,
  type AuthMode,
  type HandlerContext,
  type HandlerResult,
  type HttpMethod,
  type Principal,
  type RequestInfo,
  type Route,
  type RouteSpec,
  type UploadedFile,
} from './route.js';
export {
  basicCredentials,
  type Authenticate,
  type AuthRequest,
  type Credentials,
  type SessionAuthenticate,
} from './auth.js';
export {
  checkCsrf,
  CSRF_COOKIE,
  CSRF_HEADER,
  isCsrfSecret,
  maskCsrfSecret,
  newCsrfSecret,
  parseCookies,
  SESSION_COOKIE,
  setCookie,
  type CookieOptions,
} from './csrf.js';
export type { BodyLimits } from './body.js';
export {
  DEFAULT_RATE_LIMITS,
  RateLimiter,
  type RateLimitRule,
  type RateLimitSettings,
  type RateLimitStores,
  type RequestLimits,
} from './rate-limit.js';
export { MemoryRateLimitStore, type RateLimitHit, type RateLimitStore } from './rate-limit-store.js';
export { buildOpenApi, openApiSchema, type OpenApiInfo } from './openapi.js';
export { createMetricsRegistry, edgeMetrics, type EdgeMetrics } from './metrics.js';
export { createLogger, REDACT_PATHS } from './logger.js';
export { requestIdOf } from './observe.js';
export {
  Admission,
  classify,
  decide,
  DEFAULT_ADMISSION,
  LagMonitor,
  overloaded,
  SHED_FLOOR,
  slowRoute,
  type AdmissionSettings,
  type Load,
  type RequestClass,
  type Verdict,
} from './admission.js';
export { MIN_ANSWERS, Quickest } from './quickest.js';
export { Limit } from './limit.js';
export { scopedActors } from './pipeline.js';
export { RawBytes, RawJson } from './raw-json.js';
export type { EdgeState } from './state.js';
