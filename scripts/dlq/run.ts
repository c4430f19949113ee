import path from 'node:path';
import { z } from 'zod';
import { env } from '@kg/config';
import { TOPICS } from '@kg/contracts';
import { createFileDeadLetterStore, createKafkaDeadLetters, kafkaConnection, type DeadLetter } from '@kg/bus';

/**
 * Env of `npm run dlq`. With KAFKA_BROKERS it works on `<topic>.dlq` in Kafka (the
 * distributed mode); without, on the embedded server's files under DATA_DIR.
 */
export const dlqConfigSchema = z
  .object({
    DATA_DIR: z.string().min(1).default('./data'),
    // The services' Kafka settings (TLS, SASL), with the brokers optional: none means embedded.
    ...env.kafka,
    KAFKA_BROKERS: env.list(),
  })
  .superRefine(env.checkKafka);
export type DlqConfig = z.infer<typeof dlqConfigSchema>;

export const USAGE = `usage: npm run dlq -- <list|replay|drop> <topic>
  list    prints the pending dead letters of <topic>, one JSON object a line
  replay  publishes them again to <topic> (embedded: the running server does it within
          seconds, or at its next start) and removes them from the dead letters
  drop    removes them without publishing
topics: ${Object.values(TOPICS).join(', ')} (a trailing .dlq is accepted)
mode: KAFKA_BROKERS set -> Kafka <topic>.dlq; otherwise the files under DATA_DIR/dead-letters (default ./data)`;

const ACTIONS = ['list', 'replay', 'drop'] as const;
type Action = (typeof ACTIONS)[number];

interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** The three operations over either backend. */
interface Letters {
  where: string;
  list(topic: string): Promise<DeadLetter[]>;
  replay(topic: string): Promise<number>;
  drop(topic: string): Promise<number>;
  close(): Promise<void>;
}

function open(config: DlqConfig): Letters {
  if (config.KAFKA_BROKERS.length) {
    const kafka = createKafkaDeadLetters(kafkaConnection(config));
    return { where: `Kafka (${config.KAFKA_BROKERS.join(',')})`, ...kafka };
  }
  const dir = path.resolve(config.DATA_DIR, 'dead-letters');
  const store = createFileDeadLetterStore(dir);
  return {
    where: dir,
    list: (t) => store.list(t),
    replay: (t) => store.replay(t),
    drop: (t) => store.drop(t),
    close: async () => {},
  };
}

/** Runs one command; returns the process exit code (2 for a usage error). */
export async function runDlq(argv: string[], config: DlqConfig, io: Io): Promise<number> {
  const [action, rawTopic, ...rest] = argv;
  const topic = rawTopic?.replace(/\.dlq$/, '');
  const known: string[] = Object.values(TOPICS);
  if (!ACTIONS.includes(action as Action) || !topic || !known.includes(topic) || rest.length) {
    io.err(USAGE);
    return 2;
  }
  const letters = open(config);
  try {
    if (action === 'list') {
      const all = await letters.list(topic);
      for (const l of all) io.out(JSON.stringify(l));
      io.err(`${all.length} dead letter(s) of ${topic} in ${letters.where}`);
    } else if (action === 'replay') {
      const n = await letters.replay(topic);
      io.err(
        config.KAFKA_BROKERS.length
          ? `${n} dead letter(s) republished to ${topic}`
          : `${n} dead letter(s) of ${topic} marked for replay; the running server publishes them within seconds (or at its next start)`,
      );
    } else {
      io.err(`${await letters.drop(topic)} dead letter(s) of ${topic} dropped`);
    }
    return 0;
  } finally {
    await letters.close();
  }
}
