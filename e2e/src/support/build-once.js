// Builds dist/ once before the suites start processes from it.
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

module.exports = async () => {
  execFileSync(process.execPath, [join(__dirname, '..', '..', '..', 'tools', 'build.mjs')], {
    stdio: 'inherit',
  });
};
