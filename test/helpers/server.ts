import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const CLI = join(process.cwd(), 'dist/src/cli.js');

export interface Server {
  process: ChildProcess;
  base: string;
  logs: string[];
}

/** Starts `causa serve` as a real process on a free port; resolves once it logs its address (at LOG_LEVEL info or finer). */
export function startServer(dataDir: string, env: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', CAUSA_DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${logs.join('\n')}`));
    }, 20_000);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n').filter(Boolean)) {
        logs.push(line);
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve({ process: child, base: match[1]!, logs });
        }
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => logs.push(chunk));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${logs.join('\n')}`)));
  });
}

export function stop(server: Server, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    server.process.removeAllListeners('exit');
    server.process.on('exit', (code) => resolve(code));
    server.process.kill(signal);
  });
}
