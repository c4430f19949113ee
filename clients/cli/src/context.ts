import { type Command, InvalidArgumentError } from 'commander';
import { createKgClient, type KgClient } from '@kg/sdk';
import { VERSION } from './version.ts';

let client: KgClient | undefined;

/** The API client, created on first use (SVC_API_URL, SVC_TOKEN and the stored login are read then). */
export function kg(): KgClient {
  client ??= createKgClient({ userAgent: `kg/${VERSION}` });
  return client;
}

export interface JsonOption {
  json?: boolean;
}

/** Adds `--json` to a command that prints data. */
export const jsonOption = (cmd: Command) => cmd.option('--json', 'print the result as JSON (for scripts)');

/** Appends an "Examples" block to a command's --help. */
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

/** An integer option parser with bounds (a bad value is a usage error, exit 2). */
export const int =
  (min: number, max: number) =>
  (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}`);
    return n;
  };

/** A number option parser with bounds. */
export const num =
  (min: number, max: number, exclusiveMin = false) =>
  (raw: string): number => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n > max || (exclusiveMin ? n <= min : n < min))
      throw new InvalidArgumentError(
        `must be a number ${exclusiveMin ? 'above' : 'from'} ${min} ${exclusiveMin ? 'up ' : ''}to ${max}`,
      );
    return n;
  };

/** One of a fixed set of words. */
export const oneOf =
  <T extends string>(...allowed: T[]) =>
  (raw: string): T => {
    if (!(allowed as string[]).includes(raw)) throw new InvalidArgumentError(`must be one of ${allowed.join(', ')}`);
    return raw as T;
  };

/** Collects a repeatable option into an array. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];
