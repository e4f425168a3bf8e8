// Imported rather than read at start, so the single binary carries it.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
