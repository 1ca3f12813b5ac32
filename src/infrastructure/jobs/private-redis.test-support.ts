import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';

/**
 * A redis-server of the test's own, on a port of its own, that the test may kill and start again
 * (the shared Redis on :6379 serves other tests and is never stopped). Nothing is persisted: a
 * restarted server is empty, as after a crash without persistence.
 */
export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  readonly running: boolean;
  start(): Promise<void>;
  /** SIGKILL: the server vanishes mid-command, like a crash. */
  stop(): Promise<void>;
  /** SIGSTOP / SIGCONT: the server keeps its connections but answers nothing, like a hung host. */
  freeze(): void;
  thaw(): void;
}

/**
 * A port nobody listens on now, for a server a test starts later. Picked below the kernel's
 * ephemeral range (32768–60999 on Linux): a port the kernel handed out and took back can go to
 * any server another test worker opens on port 0 before this one is started, and that server
 * would then answer in its place.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await listenable(port)) return port;
  }
}

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A port with no server yet: call `start()` when the test wants Redis to appear. */
export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return child !== null;
    },
    async start() {
      if (child) return;
      child = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'], { stdio: 'ignore' });
      const deadline = Date.now() + 10_000;
      while (!(await accepts(port))) {
        if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
    async stop() {
      const running = child;
      if (!running) return;
      child = null;
      if (running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGKILL');
      await exited;
    },
  };
}
