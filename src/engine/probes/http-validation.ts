import { JSONPath } from 'jsonpath-plus';
import type { ResponseValidation } from '../../domain/check-types.js';

/** "200", "200 or 204", "200, 201 or 204". */
export function listCodes(codes: readonly number[]): string {
  if (codes.length <= 1) return codes.join('');
  return `${codes.slice(0, -1).join(', ')} or ${codes[codes.length - 1]}`;
}

/**
 * Null when `status` is acceptable. An empty list (the API always sends at least [200])
 * accepts any 2xx.
 */
export function checkStatus(expected: readonly number[], status: number): string | null {
  if (expected.length === 0) {
    return status >= 200 && status < 300 ? null : `Expected a 2xx status, got ${status}`;
  }
  return expected.includes(status) ? null : `Expected status ${listCodes(expected)}, got ${status}`;
}

/** A JSONPath match as the string compared with `expectedValue`. */
function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function checkJsonPath(path: string, expectedValue: string | undefined, body: string): string | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return 'Response is not valid JSON';
  }
  let matches: unknown[];
  try {
    // 'safe' evaluates filter scripts without eval(): the path comes from API users.
    matches = JSONPath({ path, json: json as object, wrap: true, eval: 'safe' }) as unknown[];
  } catch (err) {
    return `Invalid JSONPath ${path}: ${(err as Error).message}`;
  }
  if (matches.length === 0) return `JSONPath ${path} matched nothing`;
  if (expectedValue === undefined) return null;
  // With several matches (a wildcard path), one equal match is enough.
  if (matches.some((m) => stringify(m) === expectedValue)) return null;
  return `JSONPath ${path} is ${stringify(matches[0])}, expected ${expectedValue}`;
}

/** Null when the body passes every rule: all `containsText` strings, then the JSONPath rule. */
export function validateBody(rules: ResponseValidation | null, body: string): string | null {
  if (!rules) return null;
  const missing = (rules.containsText ?? []).filter((text) => !body.includes(text));
  if (missing.length > 0) {
    return `Response does not contain ${missing.map((t) => JSON.stringify(t)).join(', ')}`;
  }
  if (rules.jsonPath) return checkJsonPath(rules.jsonPath, rules.expectedValue, body);
  return null;
}
