import { ChatError, PROFILE_FIELD_TYPES as T, type ProfileField, type ProfileValue } from '@chat/protocol';
import { renderDescription } from '../markdown.js';

const bad = (msg: string) => new ChatError('BAD_REQUEST', msg);
const SHORT = 50;
const LONG = 500;

function text(field: ProfileField, value: unknown, limit: number): string {
  if (typeof value !== 'string') throw bad(`${field.name} is not a string`);
  if (value.length > limit) throw bad(`${field.name} is too long (limit: ${limit} characters)`);
  return value;
}

function isUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * One user's value of one field, checked by the field's type as the
 * original checks it, in its words; the Markdown types are rendered too.
 * `isActiveUser` answers whether an id names an active user (the user type).
 */
export function profileValue(
  field: ProfileField,
  value: unknown,
  isActiveUser: (id: number) => boolean,
): ProfileValue {
  switch (field.type) {
    case T.SHORT_TEXT:
    case T.LONG_TEXT: {
      const v = text(field, value, field.type === T.SHORT_TEXT ? SHORT : LONG);
      return { value: v, rendered_value: renderDescription(v) };
    }
    case T.SELECT: {
      const v = text(field, value, SHORT);
      const choices = JSON.parse(field.field_data || '{}') as Record<string, unknown>;
      if (!(v in choices)) throw bad(`'${v}' is not a valid choice for '${field.name}'.`);
      return { value: v };
    }
    case T.DATE: {
      const v = text(field, value, SHORT);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(v))) throw bad(`${field.name} is not a date`);
      return { value: v };
    }
    case T.URL: {
      const v = text(field, value, SHORT * 40);
      if (!isUrl(v)) throw bad(`${field.name} is not a URL`);
      return { value: v };
    }
    case T.USER: {
      const ids = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
      if (!Array.isArray(ids) || !ids.every((id) => Number.isInteger(id))) throw bad(`${field.name} is not a list`);
      const unknown = (ids as number[]).find((id) => !isActiveUser(id));
      if (unknown !== undefined) throw bad(`Invalid user ID: ${unknown}`);
      return { value: JSON.stringify(ids) };
    }
    default:
      return { value: text(field, value, SHORT) };
  }
}
