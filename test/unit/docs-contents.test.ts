import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const OPERATING = readFileSync(new URL('../../docs/operating.md', import.meta.url), 'utf8');

/** A heading's anchor, as GitHub makes it. */
const anchorOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

describe('docs/operating.md', () => {
  it('opens with contents that list every section and subsection, in order, by its anchor', () => {
    const [, contents = '', body = ''] =
      /^[\s\S]*?## Contents\n([\s\S]*?)\n(## [\s\S]*)$/.exec(OPERATING) ?? [];
    const listed = [...contents.matchAll(/^ *- \[(.+)\]\(#([^)]+)\)$/gm)].map(
      ([, title, anchor]) => ({
        title,
        anchor,
      }),
    );
    const sections = [...body.matchAll(/^#{2,3} (.+)$/gm)].map(([, title]) => ({
      title,
      anchor: anchorOf(title as string),
    }));
    expect(listed).toEqual(sections);
  });
});
