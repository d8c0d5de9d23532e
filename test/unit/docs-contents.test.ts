import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingsOf } from '../helpers/doc-anchors.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OPERATING = `${ROOT}docs/operating/`;
const INDEX = readFileSync(`${OPERATING}README.md`, 'utf8');

describe('docs/operating/', () => {
  it('opens with an index that lists every page and, under it, each of its sections in order', () => {
    const pages = readdirSync(OPERATING).filter(
      (name) => name !== 'README.md' && name.endsWith('.md'),
    );
    const listed = [...INDEX.matchAll(/^( *)- \[(.+?)\]\(([a-z-]+\.md)(?:#([a-z0-9-]+))?\)/gm)].map(
      ([, indent, title, page, anchor]) => ({
        depth: (indent as string).length / 2,
        title,
        page,
        anchor,
      }),
    );
    const expected = pages
      .sort(
        (a, b) =>
          listed.findIndex((entry) => entry.page === a) -
          listed.findIndex((entry) => entry.page === b),
      )
      .flatMap((page) => [
        {
          depth: 0,
          title: (/^# (.+)$/m.exec(readFileSync(`${OPERATING}${page}`, 'utf8')) ?? [])[1],
          page,
          anchor: undefined,
        },
        ...headingsOf(`${OPERATING}${page}`).map((heading) => ({
          depth: heading.level - 1,
          title: heading.title,
          page,
          anchor: heading.anchor,
        })),
      ]);
    expect(listed).toEqual(expected);
  });

  it('is linked from the rest of the repository by pages and headings that exist', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(md|ts|yml|conf|service|example)$/.test(file))
      .filter((file) => !file.startsWith('bench/results/'));
    const links = tracked.flatMap((file) =>
      [
        ...readFileSync(`${ROOT}${file}`, 'utf8').matchAll(
          /operating\/([a-z-]+\.md)(?:#([a-z0-9-]+))?/g,
        ),
      ].map(([, page, anchor]) => ({ file, page: page as string, anchor })),
    );
    expect(links.length).toBeGreaterThan(10);
    const broken = links.filter(
      ({ page, anchor }) =>
        !existsSync(`${OPERATING}${page}`) ||
        (anchor !== undefined &&
          !headingsOf(`${OPERATING}${page}`).some((heading) => heading.anchor === anchor)),
    );
    expect(broken).toEqual([]);
    // The old single page is gone: nothing may still point at it.
    const stale = tracked.filter((file) =>
      /docs\/operating\.md|\(operating\.md/.test(readFileSync(`${ROOT}${file}`, 'utf8')),
    );
    expect(stale).toEqual([]);
  });
});
