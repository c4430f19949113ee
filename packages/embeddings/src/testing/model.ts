import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FETCH = fileURLToPath(new URL('../../../../scripts/models/fetch-minilm.sh', import.meta.url));

/** Makes sure the default model is in .tools/models (a no-op once fetched; downloads ~100 MB the first time). */
export function ensureLocalModel(): void {
  execFileSync('bash', [FETCH], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 });
}
