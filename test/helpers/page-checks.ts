/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);
/** Screenshots of every page checked, phone and desktop, kept as test artifacts (not committed). */
const SCREENSHOTS = new URL('../../test-results/portal/', import.meta.url).pathname;

/** A phone's width and a desktop's. */
export const WIDTHS = [
  [390, 844, 'phone'],
  [1280, 800, 'desktop'],
] as const;

/**
 * What breaks a page's layout, as the browser laid it out: a box whose content is wider than the
 * box (a cell a number sticks out of), and a word or a number split across lines ("13" over "7").
 * Code, snippets and secrets are left out: a long key or address must wrap somewhere.
 */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const exempt = (element: Element | null) =>
      Boolean(element?.closest('pre, code, textarea, svg, .visually-hidden, [hidden]'));
    const boxes = document.querySelectorAll(
      'td, th, dd, dt, li, p, h1, h2, h3, legend, button, a.button, .field',
    );
    for (const box of boxes) {
      const element = box as HTMLElement;
      if (exempt(element) || getComputedStyle(element).display === 'inline') continue;
      if (element.getClientRects().length === 0) continue;
      if (element.scrollWidth > element.clientWidth + 1) {
        problems.push(
          `wider than its box: <${element.tagName.toLowerCase()}> "${(element.textContent ?? '').trim().slice(0, 40)}"`,
        );
      }
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (exempt(node.parentElement)) continue;
      const text = node.textContent ?? '';
      for (const match of text.matchAll(/[\p{L}\p{N}]+(?:[.,:][\p{N}]+)*/gu)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
        if (lines.size > 1) problems.push(`split across lines: "${match[0]}"`);
      }
    }
    return problems;
  });
}

/**
 * At a phone's width and a desktop's: no axe violation (WCAG 2.2 A and AA, and best practice),
 * nothing wider than the screen, no box narrower than what it holds, no word or number split,
 * and a screenshot. The page's scripts may be off; axe is injected (the context bypasses CSP).
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.addScriptTag({ content: AXE_SOURCE });
  for (const [width, height, label] of WIDTHS) {
    await page.setViewportSize({ width, height });
    const result = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: (...args: unknown[]) => Promise<any> } }).axe;
      const run = await axe.run(document, {
        runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'],
      });
      return run.violations.map(
        (v: { id: string; nodes: Array<{ target: unknown }> }) =>
          `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
      );
    });
    expect(result, `${name} (${label}): accessibility`).toEqual([]);
    // What sticks out past the screen's right edge, outermost first, if anything does.
    const sticking = await page.evaluate(() => {
      const edge = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth <= edge) return [];
      // Inside a scroll region a wide table is fine: it scrolls there, not the page.
      return [...document.body.querySelectorAll('*')]
        .filter((element) => element.getBoundingClientRect().right > edge + 1)
        .filter((element) => !element.parentElement?.closest('.table-scroll, pre'))
        .slice(0, 3)
        .map((element) => `<${element.tagName.toLowerCase()} class="${element.className}">`);
    });
    expect(sticking, `${name} (${label}): wider than the screen`).toEqual([]);
    expect(await layoutProblems(page), `${name} (${label}): layout`).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}${name}-${label}.png`, fullPage: true });
  }
}
