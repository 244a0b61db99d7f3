import MarkdownIt from 'markdown-it';

// Raw HTML off: descriptions are user input and must not carry markup of their own.
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false });

/** Renders a description (realm, channel, folder) to HTML. */
export function renderDescription(source: string): string {
  return markdown.render(source).trim();
}
