import { ChatError } from '@chat/protocol';
import type { WidgetType } from './parse.js';

/**
 * The checks the original makes on a submessage to a poll or todo widget,
 * with its messages (`validate_poll_data`, `validate_todo_data`). Only the
 * message's sender may change a poll's question or a todo list's title.
 */

/** As the original's client widgets: option and task indexes stay below this. */
const MAX_IDX = 1000;

type Check = (name: string, value: unknown) => string | undefined;

/** Python counts booleans as integers: the original's checks let them through as 1 and 0. */
const asInt = (v: unknown) => (typeof v === 'boolean' ? Number(v) : Number.isInteger(v) ? (v as number) : undefined);

const string: Check = (name, v) => (typeof v === 'string' ? undefined : `${name} is not a string`);
const boolean: Check = (name, v) => (typeof v === 'boolean' ? undefined : `${name} is not a boolean`);
const intIn =
  (allowed: number[]): Check =>
  (name, v) => {
    const n = asInt(v);
    if (n === undefined) return `${name} is not an integer`;
    return allowed.includes(n) ? undefined : `Invalid ${name}`;
  };
const intRange =
  (low: number, high: number): Check =>
  (name, v) => {
    const n = asInt(v);
    if (n === undefined) return `${name} is not an integer`;
    if (n < low) return `${name} is too small`;
    return n > high ? `${name} is too large` : undefined;
  };

/** Exactly these keys, each passing its check, in the original's order of complaints. */
function only(what: string, data: Record<string, unknown>, keys: Record<string, Check>): void {
  for (const [key, check] of Object.entries(keys)) {
    if (!(key in data)) throw refuse(`${key} key is missing from ${what}`);
    const problem = check(`${what}["${key}"]`, data[key]);
    if (problem) throw refuse(problem);
  }
  const extra = Object.keys(data).filter((k) => !(k in keys));
  if (extra.length > 0) throw refuse(`Unexpected arguments: ${extra.join(', ')}`);
}

const refuse = (msg: string) => new ChatError('BAD_REQUEST', msg);

function typed(what: string, data: unknown): Record<string, unknown> & { type: string } {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw refuse(`${what} is not a dict`);
  const object = data as Record<string, unknown>;
  if (!('type' in object)) throw refuse(`type key is missing from ${what}`);
  if (typeof object.type !== 'string') throw refuse(`${what}["type"] is not a string`);
  return object as Record<string, unknown> & { type: string };
}

function checkPoll(data: unknown, isAuthor: boolean): void {
  const poll = typed('poll data', data);
  const check = (keys: Record<string, Check>) => only('poll data', poll, { type: string, ...keys });
  switch (poll.type) {
    case 'vote':
      return check({ key: string, vote: intIn([1, -1]) });
    case 'question':
      if (!isAuthor) throw refuse("You can't edit a question unless you are the author.");
      return check({ question: string });
    case 'new_option':
      return check({ option: string, idx: intRange(0, MAX_IDX) });
    default:
      throw refuse(`Unknown type for poll data: ${poll.type}`);
  }
}

function checkTodo(data: unknown, isAuthor: boolean): void {
  const todo = typed('todo data', data);
  const check = (keys: Record<string, Check>) => only('todo data', todo, { type: string, ...keys });
  switch (todo.type) {
    case 'new_task':
      return check({ key: intRange(0, MAX_IDX), task: string, desc: string, completed: boolean });
    case 'strike':
      return check({ key: string });
    case 'new_task_list_title':
      if (!isAuthor) throw refuse("You can't edit the task list title unless you are the author.");
      return check({ title: string });
    default:
      throw refuse(`Unknown type for todo data: ${todo.type}`);
  }
}

/** Refuses `data` (parsed JSON) that the widget of this type does not take. */
export function checkWidgetData(type: WidgetType, data: unknown, isAuthor: boolean): void {
  if (type === 'poll') checkPoll(data, isAuthor);
  else checkTodo(data, isAuthor);
}
