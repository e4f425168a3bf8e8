import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { FormatRegistry } from '@sinclair/typebox';
import { SetErrorFunction, DefaultErrorFunction, ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { parseIsoInstant } from './iso-date.js';
import { suggestions } from '../util/did-you-mean.js';

/**
 * Validation is declared once per request shape as a TypeBox schema, which gives the JSON
 * Schema (for OpenAPI), the TypeScript type (Static<>) and, compiled here, the 400 messages.
 */
SetErrorFunction((e) => {
  const s = e.schema as Record<string, unknown>;
  switch (e.errorType) {
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.Number:
      return 'must be a number';
    case ValueErrorType.Integer:
      return 'must be an integer';
    case ValueErrorType.Boolean:
      return 'must be a boolean';
    case ValueErrorType.Array:
      return 'must be an array';
    case ValueErrorType.Object:
      return 'must be an object';
    case ValueErrorType.StringMaxLength:
      return `must be at most ${s.maxLength} characters`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `must be at least ${s.minimum}`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `must be at most ${s.maximum}`;
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum:
      return `must be greater than ${s.exclusiveMinimum}`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${s.maxItems} items`;
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`;
    case ValueErrorType.ObjectMaxProperties:
      return `must have at most ${s.maxProperties} entries`;
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'is not a known field';
    case ValueErrorType.StringPattern:
      return typeof s.description === 'string' ? `must be ${s.description}` : 'has an invalid format';
    case ValueErrorType.Union: {
      const options = enumOptions(s);
      return options ? `must be one of: ${options.join(', ')}` : (nullableMessage(s, e.errors) ?? 'has an invalid value');
    }
    default:
      return DefaultErrorFunction(e);
  }
});

const TYPE_ERRORS = new Set([ValueErrorType.String, ValueErrorType.Number, ValueErrorType.Integer, ValueErrorType.Boolean, ValueErrorType.Array, ValueErrorType.Object]);

/** For `T | null`: what is wrong as a T ("must not be empty"; "must be a string or null"). */
function nullableMessage(schema: Record<string, unknown>, branches: Array<{ First(): ValueError | undefined }>): string | null {
  const anyOf = (schema.anyOf as Array<Record<string, unknown>> | undefined) ?? [];
  const nonNull = anyOf.findIndex((o) => o.type !== 'null');
  if (anyOf.length !== 2 || !anyOf.some((o) => o.type === 'null')) return null;
  const first = branches[nonNull]?.First();
  if (!first) return null;
  return TYPE_ERRORS.has(first.type) ? `${first.message} or null` : first.message;
}

/** The string constants of a (possibly nested, possibly nullable) union of literals, else null. */
function enumOptions(schema: Record<string, unknown>): string[] | null {
  const out: string[] = [];
  for (const option of (schema.anyOf as Array<Record<string, unknown>> | undefined) ?? []) {
    if (typeof option.const === 'string') out.push(option.const);
    else if (option.type === 'null') continue;
    else if (option.anyOf) {
      const nested = enumOptions(option);
      if (!nested) return null;
      out.push(...nested);
    } else return null;
  }
  return out.length ? out : null;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
FormatRegistry.Set('date-time', (v) => ISO_DATE_TIME.test(v) && !Number.isNaN(parseIsoInstant(v)));

export interface Validator<T extends TSchema> {
  schema: T;
  /** Returns the value typed, or a human message naming the first offending field. */
  check(value: unknown): { ok: true; value: Static<T> } | { ok: false; message: string; path: string[] };
}

export function compile<T extends TSchema>(schema: T): Validator<T> {
  const compiled: TypeCheck<T> = TypeCompiler.Compile(schema);
  return {
    schema,
    check(value) {
      if (compiled.Check(value)) return { ok: true, value };
      const problems = realErrors(compiled, value);
      if (problems.length === 0) return { ok: true, value };
      const first = firstError(problems);
      return { ok: false, message: describeError(first), path: first ? pointerPath(first.path) : [] };
    },
  };
}

/**
 * JSON Schema counts string length in characters (code points); TypeBox counts UTF-16 units,
 * which would refuse 150 emoji as longer than 200. Length errors that hold in code points go.
 */
function realErrors<T extends TSchema>(compiled: TypeCheck<T>, value: unknown): ValueError[] {
  return [...compiled.Errors(value)].filter(
    (e) =>
      !(e.type === ValueErrorType.StringMaxLength && typeof e.value === 'string' && [...e.value].length <= (e.schema as unknown as { maxLength: number }).maxLength),
  );
}

/** A missing or extra property is reported before the type errors it causes further down. */
function firstError(all: ValueError[]): ValueError | undefined {
  return all.find((e) => e.type === ValueErrorType.ObjectRequiredProperty || e.type === ValueErrorType.ObjectAdditionalProperties) ?? all[0];
}

/** A JSON Pointer's segments, unescaped (~1 is /, ~0 is ~). */
function pointerPath(pointer: string): string[] {
  return pointer === '' ? [] : pointer.replace(/^\//, '').split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function describeError(first: ValueError | undefined): string {
  if (!first) return 'Invalid value';
  const field = first.path.replace(/^\//, '').replace(/\//g, '.');
  const message = field ? `${field} ${first.message}` : `Body ${first.message}`;
  return first.type === ValueErrorType.ObjectAdditionalProperties ? `${message}${meant(first)}` : message;
}

/** "; did you mean checkFrequency?" for a field close to one the object takes, else "". */
function meant(error: ValueError): string {
  const properties = (error.schema as { properties?: Record<string, unknown> }).properties;
  const typed = pointerPath(error.path).at(-1);
  if (properties === undefined || typed === undefined) return '';
  const close = suggestions(typed, Object.keys(properties));
  return close.length > 0 ? `; did you mean ${close.join(' or ')}?` : '';
}

/**
 * Query strings arrive as text: values are converted to the schema's types (numbers, booleans)
 * before the same compiled check runs, so a query is declared once like a body. Conversion is
 * strict: "2.5" stays 2.5 (and fails an integer), "yes" stays a string (and fails a boolean).
 */
/** A query string as an object: a repeated parameter (`tag=a&tag=b`) becomes an array of its values. */
export function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  // Own keys only: a client's parameter names (`constructor`) are never read from the prototype,
  // and `__proto__` is defined, not set. (A Map or a prototype-less object here made a list
  // request 5-10% slower: both turn the object into a dictionary.)
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const seen = Object.hasOwn(out, name) ? out[name] : undefined;
    const gathered = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    if (name === '__proto__') Object.defineProperty(out, name, { value: gathered, enumerable: true, writable: true, configurable: true });
    else out[name] = gathered;
  }
  return out;
}

export function compileQuery<T extends TSchema>(schema: T): Validator<T> {
  const validator = compile(schema);
  const properties = (schema as unknown as { properties: Record<string, { type?: string }> }).properties;
  return {
    schema,
    check(value) {
      const converted: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      for (const [name, text] of Object.entries(converted)) {
        const type = Object.hasOwn(properties, name) ? properties[name]!.type : undefined;
        if (type === 'array' && typeof text === 'string') converted[name] = [text];
        if (typeof text !== 'string') continue;
        if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) converted[name] = Number(text);
        else if (type === 'boolean' && (text === 'true' || text === 'false')) converted[name] = text === 'true';
      }
      return validator.check(converted);
    },
  };
}
