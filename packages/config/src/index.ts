export { loadConfig, ConfigError } from './load';
export * as env from './fields';
