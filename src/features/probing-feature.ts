import type { FeatureModule } from './feature.js';
import { relayRunNow } from '../cluster/relay.js';
import { relayPeerRechecks } from '../cluster/peer-relay.js';
import { forwardToInbox, handOverToInbox } from '../cluster/inbox.js';
import { probeMetrics } from '../metrics/process-metrics.js';
import { Recorder } from '../monitor/recorder.js';
import { Assignment } from '../nodes/assignment.js';
import { NodeHub } from '../nodes/hub.js';
import { NodeRegistry } from '../nodes/node-registry.js';
import { NodeSessions } from '../nodes/node-sessions.js';
import { nodeSweeps, seenBefore } from '../nodes/node-sweeps.js';
import { PeerRechecks } from '../nodes/peer-rechecks.js';
import { ResultIntake } from '../nodes/result-intake.js';
import { ThreadDispatcher, type ProbeDispatcher } from '../engine/dispatcher.js';
import { Engine } from '../engine/engine.js';
import { HeartbeatMonitor } from '../engine/heartbeats.js';
import { hasRawSocketCapability } from '../engine/probes/icmp-capability.js';

declare module './feature.js' {
  interface Provided {
    /** Every observation of a check becomes state, one write and events here. */
    recorder: Recorder;
    dispatcher: ProbeDispatcher;
    engine: Engine;
    heartbeats: HeartbeatMonitor;
    /** Which checks run here and which on a node, and the regions' nodes. */
    assignment: Assignment;
    /** Node results, and those another central received for checks this one owns. */
    intake: ResultIntake;
    nodes: NodeHub;
  }
}

/**
 * Probing: the wheel and its probe workers, prober nodes (their sockets, placement, peer
 * re-checks and results) and heartbeat deadlines. Everything that observes a check.
 */
export const probingFeature: FeatureModule = {
  name: 'probing',
  build(root, parts) {
    const { store, config, clock, log, writer, liveChecks: live, membership: { cluster, shared } } = root;
    const checks = parts.need('checks');
    const outbound = parts.need('outbound');
    const ownership = shared?.ownership;
    const recorder = new Recorder({ writer, central: shared ? cluster.name : undefined });
    const dispatcher = root.dispatcher ?? new ThreadDispatcher({ threads: config.probes.threads, dnsServers: config.probes.dnsServers });
    const sessions = new NodeSessions({ clock, log });
    // An immediate re-check of a check whose node is connected to another central is run there.
    const runElsewhere = shared ? relayRunNow(shared.bus, cluster.name, (checkId) => assignment.runHere(checkId)) : undefined;
    const assignment: Assignment = new Assignment({ sessions, nodes: store.nodes, checks, config, clock, outbound, runElsewhere });
    // A failure seen here is re-checked by a node of another region, connected here or to another central.
    const askElsewhere = shared ? relayPeerRechecks(shared.bus, cluster.name, (nodeId, task) => peers.recheckOn(nodeId, task)) : undefined;
    const peers: PeerRechecks = new PeerRechecks({
      sessions, dispatcher, region: config.region, clock, elsewhere: askElsewhere && { nodes: () => assignment.nodesElsewhere(), ask: askElsewhere },
    });
    // A ping or a node's result for a check another central owns waits in the store's inbox for that central.
    const handOver = shared ? handOverToInbox(recorder, cluster.name) : undefined;
    const engine = new Engine({
      store, recorder, live, dispatcher, placement: assignment, peer: peers, checks, clock, config, log, ownership, handOver, outbound, autoStart: root.autoTick,
    });
    const forward = shared ? forwardToInbox(writer, cluster.name) : undefined;
    const heartbeats = new HeartbeatMonitor({ store, recorder, live, wheel: engine.wheel, checks, clock, config, log, ownership, forward });
    const intake = new ResultIntake({ sessions, given: assignment, engine, recorder, cursors: store.nodes, commits: writer, clock, log });
    const nodes = new NodeHub({
      registry: new NodeRegistry(store.nodes, config.region, clock), nodes: store.nodes, checks: store.checks, sessions, assignment, intake, peers, log,
    });
    parts.give('recorder', recorder);
    parts.give('dispatcher', dispatcher);
    parts.give('engine', engine);
    parts.give('heartbeats', heartbeats);
    parts.give('assignment', assignment);
    parts.give('intake', intake);
    parts.give('nodes', nodes);
    return {
      jobs: nodeSweeps({ sessions, assignment, writer, nodes: store.nodes, shared: shared !== null, config, clock, log }),
      metrics: (registry) => probeMetrics(registry, {
        wheelLag: engine.metrics.lag,
        probesFired: () => engine.metrics.fired,
        probesInFlight: () => engine.inFlight,
        probeQueueDepth: () => dispatcher.queued,
      }),
      async start() {
        await nodes.start(seenBefore(config, clock.now(), shared !== null));
        await engine.start();
        await heartbeats.start();
        if (!hasRawSocketCapability()) {
          log.warn('ping checks will fail: ICMP needs raw sockets, and this process lacks CAP_NET_RAW (contrib/vigil.service grants it; or run setcap cap_net_raw+ep on the executable)');
        }
      },
      // The engine first: probes still in flight finish and their events reach the features
      // after it (alerts), which still run.
      async stop() {
        nodes.stop();
        await engine.stop();
      },
    };
  },
};
