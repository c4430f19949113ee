import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { gatewayHttpSchema } from '../config';
import { applyServerTimeouts } from './server-timeouts';

describe('applyServerTimeouts', () => {
  it('keeps idle connections past a load balancer’s 60 s and the request open past the longest upload allowed', () => {
    const server = createServer();
    applyServerTimeouts(server, gatewayHttpSchema.parse({}));
    expect(server.keepAliveTimeout).toBe(65_000);
    expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
    // 25 MiB and its form at 64 KiB/s after the 60 s grace: 476 s, plus 30 s.
    expect(server.requestTimeout).toBe(506_000);
    applyServerTimeouts(server, gatewayHttpSchema.parse({ UPLOAD_READ_MIN_BYTES_PER_SECOND: String(1024 * 1024) }));
    expect(server.requestTimeout).toBe(300_000);
  });
});
