import type { AnyRouter } from '@trpc/server';

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
}
