import { render } from '@chat/markdown';

const NOTHING_RESOLVED = {
  usersByName: new Map(),
  usersById: new Map(),
  groupsByName: new Map(),
  channelsByName: new Map(),
};

/** Renders a description (realm, channel, folder) in the service's Markdown; mentions stay text. */
export function renderDescription(source: string): string {
  return render(source, NOTHING_RESOLVED).html;
}
