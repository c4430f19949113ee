export { createGatewayApp, API_PREFIX, apiKeyCache, type GatewayDeps } from './app';
export { revocationsFromBus } from './http/api-key-revocations';
export { applyServerTimeouts } from './http/server-timeouts';
export { gatewayHttpSchema, gatewayConfigSchema, type GatewayHttpConfig, type GatewayConfig } from './config';
export { PEER_CONTRACTS, type GatewayPeers } from './peers';
export { buildOpenApiDocument } from './openapi/document';
export { buildRoutes } from './routes';
export { createEventFeed, feedFromBus, type EventFeed, type LiveEvent } from './events/feed';
