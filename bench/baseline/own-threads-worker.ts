// The baseline dispatcher's thread: today's probes, served the way main served them before issue 25.
import { runProbe } from '../../src/engine/probe-worker.js';
import { isProbeThread, serveProbes } from './own-threads-protocol.js';

if (isProbeThread()) serveProbes(runProbe);
