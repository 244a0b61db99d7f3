import { ChatError } from '@chat/protocol';
import { pythonJson } from './parse.js';

/**
 * `widget_content` of `POST /messages`: a widget given whole by the sender
 * (bots use it for button menus). As the original (`check_widget_content`),
 * only a zform of `choices` is taken; every complaint is prefixed "Widgets: ".
 * Answers the content of the message's `widget` submessage.
 */
export function widgetFromRequest(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse('API programmer sent invalid JSON content');
  }
  const problem = problemOf(value);
  if (problem) throw refuse(problem);
  const { widget_type, extra_data } = value as { widget_type: unknown; extra_data: unknown };
  return pythonJson({ widget_type, extra_data });
}

const refuse = (msg: string) => new ChatError('BAD_REQUEST', `Widgets: ${msg}`);

const isDict = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Python's `str()` of a JSON value, as the original's messages show one. */
const pythonStr = (v: unknown) => (typeof v === 'string' ? v : v === null ? 'None' : JSON.stringify(v));

/** The original's `check_dict` with string values: these keys at least, each a string. */
function strings(what: string, value: unknown, keys: string[]): string | undefined {
  if (!isDict(value)) return `${what} is not a dict`;
  for (const key of keys) {
    if (!(key in value)) return `${key} key is missing from ${what}`;
    if (typeof value[key] !== 'string') return `${what}["${key}"] is not a string`;
  }
  return undefined;
}

function problemOf(content: unknown): string | undefined {
  if (!isDict(content)) return 'widget_content is not a dict';
  if (!('widget_type' in content)) return 'widget_type is not in widget_content';
  if (!('extra_data' in content)) return 'extra_data is not in widget_content';
  const extra = content.extra_data;
  if (!isDict(extra)) return 'extra_data is not a dict';
  if (content.widget_type !== 'zform') return `unknown widget type: ${pythonStr(content.widget_type)}`;
  if (!('type' in extra)) return 'zform is missing type field';
  if (extra.type !== 'choices') return `unknown zform type: ${pythonStr(extra.type)}`;
  if (!('heading' in extra)) return 'heading key is missing from extra_data';
  if (typeof extra.heading !== 'string') return 'extra_data["heading"] is not a string';
  if (!('choices' in extra)) return 'choices key is missing from extra_data';
  const choices = extra.choices;
  if (!Array.isArray(choices)) return 'extra_data["choices"] is not a list';
  for (const [i, choice] of choices.entries()) {
    const problem = strings(`extra_data["choices"][${i}]`, choice, ['short_name', 'long_name', 'reply']);
    if (problem) return problem;
  }
  return undefined;
}
