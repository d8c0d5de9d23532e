import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The reference page for people: Redoc, bundled from npm and served by this service, renders the
 * OpenAPI document (whose description carries the getting-started guide). No CDN: it works offline
 * and under a strict Content-Security-Policy with no inline script.
 */
export const DOCS_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Redoc styles its components at run time, and runs search in a worker it builds from a blob.
  "style-src 'self' 'unsafe-inline'",
  "worker-src 'self' blob:",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function docsPageHtml(prefix: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hadir RSVP data API</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="redoc" data-spec-url="${prefix}/openapi.json"></div>
<script src="${prefix}/docs/redoc.standalone.js"></script>
<script src="${prefix}/docs/init.js"></script>
</body>
</html>
`;
}

export const DOCS_INIT_SCRIPT = `'use strict';
var element = document.getElementById('redoc');
Redoc.init(element.getAttribute('data-spec-url'), { hideDownloadButton: false, expandResponses: '200', pathInMiddlePanel: true }, element);
`;

/** Redoc's credit badge loads its logo from a CDN, with no option to turn it off. */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_SVG =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

/**
 * Redoc's bundle as a build ships it (see scripts/finish-build.mjs): a production install has no
 * redoc package, which is a development dependency of some hundred packages.
 */
const BUILT_REDOC = new URL('./redoc.standalone.js', import.meta.url);

/** The Redoc bundle as served: the build's copy, or in the sources the redoc package's own. */
export function redocBundle(): Buffer {
  if (existsSync(BUILT_REDOC)) return readFileSync(BUILT_REDOC);
  const require = createRequire(import.meta.url);
  return patchRedoc(readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8'));
}

/** Redoc's bundle with its one outside request (the logo) pointed at an inline image. */
export function patchRedoc(source: string): Buffer {
  return Buffer.from(source.replaceAll(REDOC_CDN_LOGO, EMPTY_SVG));
}

/** True when the client prefers HTML to JSON (a browser); curl and `*\/*` get JSON. */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const quality = (type: string) => {
    let best = 0;
    for (const part of accept.split(',')) {
      const [range = '', ...params] = part.trim().split(';');
      const q = Number(params.find((param) => param.trim().startsWith('q='))?.split('=')[1] ?? 1);
      const [major, minor] = range.trim().split('/');
      const [wantMajor] = type.split('/');
      if (
        range.trim() === type ||
        (minor === '*' && major === wantMajor) ||
        range.trim() === '*/*'
      ) {
        best = Math.max(best, Number.isFinite(q) ? q : 0);
      }
    }
    return best;
  };
  return quality('text/html') > quality('application/json');
}
