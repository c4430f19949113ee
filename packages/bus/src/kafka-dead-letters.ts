import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type KafkaConfig, type KafkaMessage } from 'kafkajs';
import type { DeadLetter } from './dead-letters';
import { deadLetterTopic } from './port';
import './kafkajs-idle-fix'; // before any client: kafkajs 2.2.4 spins while idle

/** The consumer group whose committed offsets mark the dead letters already handled. */
export const DLQ_TOOL_GROUP = 'kg.dlq-tool';

export interface KafkaDeadLetters {
  /** Letters of `<topic>.dlq` after the tool's committed offsets, oldest first per partition. */
  list(topic: string): Promise<DeadLetter[]>;
  /** Publishes those letters again to `topic`, then commits past them; returns how many. */
  replay(topic: string): Promise<number>;
  /** Commits past those letters without publishing them; returns how many. */
  drop(topic: string): Promise<number>;
  close(): Promise<void>;
}

interface Pending {
  letters: Array<{ letter: DeadLetter; message: KafkaMessage }>;
  /** Offset to commit per partition once they are handled (the high watermark read). */
  ends: Array<{ partition: number; offset: string }>;
}

const text = (v: Buffer | string | (Buffer | string)[] | undefined) =>
  v === undefined ? undefined : (Array.isArray(v) ? v[0] : v)?.toString();

function toLetter(topic: string, partition: number, m: KafkaMessage): DeadLetter {
  const raw = m.value?.toString() ?? '';
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // not JSON: shown as the raw text
  }
  const group = text(m.headers?.['group']);
  return {
    id: `${partition}:${m.offset}`,
    topic: text(m.headers?.['original-topic']) ?? topic,
    key: m.key?.toString() ?? '',
    value,
    error: text(m.headers?.['error']) ?? '',
    ...(group ? { group } : {}),
    failed_at: text(m.headers?.['failed-at']) ?? new Date(Number(m.timestamp)).toISOString(),
  };
}

/**
 * The dead-letter tool's Kafka side. Which letters are pending is kept as the committed
 * offsets of one consumer group (`kg.dlq-tool`) on `<topic>.dlq`: `list` reads from
 * there up to the high watermark seen at the start (without committing), `replay`
 * republishes those to the original topic and commits, `drop` only commits. Letters
 * that arrive meanwhile stay pending for the next run. Reading uses a throwaway group
 * (deleted afterwards) so the tool's own group never has members and can be committed.
 */
export function createKafkaDeadLetters(
  config: Pick<KafkaConfig, 'brokers' | 'ssl' | 'sasl'>,
  opts: { group?: string; timeoutMs?: number } = {},
): KafkaDeadLetters {
  const group = opts.group ?? DLQ_TOOL_GROUP;
  const kafka = new Kafka({ ...config, clientId: 'kg-dlq', logLevel: logLevel.NOTHING, connectionTimeout: 3000 });
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  let connected: Promise<void> | null = null;
  const connect = () => (connected ??= Promise.all([admin.connect(), producer.connect()]).then(() => undefined));

  async function pending(topic: string): Promise<Pending> {
    await connect();
    const dlq = deadLetterTopic(topic);
    const highs = await admin.fetchTopicOffsets(dlq);
    const [committed] = await admin.fetchOffsets({ groupId: group, topics: [dlq] });
    const starts = new Map<number, bigint>();
    for (const p of highs) {
      const done = committed?.partitions.find((c) => c.partition === p.partition)?.offset ?? '-1';
      const start = BigInt(done) >= 0n ? BigInt(done) : BigInt(p.low);
      starts.set(p.partition, start > BigInt(p.low) ? start : BigInt(p.low));
    }
    const ends = highs.map((p) => ({ partition: p.partition, offset: p.high }));
    const open = highs.filter((p) => starts.get(p.partition)! < BigInt(p.high));
    if (open.length === 0) return { letters: [], ends };

    const readerGroup = `${group}.reader.${randomUUID()}`;
    const reader = kafka.consumer({ groupId: readerGroup, sessionTimeout: 10_000 });
    const read: Pending['letters'] = [];
    const remaining = new Set(open.map((p) => p.partition));
    try {
      await reader.connect();
      await reader.subscribe({ topic: dlq, fromBeginning: true });
      const finished = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out reading ${dlq}`)), opts.timeoutMs ?? 30_000);
        void reader.run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            const high = BigInt(highs.find((p) => p.partition === partition)!.high);
            const offset = BigInt(message.offset);
            if (offset < starts.get(partition)! || offset >= high) return;
            read.push({ letter: toLetter(topic, partition, message), message });
            if (offset === high - 1n) remaining.delete(partition);
            if (remaining.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
      for (const p of highs)
        reader.seek({ topic: dlq, partition: p.partition, offset: String(starts.get(p.partition)) });
      await finished;
    } finally {
      await reader.disconnect();
      await admin.deleteGroups([readerGroup]).catch(() => undefined);
    }
    read.sort((a, b) => a.letter.failed_at.localeCompare(b.letter.failed_at));
    return { letters: read, ends };
  }

  const commit = (topic: string, ends: Pending['ends']) =>
    admin.setOffsets({ groupId: group, topic: deadLetterTopic(topic), partitions: ends });

  return {
    list: async (topic) => (await pending(topic)).letters.map((l) => l.letter),
    async replay(topic) {
      const { letters, ends } = await pending(topic);
      if (letters.length) {
        await producer.send({
          topic,
          acks: -1,
          messages: letters.map(({ message }) => ({ key: message.key, value: message.value })),
        });
      }
      await commit(topic, ends);
      return letters.length;
    },
    async drop(topic) {
      const { letters, ends } = await pending(topic);
      await commit(topic, ends);
      return letters.length;
    },
    async close() {
      await Promise.allSettled([admin.disconnect(), producer.disconnect()]);
    },
  };
}
