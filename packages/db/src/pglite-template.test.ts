import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './client';
import { forgetPgliteTemplate, templateFile } from './pglite-template';

const root = mkdtempSync(path.join(tmpdir(), 'kg-pglite-template-'));
const open: Database[] = [];
const opened = async (opts: Parameters<typeof openDatabase>[0]) => {
  const database = await openDatabase(opts);
  open.push(database);
  return database;
};
const copies = (dir: string) => readdirSync(dir).filter((f) => /^pgdata-.+\.tar$/.test(f));
const count = async (database: Database, table: string) => {
  const result = await database.db.execute(sql.raw(`select count(*)::int as n from ${table}`));
  return (result as unknown as { rows: Array<{ n: number }> }).rows[0]!.n;
};

afterAll(async () => {
  for (const database of open) await database.close();
  rmSync(root, { recursive: true, force: true });
});

describe('PGlite databases made from a copy of initdb', () => {
  it('gives each in-memory database its own data', async () => {
    const a = await opened({ dataDir: null });
    const b = await opened({ dataDir: null });
    await a.db.execute(sql`create table only_in_a (x int)`);
    await a.db.execute(sql`insert into only_in_a values (1)`);
    expect(await count(a, 'only_in_a')).toBe(1);
    await expect(b.db.execute(sql`select * from only_in_a`)).rejects.toThrow(/only_in_a/);
  });

  it('keeps the copy on disk for the next process, and never refills a folder that holds a database', async () => {
    const templates = path.join(root, 'templates');
    const dataDir = path.join(root, 'data-1');
    forgetPgliteTemplate(undefined); // the copy is made (initdb) and written
    const first = await opened({ dataDir, templateDir: templates });
    expect(copies(templates)).toHaveLength(1);
    await first.db.execute(sql`create table kept (x int)`);
    await first.db.execute(sql`insert into kept values (1), (2)`);
    await first.close();
    open.splice(open.indexOf(first), 1);

    forgetPgliteTemplate(undefined); // as a new process: the copy comes from disk
    const again = await opened({ dataDir, templateDir: templates });
    expect(await count(again, 'kept')).toBe(2);
    const other = await opened({ dataDir: path.join(root, 'data-2'), templateDir: templates });
    await expect(other.db.execute(sql`select * from kept`)).rejects.toThrow(/kept/);
  });

  it('holds no copy in memory once the folder keeps it: each new database reads the file', async () => {
    const templates = path.join(root, 'read-each-time');
    forgetPgliteTemplate(undefined);
    await opened({ dataDir: path.join(root, 'data-4'), templateDir: templates });
    rmSync(templateFile(templates));

    // With no copy in memory, the next new database makes it again (and writes it back).
    const next = await opened({ dataDir: path.join(root, 'data-5'), templateDir: templates });
    expect(copies(templates)).toHaveLength(1);
    await next.db.execute(sql`create table made_again (x int)`);
    expect(await count(next, 'made_again')).toBe(0);
  });

  it('drops a damaged copy and runs initdb instead', async () => {
    const templates = path.join(root, 'damaged');
    mkdirSync(templates);
    const file = templateFile(templates);
    writeFileSync(file, 'not a tar archive, or one cut short');
    forgetPgliteTemplate(undefined);

    const database = await opened({ dataDir: path.join(root, 'data-3'), templateDir: templates });
    await database.db.execute(sql`create table fresh (x int)`);
    expect(await count(database, 'fresh')).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});
