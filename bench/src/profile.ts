#!/usr/bin/env node
/**
 * Sums a V8 CPU profile (`node --cpu-prof`, see bench/README.md "Profile")
 * by self time: per function and per file, with each one's share of the
 * sampled time.
 *
 *   node bench/dist/src/profile.js FILE.cpuprofile [--top N] [--from S] [--to S] [--timeline S]
 *
 * `--from`/`--to` keep the samples between those seconds after the profile
 * began (the measured step, without setup); `--timeline S` prints the busy
 * (not idle) time of every S seconds first, to find that window.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface Window {
  from: number;
  to: number;
}

/** Each sample's node id, time since the start and duration, all in microseconds. */
function* samples(profile: Profile): Generator<{ id: number; at: number; us: number }> {
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    yield { id: profile.samples[i]!, at, us };
  }
}

/** Self time in microseconds per profile node id, of the samples inside the window. */
function selfTimes(profile: Profile, window: Window): Map<number, number> {
  const self = new Map<number, number>();
  for (const { id, at, us } of samples(profile)) {
    if (at >= window.from * 1e6 && at < window.to * 1e6) self.set(id, (self.get(id) ?? 0) + us);
  }
  return self;
}

/** Busy milliseconds (neither idle nor the profiler's own) per `seconds` of the profile. */
function timeline(profile: Profile, seconds: number): string {
  const idle = new Set(
    profile.nodes.filter((n) => ['(idle)', '(program)'].includes(n.callFrame.functionName)).map((n) => n.id),
  );
  const busy: number[] = [];
  for (const { id, at, us } of samples(profile)) {
    const slot = Math.floor(at / (seconds * 1e6));
    busy[slot] = (busy[slot] ?? 0) + (idle.has(id) ? 0 : us);
  }
  const lines = [...busy].map(
    (us, i) => `${String(i * seconds).padStart(5)} s  ${((us ?? 0) / 1000).toFixed(0).padStart(6)} ms busy`,
  );
  return ['timeline', ...lines].join('\n');
}

/** A file's name from the repository or node_modules on, or V8's own name for built-ins. */
function fileOf(url: string): string {
  if (url === '') return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) return path.slice(modules);
  const repo = path.search(/\/(packages|actors|bench)\//);
  return repo >= 0 ? path.slice(repo + 1) : path;
}

function table(title: string, totals: Map<string, number>, all: number, top: number): string {
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, top);
  const lines = rows.map(
    ([name, us]) => `${((100 * us) / all).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`,
  );
  return [`${title} (self time, of ${(all / 1000).toFixed(0)} ms sampled)`, ...lines].join('\n');
}

function summarize(profile: Profile, top: number, window: Window): string {
  const self = selfTimes(profile, window);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let all = 0;
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    if (us === 0) continue;
    all += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = fileOf(url);
    const fn = `${functionName || '(anonymous)'}  ${file}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  return `${table('by function', byFunction, all, top)}\n\n${table('by file', byFile, all, top)}`;
}

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/dist/src/profile.js FILE.cpuprofile [--top N]');
  process.exit(2);
}
const option = (name: string, otherwise: number): number => {
  const at = rest.indexOf(name);
  return at >= 0 ? Number(rest[at + 1]) : otherwise;
};
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const step = option('--timeline', 0);
if (step > 0) console.log(`${timeline(profile, step)}\n`);
console.log(summarize(profile, option('--top', 40), { from: option('--from', 0), to: option('--to', Infinity) }));
