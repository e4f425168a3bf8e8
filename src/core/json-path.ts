import { JSONPath } from 'jsonpath-plus';

/**
 * Why a JSONPath expression cannot be evaluated, or null when it can. jsonpath-plus parses
 * filter and script segments (`?(...)`, `(...)`) only when they meet data, so each one is run
 * once against a one-element array, with the same safe evaluator the probes use: a syntax error
 * is a 400 at create and update instead of a check that fails every probe.
 */
export function jsonPathProblem(path: string): string | null {
  try {
    JSONPath({ path, json: {}, wrap: true, eval: 'safe' });
    for (const segment of JSONPath.toPathArray(path)) {
      if (segment.startsWith('?(') || segment.startsWith('(')) {
        JSONPath({ path: `$[${segment}]`, json: [{}], wrap: true, eval: 'safe' });
      }
    }
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
