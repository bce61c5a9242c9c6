/**
 * How a pipeline command reports: a progress bar on a terminal (stderr), else quiet JSON lines on stdout (one per
 * step, progress at most once a second), so a scheduler's log stays readable and a script can follow it.
 */
export interface Reporter {
  step(event: string, detail?: Record<string, unknown>): void;
  progress(event: string, fraction: number, state: string): void;
  done(detail: Record<string, unknown>): void;
}

export function reporter(terminal: boolean, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Reporter {
  if (terminal) {
    let open = false;
    const end = () => {
      if (open) err.write('\n');
      open = false;
    };
    return {
      step(event, detail) {
        end();
        err.write(`${event}${detail === undefined ? '' : ` ${Object.entries(detail).map(([k, v]) => `${k}=${String(v)}`).join(' ')}`}\n`);
      },
      progress(event, fraction, state) {
        const width = 30;
        const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
        err.write(`\r${event.padEnd(9)} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(Math.round(fraction * 100)).padStart(3)}% ${state}`.padEnd(100));
        open = true;
      },
      done(detail) {
        end();
        out.write(`${JSON.stringify(detail)}\n`);
      },
    };
  }
  let last = 0;
  const line = (record: Record<string, unknown>) => out.write(`${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`);
  return {
    step: (event, detail) => line({ event, ...detail }),
    progress(event, fraction, state) {
      const now = Date.now();
      if (now - last < 1000 && fraction < 1) return;
      last = now;
      line({ event, progress: Number(fraction.toFixed(3)), state });
    },
    done: (detail) => line({ event: 'done', ...detail }),
  };
}
