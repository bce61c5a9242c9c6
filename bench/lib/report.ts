import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

const INTRO = `# Benchmarks

Figures are from this machine, with load generators sharing the cores with the service, so absolute numbers are
noisy; ratios measured in the same run are the meaningful part. Goals are in \`/work/shared/benchmarks/ANCHORS.md\`.
`;

/**
 * Replaces the section that starts with `heading` (up to the next "## " heading that is not part of it) or
 * appends it; creates the file with an intro if missing.
 */
export function writeSection(file: string, heading: string, section: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : INTRO;
  const start = current.indexOf(`${heading}\n`);
  let next: string;
  if (start === -1) {
    next = `${current.trimEnd()}\n\n${section}`;
  } else {
    const after = current.indexOf('\n## ', start + heading.length);
    const rest = after === -1 ? '' : current.slice(after + 1);
    next = `${current.slice(0, start)}${section}${rest === '' ? '' : `\n${rest}`}`;
  }
  writeFileSync(file, `${next.trimEnd()}\n`);
}

/** One line naming the machine and its load, for the top of a section. */
export function machineLine(): string {
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}, 1-minute load average ${loadavg()[0]!.toFixed(2)} at the start`;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
