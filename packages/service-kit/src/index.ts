export type { ServiceModule } from './module';
export { serveService, type ServeOptions } from './serve';
export { runServiceProcess, migrateIfAsked, failFast, type Migrations, type RunOptions } from './run';
export { createMetrics, serveMetrics, type Metrics, type MetricsServer } from './metrics';
export { createPeriodicJob, type PeriodicJob } from './periodic';
export { startMemoryReducer, type MemoryReducerOptions } from './memory-reducer';
export { drainOnShutdown, type Drain } from './drain';
export { listen, type ListenOptions } from './listen';
export {
  addressAllowlistEnv,
  createAddressPolicy,
  isAddressOrCidr,
  refusalRule,
  type AddressPolicy,
} from './egress/address-policy';
export { EgressRefusal, pinnedLookup, resolvePublic, type Resolved } from './egress/resolve';
