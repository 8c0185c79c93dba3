import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const WORKSPACE_ROOT = join(__dirname, '..', '..', '..');

export type ServiceEntry = 'all-in-one' | 'gateway' | 'session-worker' | 'webhook-dispatcher';

/** A Jumbe service started as a real process from the build output, as production runs it. */
export class ServiceProcess {
  private readonly output: string[] = [];

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly url: string,
    output: string[],
  ) {
    this.output = output;
  }

  /** Starts `dist/apps/<entry>/src/main.js` and waits for its "listening" log line. */
  static async start(
    entry: ServiceEntry,
    env: Record<string, string>,
    options: { timeoutMs?: number; name?: string } = {},
  ): Promise<ServiceProcess> {
    const child = spawn(process.execPath, [join(WORKSPACE_ROOT, 'dist', 'apps', entry, 'src', 'main.js')], {
      cwd: WORKSPACE_ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        JUMBE_LOG_LEVEL: 'info',
        JUMBE_HOST: '127.0.0.1',
        JUMBE_PORT: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new Error(`${entry} did not start within ${options.timeoutMs ?? 60_000} ms`)),
        options.timeoutMs ?? 60_000,
      );
      const fail = (error: Error) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(`${error.message}\n--- output ---\n${output.slice(-40).join('\n')}`));
      };
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream! }).on('line', (line) => {
          output.push(line);
          if (output.length > 2_000) output.shift();
          const listening = /"url":"(http:\/\/[^"]+)".*listening/.exec(line);
          if (listening?.[1]) {
            clearTimeout(timer);
            resolve(listening[1].replace('[::1]', '127.0.0.1'));
          }
        });
      }
      child.once('exit', (code, signal) =>
        fail(new Error(`${entry} exited early (code ${code}, signal ${signal})`)),
      );
    });
    return new ServiceProcess(options.name ?? entry, child, url, output);
  }

  /** Everything the process has logged so far (last 2,000 lines). */
  logs(): string {
    return this.output.join('\n');
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Stops the process with `signal` and waits for it to exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }
}
