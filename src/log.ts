import pino, { type Logger } from 'pino';

/**
 * Structured logs (pino). Nothing secret is ever passed to a log call: request headers and
 * bodies are not logged, and webhook URLs are cut to scheme and host before they are.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'vigil' },
    redact: { paths: ['*.apiKey', '*.key', '*.token', '*.secret', '*.authorization', '*["x-api-key"]'], censor: '[redacted]' },
  });
}

export type { Logger };
