export { defaultOptions, parseOptions, SCENARIOS, type Options, type Scenario } from './config/args.js';
export { run, type RunOutput } from './run.js';
export type { Result } from './report.js';
