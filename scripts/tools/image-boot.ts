/**
 * The image boot test: starts the gateway and the search service from the built image
 * (`buildah run` with the host network, as the image's user 10001) against the scripts/infra
 * servers, and checks that both answer /readyz 200 and that the gateway serves its OpenAPI
 * document; then embeds a sentence inside the image with no network at all (the MiniLM model
 * is in the image). scripts/tools/image-boot.sh builds the image first and runs this.
 *
 *   KG_IMAGE=localhost/knowledge-graph:dev scripts/node24.sh tsx scripts/tools/image-boot.ts
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { generateInternalKeyPair } from '@kg/tokens';

const IMAGE = process.env['KG_IMAGE'] ?? 'localhost/knowledge-graph:dev';
const CACHE = process.env['KG_IMAGE_CACHE'] ?? path.join(homedir(), '.cache/kg/image');
/** The storage driver build-image.sh chose (overlay, or vfs where overlay cannot be mounted). */
const DRIVER = existsSync(`${CACHE}/driver`) ? readFileSync(`${CACHE}/driver`, 'utf8').trim() : 'vfs';
const STORAGE = [
  '--root',
  `${CACHE}/storage-${DRIVER}`,
  '--runroot',
  `${CACHE}/run-${DRIVER}`,
  '--storage-driver',
  DRIVER,
];
const pgPort = process.env['KG_PG_PORT'] ?? '55432';
const log = (msg: string) => console.log(`image-boot: ${msg}`);

const buildah = (...args: string[]) =>
  execFileSync('buildah', [...STORAGE, ...args], {
    encoding: 'utf8',
    env: { ...process.env, BUILDAH_ISOLATION: 'chroot' },
  });

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** `buildah run` in the working container: the image's user, /app, the host network. */
function runArgs(ctr: string, env: Record<string, string>, command: string[]): string[] {
  return [
    ...STORAGE,
    'run',
    '--isolation',
    'chroot',
    '--network',
    'host',
    '--user',
    '10001:10001',
    '--workingdir',
    '/app',
    ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    ctr,
    '--',
    ...command,
  ];
}

const children: ChildProcess[] = [];
function start(ctr: string, name: string, env: Record<string, string>, logDir: string) {
  const out = createWriteStream(path.join(logDir, `${name}.log`));
  const child = spawn('buildah', runArgs(ctr, env, ['node', '--import', 'tsx', `services/${name}/src/main.ts`]), {
    detached: true, // its own process group: buildah, the chroot and node stop together
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  children.push(child);
  return child;
}

async function ready(url: string, child: ChildProcess, name: string, logDir: string) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}; see ${logDir}/${name}.log`);
    const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${name} from the image not ready after 120 s; see ${logDir}/${name}.log`);
}

async function stopAll() {
  for (const child of children) {
    if (child.exitCode !== null || !child.pid) continue;
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid, 'SIGTERM');
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

async function main() {
  const logDir = mkdtempSync(path.join(tmpdir(), 'kg-image-boot-'));
  const ctr = buildah('from', '--pull-never', '--quiet', IMAGE).trim();
  try {
    const db = `kg_image_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: `postgres://kg:kg@127.0.0.1:${pgPort}/kg` });
    await admin.connect();
    await admin.query(`create database "${db}" owner kg`);
    await admin.end();
    const keys = { gateway: await generateInternalKeyPair(), search: await generateInternalKeyPair() };
    const publicKeys = JSON.stringify({ gateway: keys.gateway.publicJwk, search: keys.search.publicJwk });
    const [gatewayPort, searchPort, m1, m2, nowhere] = await Promise.all([1, 2, 3, 4, 5].map(() => freePort()));
    const common = {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      KAFKA_BROKERS: `127.0.0.1:${process.env['KG_KAFKA_PORT'] ?? '59092'}`,
      KAFKA_REPLICATION_FACTOR: '1',
      INTERNAL_PUBLIC_KEYS: publicKeys,
    };
    const databaseUrl = `postgres://kg:kg@127.0.0.1:${pgPort}/${db}`;
    // The migrations Job's step for search, from the image.
    execFileSync(
      'buildah',
      runArgs(ctr, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, [
        'node',
        '--import',
        'tsx',
        'services/search/src/main.ts',
        'migrate',
      ]),
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
    log('search migrations ran from the image');
    const search = start(
      ctr,
      'search',
      {
        ...common,
        PORT: String(searchPort),
        METRICS_PORT: String(m1),
        DATABASE_URL: databaseUrl,
        INTERNAL_SIGNING_KEY: JSON.stringify(keys.search.privateJwk),
        GRAPH_URL: `http://127.0.0.1:${nowhere}`,
        EMBEDDINGS_PROVIDER: 'local',
        VECTORS_DIR: '/tmp/search-vectors',
      },
      logDir,
    );
    const peer = `http://127.0.0.1:${nowhere}`;
    const gateway = start(
      ctr,
      'gateway',
      {
        ...common,
        PORT: String(gatewayPort),
        METRICS_PORT: String(m2),
        INTERNAL_SIGNING_KEY: JSON.stringify(keys.gateway.privateJwk),
        REDIS_URL: `redis://127.0.0.1:${process.env['KG_REDIS_PORT'] ?? '56379'}`,
        AUTH_URL: peer,
        GRAPH_URL: peer,
        PARA_URL: peer,
        CAPTURES_URL: peer,
        SEARCH_URL: `http://127.0.0.1:${searchPort}`,
      },
      logDir,
    );
    await Promise.all([
      ready(`http://127.0.0.1:${searchPort}`, search, 'search', logDir),
      ready(`http://127.0.0.1:${gatewayPort}`, gateway, 'gateway', logDir),
    ]);
    const openapi = await fetch(`http://127.0.0.1:${gatewayPort}/api/v1/openapi.json`);
    if (openapi.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${openapi.status}`);
    log('gateway and search from the image answer /readyz 200; the gateway serves /api/v1/openapi.json');
    // The model is in the image: embed with no network at all.
    const probe = [
      "import { createEmbedder } from '/app/packages/embeddings/src/index.ts';",
      "const e = await createEmbedder({ EMBEDDINGS_PROVIDER: 'local' });",
      "const [v] = await e.embed(['a knowledge graph of linked notes'], 'passage');",
      "if (v.length !== 384) throw new Error('dimensions ' + v.length);",
      "console.log('embedded offline: 384 dimensions');",
    ].join('\n');
    // chroot isolation runs in the caller's network namespace: `unshare --net` gives it an empty one.
    const out = execFileSync(
      'unshare',
      [
        '--net',
        'buildah',
        ...runArgs(ctr, { NODE_ENV: 'production' }, ['node', '--import', 'tsx', '--input-type=module', '-e', probe]),
      ],
      { encoding: 'utf8', env: { ...process.env, BUILDAH_ISOLATION: 'chroot' } },
    );
    log(out.trim().split('\n').at(-1) ?? '');
  } finally {
    await stopAll();
    buildah('rm', ctr);
  }
  log('the image boots: PASS');
}

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    await stopAll();
    console.error(`image-boot: FAIL ${(err as Error).message}`);
    process.exit(1);
  },
);
