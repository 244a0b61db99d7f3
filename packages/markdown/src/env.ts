import type { RenderContext } from './types.js';

/** Per-call state handed to the parser as markdown-it's `env`. */
export interface Env {
  /** Absent when only scanning: rules then record what they see and render nothing special. */
  ctx?: RenderContext;
  found: {
    userNames: Set<string>;
    userIds: Set<number>;
    groupNames: Set<string>;
    channelNames: Set<string>;
  };
  mentioned: Set<number>;
  silent: Set<number>;
  groups: Set<number>;
  channelWildcard: boolean;
  topicWildcard: boolean;
  hasLink: boolean;
  hasImage: boolean;
  uploadPaths: Set<string>;
}

export function newEnv(ctx?: RenderContext): Env {
  const env: Env = {
    found: { userNames: new Set(), userIds: new Set(), groupNames: new Set(), channelNames: new Set() },
    mentioned: new Set(),
    silent: new Set(),
    groups: new Set(),
    channelWildcard: false,
    topicWildcard: false,
    hasLink: false,
    hasImage: false,
    uploadPaths: new Set(),
  };
  if (ctx) env.ctx = ctx;
  return env;
}
