import type uWS from 'uWebSockets.js';
import type { NodeIdentity, NodeSession } from '../nodes/node-sessions.js';
import { MAX_FRAME_BYTES, NODE_PATH, type CentralMessage } from '../nodes/protocol.js';

/** What the socket adapter needs from the hub (null while the server is still starting). */
export interface NodeEndpoint {
  authenticate(token: string): Promise<NodeIdentity | null>;
  open(node: NodeIdentity, session: NodeSession): void;
  message(node: NodeIdentity, session: NodeSession, text: string): void;
  closed(node: NodeIdentity, session: NodeSession): void;
}

interface SocketData {
  node: NodeIdentity;
  session: NodeSession | null;
  /** After uWS's `close` the socket object is gone: the session's sends become no-ops. */
  markClosed: () => void;
}

/**
 * The node protocol's WebSocket on the same uWS app and port as the API. A node token is
 * checked at the upgrade and opens only this path: the API's authenticator knows nothing of
 * node tokens. Frames over MAX_FRAME_BYTES close the connection (uWS enforces it).
 */
export function attachNodeSocket(app: uWS.TemplatedApp, endpoint: () => NodeEndpoint | null): void {
  app.ws<SocketData>(NODE_PATH, {
    maxPayloadLength: MAX_FRAME_BYTES,
    idleTimeout: 60,
    maxBackpressure: 64 * 1024 * 1024,
    upgrade: (res, req, context) => {
      const auth = req.getHeader('authorization');
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const hub = endpoint();
      if (!hub) {
        res.writeStatus('503 Service Unavailable').end('starting up');
        return;
      }
      const token = /^Bearer\s+(\S+)$/i.exec(auth)?.[1] ?? '';
      const answer = (node: NodeIdentity | null): void => {
        if (!node) {
          res.writeStatus('401 Unauthorized').writeHeader('WWW-Authenticate', 'Bearer realm="vigil-nodes"').end('unknown or revoked node token');
          return;
        }
        res.upgrade<SocketData>({ node, session: null, markClosed: () => {} }, key, protocol, extensions, context);
      };
      // Answered after an await: uWS wants the abort handled and the answer corked.
      let aborted = false;
      res.onAborted(() => (aborted = true));
      hub.authenticate(token).then(
        (node) => !aborted && res.cork(() => answer(node)),
        () => !aborted && res.cork(() => res.writeStatus('500 Internal Server Error').end('node authentication failed')),
      );
    },
    open: (ws) => {
      const data = ws.getUserData();
      let open = true;
      const session: NodeSession = {
        send: (message: CentralMessage) => {
          if (open) ws.send(JSON.stringify(message), false);
        },
        close: (code, reason) => {
          if (!open) return;
          open = false;
          ws.end(code, reason);
        },
      };
      data.session = session;
      data.markClosed = () => {
        open = false;
      };
      endpoint()?.open(data.node, session);
    },
    message: (ws, message, isBinary) => {
      const data = ws.getUserData();
      if (!data.session) return;
      if (isBinary) {
        data.session.close(1003, 'text frames only');
        return;
      }
      endpoint()?.message(data.node, data.session, Buffer.from(message).toString('utf8'));
    },
    close: (ws) => {
      const data = ws.getUserData();
      data.markClosed();
      if (data.session) endpoint()?.closed(data.node, data.session);
    },
  });
}
