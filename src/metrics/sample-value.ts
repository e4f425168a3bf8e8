/**
 * Samples as precise as what they measure, without binary float noise (`11.69 / 1000` is
 * 0.011689999999999999): times to the microsecond, ratios to the millionth. An integer divided
 * by a power of ten prints as its shortest decimal.
 */
export const seconds = (ms: number): number => Math.round(ms * 1000) / 1e6;

export const secondsOf = (s: number): number => Math.round(s * 1e6) / 1e6;

/** A percentage (0–100) as a ratio (0–1). */
export const ratio = (percent: number): number => Math.round(percent * 1e4) / 1e6;
