import type { Reporter, TestModule } from 'vitest/node';

/** CI reads a plain `N passed, N failed, N skipped` closing line; Vitest's own summary is not it. */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but is a failure all the same.
      if (testModule.state() === 'failed' && [...testModule.children.allTests()].length === 0) failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
