import { readFileSync } from 'node:fs';

function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

/**
 * Samples a process's resident memory (VmRSS) every `everyMs` while `during` runs: the peak seen
 * under load, and the kernel's high-water mark (VmHWM, the peak since the process started).
 */
export async function sampleMemory<T>(pid: number, during: () => Promise<T>, everyMs = 200): Promise<{ result: T; peakRssMb: number; highWaterMarkMb: number }> {
  let peakRssMb = statusMb(pid, 'VmRSS');
  const timer = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, statusMb(pid, 'VmRSS'));
  }, everyMs);
  try {
    const result = await during();
    peakRssMb = Math.max(peakRssMb, statusMb(pid, 'VmRSS'));
    return { result, peakRssMb, highWaterMarkMb: statusMb(pid, 'VmHWM') };
  } finally {
    clearInterval(timer);
  }
}
