import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const LOCK = path.join(ROOT, 'dist/.test-build-lock');
const SOURCES = ['src', 'projections'];

/**
 * The path of the built service, `dist/src/main.js`, rebuilt first (`npm run build`) when a
 * source file is newer: a chaos test must kill the code under test, not yesterday's build. Test
 * files running at once build it once, under a lock directory.
 */
export async function ensureBuiltService(): Promise<string> {
  if (!stale()) return MAIN;
  mkdirSync(path.dirname(LOCK), { recursive: true });
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${LOCK} is still there after 5 minutes: remove it if no build is running`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    if (stale()) {
      await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }).catch(
        (error: Error & { stdout?: string }) => {
          throw new Error(`npm run build failed, so there is no built service to test:\n${error.stdout ?? error.message}`);
        },
      );
    }
  } finally {
    rmdirSync(LOCK);
  }
  return MAIN;
}

function stale(): boolean {
  if (!existsSync(MAIN)) return true;
  const built = statSync(MAIN).mtimeMs;
  return SOURCES.some((folder) => newerThan(path.join(ROOT, folder), built));
}

function newerThan(folder: string, time: number): boolean {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory() ? newerThan(full, time) : entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec|test-support)\.ts$/.test(entry.name) && statSync(full).mtimeMs > time) return true;
  }
  return false;
}
