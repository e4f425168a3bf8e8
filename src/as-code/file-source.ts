import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import type { TSchema } from '@sinclair/typebox';
import { ApiError } from '../domain/errors.js';
import { compile } from '../core/validate.js';
import { suggestions } from '../util/did-you-mean.js';
import { MonitoringFile, type MonitoringFileInput } from './file-schema.js';

/** A place in the file: the path of keys (and list indexes) from the top. */
export type FilePath = ReadonlyArray<string | number>;

export interface FilePosition {
  line: number;
  column: number;
}

const validator = compile(MonitoringFile);
const VARIABLE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `checks.api-health.checkFrequency`, as errors and plans name a place. */
export function pathText(path: FilePath): string {
  return path.map(String).join('.');
}

/**
 * A monitoring file as read: its value (variables substituted, schema checked) and its source,
 * which knows where each key is written, so an error can name the line and column.
 */
export class MonitoringFileSource {
  private constructor(
    readonly value: MonitoringFileInput,
    private readonly doc: Document.Parsed | null,
    private readonly lines: LineCounter,
  ) {}

  /**
   * Reads YAML or JSON text (JSON is YAML, so one parser keeps positions for both). `${NAME}`
   * in any string is the environment variable NAME (`$${` writes a literal `${`); one that is
   * not set is an error naming it. Throws ApiError 400 `invalid_config` naming the place.
   */
  static parse(text: string, env: Readonly<Record<string, string | undefined>>): MonitoringFileSource {
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
    const problem = doc.errors[0];
    if (problem) {
      const at = problem.linePos?.[0];
      const message = problem.code === 'DUPLICATE_KEY' ? duplicateKeyMessage(doc, lines, problem.pos[0]) : null;
      throw invalid(message ?? problem.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''), [], at ? { line: at.line, column: at.col } : null);
    }
    const source = new MonitoringFileSource({} as MonitoringFileInput, doc, lines);
    const raw = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw invalid('the file must be a mapping with version: 1 at the top', [], { line: 1, column: 1 });
    }
    const missing: Array<{ name: string; path: FilePath }> = [];
    const value = substitute(raw, [], env, missing);
    if (missing.length > 0) {
      const names = [...new Set(missing.map((m) => m.name))];
      const also = names.length > 1 ? ` (also not set: ${names.slice(1).join(', ')})` : '';
      throw source.error(`environment variable ${names[0]} is not set${also}`, missing[0]!.path);
    }
    const checked = validator.check(value);
    if (!checked.ok) {
      const path = checked.path;
      // The validator names the field in its message; the path says it already.
      const field = path.length ? path.join('.') : '';
      const message = field && checked.message.startsWith(`${field} `) ? checked.message.slice(field.length + 1) : checked.message;
      throw source.error(message + (message === 'is not a known field' ? didYouMean(path) : ''), path);
    }
    return new MonitoringFileSource(checked.value, doc, lines);
  }

  /** Where the path is written: its key's line and column, or its nearest written parent's. */
  position(path: FilePath): FilePosition | null {
    const offset = this.locate(path).at?.range?.[0];
    if (offset === undefined) return null;
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }

  /** True when the file writes this very path (not only a parent of it). */
  writes(path: FilePath): boolean {
    return this.locate(path).whole;
  }

  private locate(path: FilePath): { at: Node | null; whole: boolean } {
    if (!this.doc) return { at: null, whole: false };
    let node: unknown = this.doc.contents;
    let at: Node | null = node as Node | null;
    let found = 0;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => {
          const key = p.key as { value?: unknown } | null;
          return key !== null && typeof key === 'object' && String(key.value) === String(segment);
        });
        if (!pair) break;
        at = pair.key as Node;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment];
        if (!item) break;
        at = item as Node;
        node = item;
      } else break;
      found++;
    }
    return { at, whole: found === path.length };
  }

  /** A 400 naming the place: `checks.api.checkFrequency (line 7, column 5): …`. */
  error(message: string, path: FilePath, status = 400): ApiError {
    return invalid(message, path, this.position(path), status);
  }
}

function invalid(message: string, path: FilePath, at: FilePosition | null, status = 400): ApiError {
  const where = [path.length ? pathText(path) : '', at ? `(line ${at.line}, column ${at.column})` : ''].filter(Boolean).join(' ');
  const details = { path: pathText(path), line: at?.line ?? null, column: at?.column ?? null };
  return new ApiError(status, 'invalid_config', where ? `${where}: ${message}` : message, {}, undefined, details);
}

/** `; did you mean checkFrequency?` for a mistyped key: the fields known beside it, closest first. */
function didYouMean(path: readonly string[]): string {
  const known = fieldsAt(MonitoringFile, path.slice(0, -1));
  const close = suggestions(path[path.length - 1] ?? '', known);
  return close.length > 0 ? `; did you mean ${close.join(' or ')}?` : '';
}

/** The property names of the object the path leads to in the schema (entries of a record are its values). */
function fieldsAt(schema: TSchema, path: readonly string[]): string[] {
  let at: TSchema | undefined = schema;
  for (const segment of path) {
    if (at?.properties) at = (at.properties as Record<string, TSchema>)[segment];
    else if (at?.patternProperties) at = Object.values(at.patternProperties as Record<string, TSchema>)[0];
    else return [];
  }
  return at?.properties ? Object.keys(at.properties as object) : [];
}

/** `the key "name" is written twice (first on line 4)`: yaml names only the place of the second. */
function duplicateKeyMessage(doc: Document.Parsed, lines: LineCounter, offset: number): string | null {
  let message: string | null = null;
  visit(doc, {
    Map(_, map) {
      const keys = map.items.map((p) => p.key).filter(isScalar);
      const second = keys.find((k) => k.range?.[0] === offset);
      if (!second) return undefined;
      const first = keys.find((k) => k !== second && String(k.value) === String(second.value));
      const line = first?.range ? lines.linePos(first.range[0]).line : null;
      message = `the key "${String(second.value)}" is written twice in the same mapping${line ? ` (first on line ${line})` : ''}`;
      return visit.BREAK;
    },
  });
  return message;
}

/** Gives every string its variables' values; the names not set are collected with their places. */
function substitute(value: unknown, path: Array<string | number>, env: Readonly<Record<string, string | undefined>>, missing: Array<{ name: string; path: FilePath }>): unknown {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (whole, name: string | undefined) => {
      if (name === undefined) return '${';
      // Own variables only: `${constructor}` is a variable that is not set, not Object's constructor.
      const found = Object.hasOwn(env, name) ? env[name] : undefined;
      if (found === undefined) {
        missing.push({ name, path: [...path] });
        return whole;
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substitute(v, [...path, i], env, missing));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, [...path, k], env, missing)]));
  }
  return value;
}
