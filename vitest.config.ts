import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'packages/*/src/**/*.test.ts',
            'services/*/src/**/*.test.ts',
            'scripts/**/*.test.ts',
            'clients/sdk/src/**/*.test.ts',
            'clients/cli/src/**/*.test.ts',
            'clients/mcp/src/**/*.test.ts',
            'clients/dashboard/src/**/*.test.ts',
            'clients/extension/src/**/*.test.ts',
          ],
          exclude: [
            '**/node_modules/**',
            '**/*.postgres.test.ts',
            '**/*.s3.test.ts',
            '**/*.redis.test.ts',
            '**/*.qdrant.test.ts',
          ],
          environment: 'node',
          testTimeout: 20_000,
          // A hook that opens PGlite and migrates (a service's test rig) can take more than
          // vitest's 10 s on a 2-core machine that CI keeps busy with other suites.
          hookTimeout: 60_000,
          // The files of a worker share one module graph: each file no longer loads and
          // transforms its imports afresh (on 2 cores that was more than half of the
          // project's time). A file that mocks a module it imports dynamically resets the
          // modules first (packages/bus/src/kafka-options.test.ts).
          isolate: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/e2e/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // Tests that need real PostgreSQL (GRAPH_TEST_PG_URL), run by npm run test:postgres, the S3
          // blob store against real MinIO (*.s3.test.ts start it with scripts/infra/minio.sh) and
          // the kv store against real Redis (*.redis.test.ts, scripts/infra/redis.sh) and the vector index
          // against real Qdrant (*.qdrant.test.ts, scripts/infra/qdrant.sh).
          name: 'postgres',
          include: [
            'packages/*/src/**/*.postgres.test.ts',
            'services/*/src/**/*.postgres.test.ts',
            'packages/*/src/**/*.s3.test.ts',
            'packages/*/src/**/*.redis.test.ts',
            'services/*/src/**/*.redis.test.ts',
            'packages/*/src/**/*.qdrant.test.ts',
            'services/*/src/**/*.qdrant.test.ts',
          ],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'distributed',
          include: ['test/e2e/**/*.test.ts', 'test/distributed/**/*.test.ts'],
          // The clients' own suites (the CLI, the MCP server's stdio transport and package, the
          // docs) test the clients, which see one API whatever the mode: they run against the
          // embedded server only (npm test). The API suites, MCP over HTTP among them, run here too.
          exclude: [
            '**/node_modules/**',
            'test/e2e/cli-*.test.ts',
            'test/e2e/mcp-stdio.test.ts',
            'test/e2e/mcp-package.test.ts',
            'test/e2e/mcp-refresh.test.ts',
            'test/e2e/docs.test.ts',
          ],
          environment: 'node',
          globalSetup: ['test/distributed/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          sequence: { shuffle: false },
        },
      },
    ],
  },
});
