import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig, type ConfigError } from './load';
import { checkEmbeddings, checkKafka, embeddings, kafka, redis, serviceBase } from './fields';

const kafkaSchema = z.object(kafka).superRefine(checkKafka);
const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig('search', kafkaSchema, env);
  } catch (err) {
    return (err as ConfigError).message;
  }
  return '';
};

describe('Kafka settings', () => {
  it('default to plaintext, no SASL, replication factor 1', () => {
    expect(loadConfig('search', kafkaSchema, { KAFKA_BROKERS: 'a:9092,b:9092' })).toEqual({
      KAFKA_BROKERS: ['a:9092', 'b:9092'],
      KAFKA_SSL: false,
      KAFKA_REPLICATION_FACTOR: 1,
    });
  });

  it('read TLS, SASL and the replication factor', () => {
    const c = loadConfig('search', kafkaSchema, {
      KAFKA_BROKERS: 'a:9093',
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'scram-sha-256',
      KAFKA_SASL_USERNAME: 'search',
      KAFKA_SASL_PASSWORD: 'pw',
      KAFKA_REPLICATION_FACTOR: '3',
    });
    expect(c).toMatchObject({ KAFKA_SSL: true, KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_REPLICATION_FACTOR: 3 });
  });

  it('a mechanism without a username is a start-up error naming the variable, never the password', () => {
    const message = problemsOf({
      KAFKA_BROKERS: 'a:9093',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_PASSWORD: 'hunter2',
    });
    expect(message).toContain('KAFKA_SASL_USERNAME: required when KAFKA_SASL_MECHANISM=plain');
    expect(message).not.toContain('hunter2');
  });

  it('credentials without a mechanism, an unknown mechanism, a CA that is not PEM are refused', () => {
    expect(problemsOf({ KAFKA_BROKERS: 'a', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'hunter2' })).toMatch(
      /KAFKA_SASL_MECHANISM: required/,
    );
    expect(problemsOf({ KAFKA_BROKERS: 'a', KAFKA_SASL_MECHANISM: 'gssapi' })).toContain('KAFKA_SASL_MECHANISM');
    expect(problemsOf({ KAFKA_BROKERS: 'a', KAFKA_SSL_CA: 'not a pem' })).toContain('KAFKA_SSL_CA');
    expect(problemsOf({ KAFKA_BROKERS: 'a', KAFKA_REPLICATION_FACTOR: '0' })).toContain('KAFKA_REPLICATION_FACTOR');
  });
});

describe('Redis and database settings', () => {
  it('REDIS_URL takes redis:// and rediss://; REDIS_PASSWORD is optional', () => {
    const schema = z.object(redis);
    expect(loadConfig('g', schema, { REDIS_URL: 'rediss://cache:6380' })).toEqual({ REDIS_URL: 'rediss://cache:6380' });
    expect(() => loadConfig('g', schema, { REDIS_URL: 'http://cache' })).toThrow(/REDIS_URL/);
  });

  it('database timeouts and the metrics port have defaults', () => {
    const c = loadConfig('para', z.object(serviceBase), {
      DATABASE_URL: 'postgres://kg@db/kg?sslmode=verify-full',
      INTERNAL_SIGNING_KEY: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'x'.repeat(43), d: 'd'.repeat(43) }),
      INTERNAL_PUBLIC_KEYS: JSON.stringify({ gateway: { kty: 'OKP', crv: 'Ed25519', x: 'g'.repeat(43) } }),
    });
    expect(c).toMatchObject({
      DATABASE_STATEMENT_TIMEOUT_MS: 30_000,
      DATABASE_CONNECT_TIMEOUT_MS: 10_000,
      METRICS_PORT: 9464,
    });
  });
});

describe('Embeddings settings', () => {
  const schema = z.object(embeddings).superRefine(checkEmbeddings);
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig('search', schema, env);
    } catch (err) {
      return (err as ConfigError).message;
    }
    return '';
  };

  it('default to the local model, its thread at nice 10', () => {
    expect(loadConfig('search', schema, {})).toEqual({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_THREAD_NICE: 10 });
  });

  it('take a nice value of 0-19 only', () => {
    expect(loadConfig('search', schema, { EMBEDDINGS_THREAD_NICE: '0' })).toMatchObject({ EMBEDDINGS_THREAD_NICE: 0 });
    for (const bad of ['-5', '20', '1.5', 'low'])
      expect(problems({ EMBEDDINGS_THREAD_NICE: bad }), bad).toMatch(/EMBEDDINGS_THREAD_NICE/);
  });

  it('the openai provider needs a base URL and a model, named without echoing the key', () => {
    const message = problems({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_API_KEY: 'sk-very-secret' });
    expect(message).toMatch(/EMBEDDINGS_BASE_URL/);
    expect(message).toMatch(/EMBEDDINGS_MODEL/);
    expect(message).not.toContain('sk-very-secret');
    expect(
      loadConfig('search', schema, {
        EMBEDDINGS_PROVIDER: 'openai',
        EMBEDDINGS_BASE_URL: 'http://127.0.0.1:8000',
        EMBEDDINGS_MODEL: 'intfloat/multilingual-e5-small',
      }),
    ).toMatchObject({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_MODEL: 'intfloat/multilingual-e5-small' });
  });

  it('an unknown provider is a start-up error', () => {
    expect(problems({ EMBEDDINGS_PROVIDER: 'cohere' })).toMatch(/EMBEDDINGS_PROVIDER/);
  });
});
