/** One sample of Prometheus' text exposition format: `name{label="value",…} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/g;

/** Parses the text format (version 0.0.4) into its samples; throws on a line that is not one. */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`Not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1]] = label[2].replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    samples.push({ name: match[1], labels, value: match[3] === '+Inf' ? Infinity : match[3] === '-Inf' ? -Infinity : Number(match[3]) });
  }
  return samples;
}

/** The samples of `name` whose labels include every label given. */
export function samplesOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

/** The value of the one sample of `name` with these labels; throws when there is none or several. */
export function valueOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samplesOf(samples, name, labels);
  if (found.length !== 1) throw new Error(`Expected one sample ${name}${JSON.stringify(labels)}, found ${found.length}`);
  return found[0].value;
}
