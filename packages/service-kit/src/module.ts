import type { AnyRouter } from '@trpc/server';
import type { Registry } from 'prom-client';

/**
 * What a service hands to a host: its tRPC router and its background work
 * (outbox relays, consumers, jobs). The one-process host mounts several;
 * a service's own main.ts serves one over HTTP.
 */
export interface ServiceModule {
  readonly name: string;
  readonly router: AnyRouter;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** True while every dependency this service uses is reachable. */
  ready(): Promise<boolean>;
  /**
   * Dependencies that are down without taking the service out of rotation (the part they serve
   * answers 503 or falls back), named in /readyz's body as `degraded` while it stays 200.
   */
  degraded?(): Promise<string[]>;
  /** Registers the service's own metrics (beyond HTTP) on the process's /metrics registry. */
  registerMetrics?(registry: Registry): void;
}
