// The registry reachable here serves only some platforms' optional binaries, so `npm install`
// leaves the others out of package-lock.json and `npm ci` then refuses the lockfile as out of
// sync. This adds an entry (version, os, cpu, libc, optional) for each optional platform package
// a locked package names but the lockfile lacks; npm skips them on every other platform.
// Run after changing dependencies: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openharmony', 'win32', 'openbsd', 'netbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'arm', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => OS.includes(part));
  const cpu = parts.find((part) => CPU.includes(part));
  if (!os || !cpu) return null;
  const libc = parts.includes('musl') ? 'musl' : parts.includes('gnu') || parts.includes('gnueabihf') ? 'glibc' : undefined;
  return { os, cpu, libc };
}

const path = fileURLToPath(new globalThis.URL('../package-lock.json', import.meta.url));
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dependency, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = key === '' ? 'node_modules/' : `${key}/node_modules/`;
    const hoisted = `node_modules/${dependency}`;
    if (lock.packages[base + dependency] || lock.packages[hoisted]) continue;
    const platform = platformOf(dependency);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[hoisted] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [platform.os],
      cpu: [platform.cpu],
      ...(platform.libc ? { libc: [platform.libc] } : {}),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);
