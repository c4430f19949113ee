import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

/**
 * Proves the lint really enforces the architecture: a service importing another
 * service fails, a service importing a library passes, the host may mount services.
 */
describe('module boundaries', () => {
  let eslint: ESLint;

  beforeAll(() => {
    execFileSync('nx', ['show', 'projects'], { env: { ...process.env, NX_DAEMON: 'false' }, stdio: 'ignore' });
    eslint = new ESLint();
  }, 120_000);

  const lint = async (filePath: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath });
    return (result?.messages ?? []).filter((m) => m.ruleId === '@nx/enforce-module-boundaries');
  };

  it('fails when a service imports another service', async () => {
    const messages = await lint(
      'services/para/src/probe.ts',
      "export { createGraphModule } from '@kg/service-graph/module';\n",
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]?.message).toContain('type:service');
  });

  it('fails when a library imports a service', async () => {
    const messages = await lint(
      'packages/db/src/probe.ts',
      "export { createAuthModule } from '@kg/service-auth/module';\n",
    );
    expect(messages).toHaveLength(1);
  });

  it('lets services use libraries and the host mount services', async () => {
    expect(await lint('services/para/src/probe.ts', "export { newId } from '@kg/db';\n")).toHaveLength(0);
    expect(
      await lint('services/standalone/src/probe.ts', "export { createGraphModule } from '@kg/service-graph/module';\n"),
    ).toHaveLength(0);
  });
});
