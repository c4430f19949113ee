import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { installBlock } from './install-block';

const README = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'), 'utf8');

describe("the README's install block (what scripts/k8s/test.ts runs)", () => {
  it('is the commands of the README, without the docker line', () => {
    const block = installBlock(README);
    expect(block).not.toMatch(/^docker /m);
    expect(block).toMatch(/^kubectl create namespace kg$/m);
    expect(block).toMatch(/^helm upgrade --install kg deploy\/helm\/knowledge-graph -n kg -f my-values.yaml/m);
    expect(block).toMatch(/--wait/);
    expect(block).toMatch(/^helm test kg -n kg/m);
    // The secrets made on the way are removed by the block itself.
    expect(block).toMatch(/^rm -r keys\/ auth-signing-key\.jwk\.json$/m);
  });

  it('keeps a command with continuation lines or a quoted newline whole', () => {
    const readme = [
      '<!-- install-on-kubernetes -->',
      '```sh',
      'docker build -t x . \\',
      '  && docker push x',
      'node -e "a;',
      '  b" > f',
      'kubectl apply -f f',
      '```',
    ].join('\n');
    expect(installBlock(readme)).toBe('node -e "a;\n  b" > f\nkubectl apply -f f');
  });

  it('fails loudly when the marker or the block is gone', () => {
    expect(() => installBlock('# README\n')).toThrow(/marker/);
    expect(() => installBlock('<!-- install-on-kubernetes -->\ntext only')).toThrow(/block/);
  });
});
