import { mkdir, readdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isAlive } from './embedded-server.js';

/**
 * `DATA_DIR/postgres-users/<pid>`: one record per process using the embedded server (the service,
 * each command line). A record whose process is gone (`kill -9`) does not count, and is removed.
 */
export class EmbeddedUsers {
  private readonly directory: string;

  constructor(dataDir: string) {
    this.directory = path.join(dataDir, 'postgres-users');
  }

  async enter(pid = process.pid): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    await writeFile(path.join(this.directory, String(pid)), '', { mode: 0o600 });
  }

  async leave(pid = process.pid): Promise<void> {
    await unlink(path.join(this.directory, String(pid))).catch(() => undefined);
  }

  /** The processes other than this one using the server now. */
  async others(pid = process.pid): Promise<number[]> {
    const names = await readdir(this.directory).catch(() => [] as string[]);
    const live: number[] = [];
    for (const name of names) {
      const user = Number(name);
      if (!Number.isInteger(user) || user === pid) continue;
      if (isAlive(user)) live.push(user);
      else await this.leave(user);
    }
    return live;
  }
}
