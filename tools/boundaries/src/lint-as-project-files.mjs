// Lints source texts as if they were files of the workspace's projects, the way
// `nx run <project>:lint` does (ESLint started in the project's folder, with its config), and
// prints each file's error messages as JSON. Input on stdin: [{ "file": "libs/x/src/y.ts", "code": "..." }].
// It runs as a child process of the spec because Jest's module sandbox cannot load ESLint's
// ECMAScript-module configs.
import { createProjectGraphAsync } from '@nx/devkit';
import { ESLint } from 'eslint';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const workspaceRoot = resolve(import.meta.dirname, '../../..');

/** The folder of the project `file` belongs to: the nearest one holding a project.json. */
function projectFolderOf(file) {
  for (
    let folder = dirname(join(workspaceRoot, file));
    folder.startsWith(workspaceRoot);
    folder = dirname(folder)
  ) {
    if (existsSync(join(folder, 'project.json'))) return folder;
  }
  throw new Error(`${file} belongs to no project`);
}

const fixtures = JSON.parse(readFileSync(0, 'utf8'));
// The boundary rule reads tags from Nx's cached project graph; bring it up to date first.
await createProjectGraphAsync({ exitOnError: true });
const linted = [];
for (const { file, code } of fixtures) {
  const eslint = new ESLint({ cwd: projectFolderOf(file) });
  const [result] = await eslint.lintText(code, { filePath: join(workspaceRoot, file) });
  const errors = result.messages
    .filter((m) => m.severity === 2)
    .map(({ ruleId, message }) => ({ ruleId, message }));
  linted.push({ file, errors });
}
process.stdout.write(JSON.stringify(linted));
