#!/usr/bin/env node
// The operator CLI (`npx jumbe --help`). Builds the project first when the sources changed.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
execFileSync(process.execPath, [join(root, 'tools', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
require(join(root, 'dist', 'apps', 'cli', 'src', 'main.js'));
