// Shared StrykerJS settings for `npm run mutation [lib…]` (tools/mutation.mjs): one lib per run,
// its own Jest config, only the files named in the lib's config mutated, and mutants that do not
// type-check discarded before any test runs. The machine is shared, so concurrency stays low.

/**
 * @param {string} lib the folder under libs/
 * @param {{ mutate: string[], tests?: string[], timeoutMS?: number }} options `tests`: the spec
 *   files (under the lib's src/) that guard the mutated files, when the lib's whole suite is too
 *   slow or too load-sensitive to run per mutant; by default all of the lib's specs run.
 * @param {string} name the run's name in reports/mutation/ (a part of a lib has its own)
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export function mutationConfig(lib, { mutate, tests, timeoutMS = 5_000 }, name = lib) {
  return {
    $schema: '../../node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    packageManager: 'npm',
    testRunner: 'jest',
    jest: {
      projectType: 'custom',
      configFile: `libs/${lib}/jest.config.js`,
      enableFindRelatedTests: false,
      ...(tests ? { config: { testMatch: tests.map((spec) => `<rootDir>/src/${spec}`) } } : {}),
    },
    coverageAnalysis: 'perTest',
    checkers: ['typescript'],
    // The checker compiles only this lib's sources (and what they import), not the whole monorepo.
    tsconfigFile: `tools/mutation/tsconfig.${lib}.json`,
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
    mutate: mutate.map((glob) =>
      glob.startsWith('!') ? `!libs/${lib}/src/${glob.slice(1)}` : `libs/${lib}/src/${glob}`,
    ),
    ignorePatterns: [
      'dist',
      'data',
      'tmp',
      'coverage',
      '.nx',
      'reports',
      'bench',
      'docs',
      'deploy',
      'examples',
      'e2e',
      'e2e-security',
      'apps/dashboard',
    ],
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
    timeoutMS,
    timeoutFactor: 2,
    // Re-runs after adding a test only retest the mutants whose code or tests changed.
    incremental: true,
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    reporters: ['clear-text', 'progress', 'html', 'json'],
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
    tempDirName: '.stryker-tmp',
    cleanTempDir: true,
    thresholds: { high: 90, low: 80, break: null },
  };
}
