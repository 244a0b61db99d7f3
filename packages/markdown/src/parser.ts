import MarkdownIt from 'markdown-it';
import { channelLink } from './channels.js';
import { escapeText } from './escape.js';
import { codeBlockHtml, fencedContainer, languageOf } from './fences.js';
import { emojiName, literalUnderscore } from './inline.js';
import { groupMention, userMention } from './mentions.js';
import { linkifiers } from './linkifiers.js';
import { links, unicodeEmoji } from './postprocess.js';
import { HTML_TOKEN } from './tokens.js';
import { isSafeUrl } from './urls.js';

/** The one parser instance; it holds no per-message state (that travels in `env`), so it is shared. */
export const md = createParser();

function createParser(): MarkdownIt {
  const parser = new MarkdownIt('default', { html: false, linkify: true, breaks: true, typographer: false });

  // Features the original does not have: reference-style links and definitions,
  // setext headings, image embedding by syntax, and <url> autolinks (the original
  // shows the brackets and linkifies what is inside).
  parser.block.ruler.disable(['reference', 'lheading']);
  parser.inline.ruler.disable(['image', 'autolink']);

  parser.validateLink = isSafeUrl;

  parser.block.ruler.before('fence', 'zulip_container', fencedContainer, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  // Before linkify so that "https:smiley:" reads as an emoji, as in the original.
  parser.inline.ruler.before('linkify', 'zulip_user_mention', userMention);
  parser.inline.ruler.before('linkify', 'zulip_group_mention', groupMention);
  parser.inline.ruler.before('linkify', 'zulip_channel_link', channelLink);
  parser.inline.ruler.before('linkify', 'zulip_emoji', emojiName);
  parser.inline.ruler.before('emphasis', 'zulip_underscore', literalUnderscore);
  // Before emoji, as in the original, whose linkifiers come before its emoji patterns.
  parser.core.ruler.after('text_join', 'zulip_linkifiers', linkifiers);
  parser.core.ruler.after('zulip_linkifiers', 'zulip_unicode_emoji', unicodeEmoji);
  parser.core.ruler.after('zulip_unicode_emoji', 'zulip_links', links);

  const rules = parser.renderer.rules;
  rules[HTML_TOKEN] = (tokens, idx) => tokens[idx]!.content;
  // The original leaves quotes unescaped in text and inline code; only markup characters need escaping there.
  rules.text = (tokens, idx) => escapeText(tokens[idx]!.content);
  rules.code_inline = (tokens, idx) => `<code>${escapeText(tokens[idx]!.content)}</code>`;
  rules.fence = (tokens, idx) => {
    const token = tokens[idx]!;
    return codeBlockHtml(token.content, languageOf(parser.utils.unescapeAll(token.info)));
  };
  // The original marks strikethrough with <del>, markdown-it with <s>.
  rules.s_open = () => '<del>';
  rules.s_close = () => '</del>';
  rules.code_block = (tokens, idx) => codeBlockHtml(tokens[idx]!.content);
  return parser;
}
