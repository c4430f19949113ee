import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** How the receiver answers: 204 (up), 503 to everything (down but listening), or not listening (refused). */
export type ReceiverState = 'up' | '503' | 'refused';

/** One request that reached the receiver. */
export interface Receipt {
  /** performance.now() when its body had been read. */
  at: number;
  webhookId: string;
  type: string;
  /** data.node.id of a node.created body. */
  nodeId: string | null;
  verified: boolean;
  /** What the receiver answered. */
  status: number;
}

export interface Receiver {
  url: string;
  port: number;
  /** Every request received, in arrival order. */
  receipts: Receipt[];
  /** Verifies signatures with this secret from now on (the POST /webhooks answer). */
  setSecret(secret: string): void;
  setState(state: ReceiverState): Promise<void>;
  /** Called after each request is recorded. */
  onReceipt: ((r: Receipt) => void) | null;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every request's Standard Webhooks signature
 * (`standardwebhooks`, the library the documentation points receivers to) and records its
 * arrival time, `webhook-id`, type and node id. `refused` closes the listening socket (and
 * every open connection): the dispatcher's connections are refused until `up` listens again
 * on the same port.
 */
export async function startReceiver(): Promise<Receiver> {
  let verifier: Webhook | null = null;
  let state: ReceiverState = 'up';
  const receipts: Receipt[] = [];

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      let verified = false;
      let parsed: { type?: string; data?: { node?: { id?: string } } } = {};
      try {
        if (!verifier) throw new Error('no secret yet');
        parsed = verifier.verify(body, headers) as typeof parsed;
        verified = true;
      } catch {
        try {
          parsed = JSON.parse(body) as typeof parsed;
        } catch {
          // not JSON: counted as failed, type unknown
        }
      }
      const status = state === 'up' ? (verified ? 204 : 400) : 503;
      const receipt: Receipt = {
        at,
        webhookId: headers['webhook-id'],
        type: parsed.type ?? '?',
        nodeId: parsed.data?.node?.id ?? null,
        verified,
        status,
      };
      receipts.push(receipt);
      res.writeHead(status).end();
      receiver.onReceipt?.(receipt);
    });
  };

  let server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const listening = () => server.listening;
  const close = () =>
    new Promise<void>((resolve) => {
      if (!listening()) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });

  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks/kg`,
    port,
    receipts,
    onReceipt: null,
    setSecret(secret) {
      verifier = new Webhook(secret);
    },
    async setState(next) {
      state = next;
      if (next === 'refused') await close();
      else if (!listening()) {
        server = createServer(handle);
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', () => resolve());
        });
      }
    },
    close,
  };
  return receiver;
}
