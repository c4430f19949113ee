import type { serviceInfoApi } from '@kg/contracts';
import type { Handlers } from '@kg/trpc';

/** What this service offers today; its features arrive with their issue. */
export const info: Handlers<typeof serviceInfoApi>['info'] = async () => ({
  service: 'captures',
  version: '0.1.0',
  features: ['captures', 'uploads', 'pipeline'],
});
