import { WORKSPACE_ROOT } from '@jumbe/testing';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** What one `npx jumbe …` run left behind. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const CLI_ENTRY = join(WORKSPACE_ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');

/**
 * Runs the CLI as the operator does (a real child process from dist/), with only PATH, HOME and
 * `env` in its environment, so nothing from the test runner's environment leaks in.
 */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      cwd: WORKSPACE_ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`jumbe ${args.join(' ')} did not finish within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
