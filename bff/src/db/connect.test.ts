import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from './connect.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.skipIf(process.platform === 'win32')('SQLite file modes', () => {
  let root: string;
  let umask: number;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'paydesk-modes-'));
    // The usual default, under which files are created world-readable unless asked otherwise.
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(root, { recursive: true, force: true });
  });

  it('when the database is opened in a new data directory, then the directory is 0700 and the database, its -wal and -shm are 0600', async () => {
    const dir = join(root, 'data', 'bff');
    const file = join(dir, 'paydesk.sqlite');
    const db = await openDatabase({ kind: 'sqlite', file });
    try {
      // The migrations have written: the write-ahead log and its index exist.
      expect(modeOf(join(root, 'data'))).toBe(0o700);
      expect(modeOf(dir)).toBe(0o700);
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
      expect(modeOf(`${file}-shm`)).toBe(0o600);
    } finally {
      await db.close();
    }
  });

  it('when an existing database file is readable by others, then opening it makes it 0600', async () => {
    const file = join(root, 'paydesk.sqlite');
    writeFileSync(file, '', { mode: 0o644 });
    expect(modeOf(file)).toBe(0o644);
    const db = await openDatabase({ kind: 'sqlite', file });
    try {
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
    } finally {
      await db.close();
    }
  });
});
