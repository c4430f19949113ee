import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desc } from 'drizzle-orm';
import { createLogger } from '@kg/logger';
import { createAuthRig, statusOf, type AuthRig } from '../testing';
import { magicLinks, refreshTokens } from '../store/schema';
import { createAuthPruneJob } from './prune';

const DAY = 24 * 3600 * 1000;
let rig: AuthRig;
beforeAll(async () => {
  rig = await createAuthRig();
}, 60_000);
afterAll(() => rig.close());

describe('auth prune job', () => {
  it('deletes expired magic links and refresh tokens, keeps live ones, and changes no answer', async () => {
    const old = await rig.signIn('prune@example.com');
    await rig.anon.magicLink.request({ email: 'prune-unused@example.com' });
    rig.advance(31 * DAY);
    const fresh = await rig.signIn('prune@example.com');
    await rig.anon.magicLink.request({ email: 'prune-unused@example.com' });
    const [newest] = await rig.db.select().from(magicLinks).orderBy(desc(magicLinks.createdAt)).limit(1);
    const now = newest!.createdAt;
    expect(await rig.db.select().from(magicLinks)).toHaveLength(4);

    const job = createAuthPruneJob({
      db: rig.db,
      logger: createLogger('t', 'silent'),
      intervalMs: 60_000,
      now: () => now,
    });
    expect(await job.runOnce()).toEqual({ magicLinks: 2, refreshTokens: 1 });
    const links = await rig.db.select().from(magicLinks);
    expect(links).toHaveLength(2);
    for (const l of links) expect(l.expiresAt.getTime()).toBeGreaterThan(now.getTime());
    const tokens = await rig.db.select().from(refreshTokens);
    expect(tokens.map((t) => t.id)).toEqual([fresh.refresh_token.split('.')[0]]);

    expect(await statusOf(rig.anon.tokens.refresh({ refresh_token: old.refresh_token }))).toBe(401);
    expect(await rig.anon.tokens.refresh({ refresh_token: fresh.refresh_token })).toMatchObject({
      token_type: 'Bearer',
    });
    expect(await job.runOnce()).toEqual({ magicLinks: 0, refreshTokens: 0 });
    job.start();
    await job.stop();
  });
});
