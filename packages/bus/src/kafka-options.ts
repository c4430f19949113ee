import type { KafkaConfig, SASLOptions } from 'kafkajs';

/** The Kafka part of a service's parsed config (packages/config `env.kafka`). */
export interface KafkaEnv {
  KAFKA_BROKERS: string[];
  KAFKA_SSL: boolean;
  KAFKA_SSL_CA?: string | undefined;
  KAFKA_SASL_MECHANISM?: 'plain' | 'scram-sha-256' | 'scram-sha-512' | undefined;
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
  KAFKA_REPLICATION_FACTOR: number;
}

/** How the bus reaches the brokers and creates its topics. */
export interface KafkaConnection {
  brokers: string[];
  /** kafkajs `ssl`: true for the system CAs, or TLS options with a private CA. */
  ssl?: KafkaConfig['ssl'];
  sasl?: SASLOptions;
  /** Replication factor of every topic and dead-letter topic the bus creates. */
  replicationFactor: number;
}

/**
 * Maps the env to kafkajs settings. A CA implies TLS; SASL needs mechanism, username and
 * password together (the config schema refuses anything else, so this only maps).
 */
export function kafkaConnection(env: KafkaEnv): KafkaConnection {
  const connection: KafkaConnection = { brokers: env.KAFKA_BROKERS, replicationFactor: env.KAFKA_REPLICATION_FACTOR };
  if (env.KAFKA_SSL_CA) connection.ssl = { ca: [env.KAFKA_SSL_CA], rejectUnauthorized: true };
  else if (env.KAFKA_SSL) connection.ssl = true;
  if (env.KAFKA_SASL_MECHANISM) {
    if (!env.KAFKA_SASL_USERNAME || !env.KAFKA_SASL_PASSWORD)
      throw new Error(
        `KAFKA_SASL_MECHANISM=${env.KAFKA_SASL_MECHANISM} needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD`,
      );
    connection.sasl = {
      mechanism: env.KAFKA_SASL_MECHANISM,
      username: env.KAFKA_SASL_USERNAME,
      password: env.KAFKA_SASL_PASSWORD,
    } as SASLOptions;
  }
  return connection;
}

/** The topics to create among `wanted`, each with the configured partitions and replication factor. */
export function topicsToCreate(
  wanted: string[],
  existing: Iterable<string>,
  opts: { partitions: number; replicationFactor: number },
) {
  const have = new Set(existing);
  return wanted
    .filter((t) => !have.has(t))
    .map((topic) => ({ topic, numPartitions: opts.partitions, replicationFactor: opts.replicationFactor }));
}
