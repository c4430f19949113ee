import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { UsageError } from './exit-codes.ts';

/** Everything on stdin (refused on a terminal, where it would wait for typing without saying so). */
export async function readStdin(what: string): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError(`${what}: nothing on stdin (pipe text in, or pass it as an argument)`);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A file's text, or stdin for `-`. */
export const readTextArg = (file: string) => (file === '-' ? readStdin('--file -') : readFile(file, 'utf8'));

/** One line from stdin, with a prompt on stderr (works when stdin is piped too). */
export async function askLine(prompt: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: !!process.stdin.isTTY });
  try {
    if (!process.stdin.isTTY) process.stderr.write(prompt);
    const answer = await rl.question(process.stdin.isTTY ? prompt : '');
    return answer.trim();
  } finally {
    rl.close();
  }
}

/** Opens `file` in $VISUAL / $EDITOR (default vi) and waits for it to close. */
export function runEditor(file: string): Promise<void> {
  const editor = process.env['VISUAL'] || process.env['EDITOR'] || 'vi';
  return new Promise((resolve, reject) => {
    // Through a shell, so EDITOR may carry arguments ("code --wait").
    const child = spawn(`${editor} "$KG_EDIT_FILE"`, {
      shell: true,
      stdio: 'inherit',
      env: { ...process.env, KG_EDIT_FILE: file },
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`the editor (${editor}) exited with code ${code}; nothing was saved`)),
    );
  });
}
