import { describe, expect, it } from 'vitest';
import { redisOptions } from './redis';

describe('redisOptions (REDIS_URL and REDIS_PASSWORD to ioredis)', () => {
  it('redis:// is plaintext on the default port', () => {
    const o = redisOptions({ url: 'redis://cache' });
    expect(o).toMatchObject({ host: 'cache', port: 6379 });
    expect(o.tls).toBeUndefined();
    expect(o.password).toBeUndefined();
  });

  it('rediss:// turns TLS on, verifying the host name', () => {
    const o = redisOptions({ url: 'rediss://cache.example.com:6380/2' });
    expect(o).toMatchObject({ host: 'cache.example.com', port: 6380, db: 2, tls: { servername: 'cache.example.com' } });
  });

  it('takes user and password from the URL (decoded), and REDIS_PASSWORD wins over it', () => {
    expect(redisOptions({ url: 'rediss://app:p%40ss@cache:6380' })).toMatchObject({
      username: 'app',
      password: 'p@ss',
    });
    expect(redisOptions({ url: 'redis://:from-url@cache', password: 'from-env' }).password).toBe('from-env');
    expect(redisOptions({ url: 'redis://cache', password: 'only-env' }).password).toBe('only-env');
  });

  it('refuses other schemes without echoing the URL', () => {
    expect(() => redisOptions({ url: 'http://u:secret@cache' })).toThrow(/^(?!.*secret).*redis:\/\//);
  });
});
