import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

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
  // Colours measured mid-transition (a scheme just switched) are neither scheme's: jump every
  // transition to its end. Not awaiting `finished`: a page that paints no frames (seen after a
  // download under CI load) never finishes a transition, and the wait hung the test for good.
  await page.evaluate(() => {
    for (const animation of document.getAnimations()) {
      if (!(animation instanceof CSSTransition)) continue;
      try {
        animation.finish();
      } catch {
        // A transition with no finite end cannot be finished; its colours are its own.
      }
    }
  });
  const loaded = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const run = page.evaluate(async (tags) => {
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
  return withinTime(run, AXE_TIME_LIMIT_MS, `axe gave no answer within ${AXE_TIME_LIMIT_MS} ms on ${page.url()}`);
}

/** A check that never answers fails with its own message rather than as the test's bare timeout. */
const AXE_TIME_LIMIT_MS = 30_000;

function withinTime<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
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
  // From the top of the page: a reload keeps the scroll position, and controls scrolled under the
  // sticky header then count as obscured targets (target-size) though a person scrolls back to them.
  // The browser may restore a reload's scroll position after the load, so scroll until it holds.
  await expect
    .poll(
      () =>
        page.evaluate(async () => {
          window.scrollTo(0, 0);
          await new Promise((settled) => requestAnimationFrame(() => requestAnimationFrame(settled)));
          await new Promise((settled) => setTimeout(settled, 50));
          return window.scrollY;
        }),
      { timeout: 5_000 },
    )
    .toBe(0);
  const problems: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    problems.push(...describeViolations(await axeViolations(page)).map((line) => `[${colorScheme}] ${line}`));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return problems;
}
