import { readFileSync } from 'node:fs';

/** A heading's anchor, as GitHub makes it. */
export const anchorOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

/** A Markdown page's headings below its title, in order: level, title and anchor. */
export function headingsOf(path: string | URL) {
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/^(#{2,6}) (.+)$/gm)].map(([, hashes, title]) => ({
    level: (hashes as string).length,
    title: title as string,
    anchor: anchorOf(title as string),
  }));
}
