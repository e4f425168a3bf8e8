/** The per-key budget's fixed windows live in util/ (the subscribe form of status pages counts with them too). */
export * from '../util/rate-limiter.js';
