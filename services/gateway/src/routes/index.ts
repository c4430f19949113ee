import type { KvStore } from '@kg/kv';
import type { GatewayHttpConfig } from '../config';
import { authRoutes } from './auth';
import { createOidcSignIn } from '../sign-in/oidc';
import { createSessionCookies } from '../sign-in/session-cookie';
import { captureRoutes, uploadLimits } from './captures';
import { eventRoutes } from './events';
import type { EventFeed } from '../events/feed';
import { graphRoutes } from './graph';
import { importLimits, importRoutes } from './imports';
import { meRoutes } from './me';
import { nodeRoutes } from './nodes';
import { proposalRoutes } from './proposals';
import { searchRoutes } from './search';
import { paraLimits, paraRoutes } from './para';
import type { Route } from './route';
import { webhookRoutes } from './webhooks';

/** Every public operation, in matching order (static segments before parameters). */
export function buildRoutes(kv: KvStore, config: GatewayHttpConfig, events: EventFeed): Route[] {
  const hour = 3600;
  return [
    ...authRoutes(
      {
        perEmail: kv.rateLimiter({
          name: 'magic-link-email',
          points: config.MAGIC_LINK_PER_EMAIL_PER_HOUR,
          durationSeconds: hour,
        }),
        perIp: kv.rateLimiter({
          name: 'magic-link-ip',
          points: config.MAGIC_LINK_PER_IP_PER_HOUR,
          durationSeconds: hour,
        }),
        oidcStartPerIp: kv.rateLimiter({
          name: 'oidc-start-ip',
          points: config.OIDC_START_PER_IP_PER_HOUR,
          durationSeconds: hour,
        }),
      },
      {
        oidc: createOidcSignIn({ kv, publicUrl: config.PUBLIC_URL }),
        cookies: createSessionCookies(config.PUBLIC_URL),
      },
    ),
    ...meRoutes,
    ...nodeRoutes,
    ...proposalRoutes,
    ...searchRoutes,
    ...graphRoutes,
    ...paraRoutes(paraLimits(kv, config)),
    ...captureRoutes(uploadLimits(kv, config)),
    ...eventRoutes(events, kv, config),
    ...webhookRoutes,
    ...importRoutes(importLimits(config)),
  ];
}
