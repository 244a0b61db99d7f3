/**
 * The widget a message's content starts with, as the original reads it when
 * a message is sent: `/poll Question` then one option a line, `/todo Title`
 * then one task a line (`task: description`). Its content is the JSON text
 * the original stores (Python's `json.dumps`: `", "` and `": "` between
 * items, non-ASCII as `\uXXXX`), so clients see the same string.
 */
export type WidgetType = 'poll' | 'todo';

const LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

/** Drops a leading list marker (`- `, `* `), as the original does before an option or task. */
const item = (line: string) => line.trim().replace(/\s*[-*]?\s*/, '');

function parsed(rest: string): { title: string; items: string[] } {
  const lines = rest.split(LINE_BREAK);
  const title = lines[0] ? lines.shift()!.trim() : '';
  return { title, items: lines.map(item).filter((x) => x.length > 0) };
}

function extraData(type: WidgetType, rest: string): object {
  const { title, items } = parsed(rest);
  if (type === 'poll') return { question: title, options: items };
  const tasks = items.map((x) => {
    const cut = x.indexOf(': ');
    return cut < 0 ? { task: x.trim(), desc: '' } : { task: x.slice(0, cut).trim(), desc: x.slice(cut + 2).trim() };
  });
  return { task_list_title: title, tasks };
}

/** The content of the widget submessage a message gets when sent, or undefined. */
export function widgetContent(content: string): string | undefined {
  if (!content.startsWith('/')) return undefined;
  const first = content.split(/\s+/)[0]!;
  const type = first.startsWith('/') ? first.slice(1) : '';
  if (type !== 'poll' && type !== 'todo') return undefined;
  const rest = content.replace(first, '');
  return pythonJson({ widget_type: type, extra_data: extraData(type, rest) });
}

/** JSON as Python's `json.dumps` writes it with its defaults. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
