import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core in the page under test: every dashboard page must pass WCAG 2 A and AA (2.0, 2.1, 2.2).
 * The engine is evaluated through the DevTools protocol, not added as a <script> tag, so the
 * page's own Content-Security-Policy stays in force while it is checked.
 */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** The violations of the page as it is now (light or dark, whatever the page shows). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Colours measured mid-transition (a scheme just switched) are neither scheme's: let them finish.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation instanceof CSSTransition)
        .map((animation) => animation.finished.catch(() => undefined)),
    ),
  );
  const loaded = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<unknown> } }).axe;
    const result = (await axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      resultTypes: ['violations'],
    })) as {
      violations: AxeViolation[];
    };
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target, failureSummary: node.failureSummary })),
    }));
  }, WCAG_TAGS);
}

/** One line per failing element, so a failed assertion says what to fix. */
export function describeViolations(violations: AxeViolation[]): string[] {
  return violations.flatMap((violation) =>
    violation.nodes.map(
      (node) =>
        `${violation.id} (${violation.impact}): ${node.target.join(' ')} — ${violation.help}; ${node.failureSummary ?? ''}`,
    ),
  );
}

/** The page passes in the light and in the dark colour scheme (the scheme is restored to light). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    problems.push(...describeViolations(await axeViolations(page)).map((line) => `[${colorScheme}] ${line}`));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return problems;
}
