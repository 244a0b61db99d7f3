import type { StateBlock } from 'markdown-it';
import { escapeAttr } from './escape.js';
import { pushBlockHtml } from './tokens.js';

interface Fence {
  marker: number;
  length: number;
  info: string;
}

/** The fence opening or closing at a line, read the way markdown-it's own fence rule reads it. */
function fenceAt(state: StateBlock, line: number): Fence | undefined {
  if (state.sCount[line]! - state.blkIndent >= 4) return undefined;
  const start = state.bMarks[line]! + state.tShift[line]!;
  const max = state.eMarks[line]!;
  const marker = state.src.charCodeAt(start);
  if (marker !== 0x7e /* ~ */ && marker !== 0x60 /* ` */) return undefined;
  const end = state.skipChars(start, marker);
  if (end - start < 3) return undefined;
  const info = state.src.slice(end, max);
  // "```a```" is inline code, not a fence.
  if (marker === 0x60 && info.includes('`')) return undefined;
  return { marker, length: end - start, info: info.trim() };
}

const CONTAINERS = new Set(['quote', 'spoiler']);

function kindOf(info: string): string {
  return (info.split(/\s+/, 1)[0] ?? '').replace(/^\./, '').toLowerCase();
}

/**
 * Fenced ```quote and ```spoiler blocks hold Markdown, so unlike code fences
 * their body is parsed as blocks. Fences nested inside are tracked so that the
 * end of an inner code block does not end the container.
 */
export function fencedContainer(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const open = fenceAt(state, startLine);
  if (!open) return false;
  const kind = kindOf(open.info);
  if (!CONTAINERS.has(kind)) return false;
  if (silent) return true;

  const stack: Array<Fence & { code: boolean }> = [{ ...open, code: false }];
  let line = startLine + 1;
  let closed = false;
  for (; line < endLine; line++) {
    const indentedLess =
      state.sCount[line]! < state.blkIndent && state.bMarks[line]! + state.tShift[line]! < state.eMarks[line]!;
    if (indentedLess) break;
    const fence = fenceAt(state, line);
    if (!fence) continue;
    const top = stack[stack.length - 1]!;
    if (fence.info === '' && fence.marker === top.marker && fence.length >= top.length) {
      stack.pop();
      if (stack.length === 0) {
        closed = true;
        break;
      }
      continue;
    }
    if (!top.code) stack.push({ ...fence, code: !CONTAINERS.has(kindOf(fence.info)) });
  }

  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  // Inner rules must neither see past the closing fence nor treat the body as a paragraph continuation.
  state.parentType = 'blockquote';
  state.lineMax = line;
  if (kind === 'quote') {
    const openToken = state.push('blockquote_open', 'blockquote', 1);
    openToken.map = [startLine, line];
    state.md.block.tokenize(state, startLine + 1, line);
    state.push('blockquote_close', 'blockquote', -1);
  } else {
    const header = open.info.slice(open.info.split(/\s+/, 1)[0]!.length).trim();
    pushBlockHtml(state, '<div class="spoiler-block"><div class="spoiler-header">\n');
    if (header) {
      state.push('paragraph_open', 'p', 1).map = [startLine, startLine + 1];
      const inline = state.push('inline', '', 0);
      inline.content = header;
      inline.map = [startLine, startLine + 1];
      inline.children = [];
      state.push('paragraph_close', 'p', -1);
    }
    pushBlockHtml(state, '</div><div class="spoiler-content" aria-hidden="true">\n');
    state.md.block.tokenize(state, startLine + 1, line);
    pushBlockHtml(state, '</div></div>\n');
  }
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = line + (closed ? 1 : 0);
  return true;
}

// The original names a block's language by its highlighter's lexer name; these
// are the common aliases. Anything else is kept as written, as the original does
// for languages it does not know.
const LANGUAGES: Record<string, string> = {
  bash: 'Bash',
  sh: 'Bash',
  shell: 'Bash',
  zsh: 'Bash',
  c: 'C',
  'c++': 'C++',
  cpp: 'C++',
  'c#': 'C#',
  csharp: 'C#',
  css: 'CSS',
  diff: 'Diff',
  go: 'Go',
  golang: 'Go',
  html: 'HTML',
  java: 'Java',
  javascript: 'JavaScript',
  js: 'JavaScript',
  json: 'JSON',
  kotlin: 'Kotlin',
  latex: 'TeX',
  markdown: 'Markdown',
  md: 'Markdown',
  php: 'PHP',
  py: 'Python',
  py3: 'Python',
  python: 'Python',
  python3: 'Python',
  rb: 'Ruby',
  ruby: 'Ruby',
  rs: 'Rust',
  rust: 'Rust',
  sql: 'SQL',
  swift: 'Swift',
  tex: 'TeX',
  text: 'Text only',
  ts: 'TypeScript',
  typescript: 'TypeScript',
  xml: 'XML',
  yaml: 'YAML',
  yml: 'YAML',
};

export function languageOf(info: string): string | undefined {
  const word = (info.trim().split(/\s+/, 1)[0] ?? '').replace(/^\./, '');
  if (!word) return undefined;
  return LANGUAGES[word.toLowerCase()] ?? word;
}

/** Code blocks escape quotes too, and drop trailing whitespace on each line, as the original's highlighter does. */
export function codeBlockHtml(content: string, language?: string): string {
  const body = escapeAttr(content.replace(/[ \t]+$/gm, ''));
  const lang = language === undefined ? '' : ` data-code-language="${escapeAttr(language)}"`;
  return `<div class="codehilite"${lang}><pre><span></span><code>${body}</code></pre></div>\n`;
}
