import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { LoadSamples } from '../raw-load.js';
import { waitFor } from '../service-process.js';

/** The Node flags `npm start` runs the service with, so every server in a bench runs with the same ones. */
export function startScriptNodeFlags(): string[] {
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  const words = scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1).filter((word) => word.startsWith('--'));
}

/** A built peer server (dist/bench/support/peers/<name>.js) on 127.0.0.1:`port`, answering `readyPath` with 200. */
export async function startPeerServer(name: string, port: number, readyPath: string, env: Record<string, string>, children: ChildProcess[]): Promise<string> {
  const child = spawn(process.execPath, [...startScriptNodeFlags(), `dist/bench/support/peers/${name}.js`], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    return (await fetch(`${base}${readyPath}`).catch(() => null))?.ok === true;
  }, 60_000, 100);
  return base;
}

/**
 * A built peer (dist/bench/support/peers/<name>.js) that loads something itself: ready once it
 * prints `ready`; each `run(seconds)` writes `run <seconds>` to it and parses the JSON line it answers.
 */
export async function startLoadPeer(name: string, env: Record<string, string>, children: ChildProcess[]): Promise<(seconds: number) => Promise<LoadSamples>> {
  const child = spawn(process.execPath, [...startScriptNodeFlags(), `dist/bench/support/peers/${name}.js`], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error(`${name} exited with ${child.exitCode ?? child.signalCode}`);
    return line.value;
  };
  if ((await next()) !== 'ready') throw new Error(`${name} did not start`);
  return async (seconds) => {
    child.stdin?.write(`run ${seconds}\n`);
    return JSON.parse(await next()) as LoadSamples;
  };
}

/** Stops every child still running and waits for each to exit. */
export async function stopChildren(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // A load peer ends when its stdin closes; a server on SIGTERM.
      child.stdin?.end();
      child.kill('SIGTERM');
      // Past the service's own 15 s shutdown bound, so a profile it writes on exit is complete.
      const forced = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(forced);
    }),
  );
}
