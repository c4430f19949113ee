import { rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ENTRIES = {
  child: fileURLToPath(new URL('./sandbox-child.ts', import.meta.url)),
  supervisor: fileURLToPath(new URL('./sandbox-supervisor.ts', import.meta.url)),
};

/**
 * Packages bundled into the sandbox's entry: the HTML path's parsers, which every page capture
 * loads. The others (pdf.js, tesseract and its data, mammoth, word-extractor, yauzl, image-size)
 * stay where npm put them, imported by absolute URL when a job of their format needs them:
 * some load files relative to their own folder at run time.
 */
const BUNDLED = new Set(['linkedom', '@mozilla/readability', 'turndown']);
const BUILTINS = new Set(builtinModules);

const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

const inPackage = (file: string) => file.split(path.sep).includes('node_modules');

/**
 * A package our own sources import, outside BUNDLED, becomes an import of its resolved file,
 * so the bundle runs from any folder (our sources sit beside this file: they resolve as it
 * does). What the bundled packages import is bundled with them, but for Node's own modules and
 * the optional ones they look for and may not find (linkedom's `canvas`), which stay as they are.
 */
const resolvedExternals: Plugin = {
  name: 'kg-resolved-externals',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || BUILTINS.has(args.path)) return { path: args.path, external: true };
      if (inPackage(args.importer)) return undefined;
      if (BUNDLED.has(packageName(args.path))) return undefined;
      return { path: import.meta.resolve(args.path), external: true };
    });
    // Our sources keep their own location: what they resolve from it (ocr.ts: tesseract's
    // files) is found where it was, not beside the bundle.
    b.onLoad({ filter: /\.ts$/ }, async (args) =>
      inPackage(args.path)
        ? undefined
        : {
            contents: (await readFile(args.path, 'utf8')).replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(args.path).href),
            ),
            loader: 'ts',
          },
    );
  },
};

/** The two entries, in one folder: the supervisor finds the child's beside its own. */
export interface SandboxEntries {
  /** One sandbox process (sandbox-child.ts). */
  child: string;
  /** The process that starts them (sandbox-supervisor.ts). */
  supervisor: string;
}

let entries: Promise<SandboxEntries> | null = null;

const PREFIX = 'kg-extract-';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes the folders of this user's processes that are gone: a process killed without its
 * `exit` event (SIGKILL, a test runner's worker) cannot remove its own. Each folder names its
 * process; a process still running keeps its folder.
 */
export async function removeLeftovers(): Promise<void> {
  const uid = process.getuid?.();
  for (const name of await readdir(tmpdir()).catch(() => [])) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    const dir = path.join(tmpdir(), name);
    const info = await stat(dir).catch(() => null);
    if (info?.isDirectory() && (uid === undefined || info.uid === uid)) await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The sandbox's entries as plain JavaScript: sandbox-child.ts, sandbox-supervisor.ts and what
 * they import, bundled by esbuild into a folder of their own under the temporary directory,
 * once per process (removed when the process exits, or by the next build after it was killed). A sandbox process then starts with
 * `node` alone: under tsx's loader, every page capture paid ~1 s of CPU to start one
 * (transforming and loading linkedom, Readability and turndown), bundled ~0.2 s.
 */
export function sandboxEntries(): Promise<SandboxEntries> {
  entries ??= (async () => {
    await removeLeftovers();
    const dir = await mkdtemp(path.join(tmpdir(), `${PREFIX}${process.pid}-`));
    const remove = () => rmSync(dir, { recursive: true, force: true });
    process.once('exit', remove);
    await build({
      entryPoints: Object.values(ENTRIES),
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      outdir: dir,
      logLevel: 'silent',
      plugins: [resolvedExternals],
      // CommonJS inside the bundle (turndown) may require() Node's own modules.
      banner: {
        js: "import { createRequire as __kgRequire } from 'node:module'; const require = __kgRequire(import.meta.url);",
      },
    }).catch(async (err: unknown) => {
      process.off('exit', remove);
      await rm(dir, { recursive: true, force: true });
      throw err;
    });
    return { child: path.join(dir, 'sandbox-child.js'), supervisor: path.join(dir, 'sandbox-supervisor.js') };
  })();
  entries.catch(() => (entries = null)); // a failed build is tried again by the next job
  return entries;
}

/** The sandbox process's entry alone (a sandbox run from this process: tests). */
export const sandboxEntry = () => sandboxEntries().then((e) => e.child);
