import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { type Artifact, artifact, serveArtifact } from '../http/artifacts.ts';

/** Where the packages a partner installs are offered, until they are on a registry. */
export const PACKAGES_PATH = '/developer/packages';

/**
 * The packages partners install: the SDK, the mirror tool and the MCP server. The relay is the
 * platform's, handed over by the operator from dist/packages/ with the ingest documentation.
 */
const OFFERED = ['client', 'sync', 'mcp'] as const;
export type OfferedPackage = (typeof OFFERED)[number];

/** One installable tarball, as `npm pack` named it (`hadir-sync-1.0.0.tgz`). */
export interface ClientPackage {
  package: OfferedPackage;
  file: string;
}

/** The build's dist/packages/, from the sources and from the compiled server alike. */
export function defaultPackagesFolder(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'package.json')) || folder.endsWith('/dist')) {
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  return join(folder, 'dist/packages');
}

/** The offered tarballs the build left, in install order; none before `npm run build`. */
export function findClientPackages(folder: string): ClientPackage[] {
  const files = existsSync(folder) ? readdirSync(folder) : [];
  return OFFERED.flatMap((name) => {
    const file = files.find((candidate) =>
      new RegExp(`^hadir-${name}-\\d+\\.\\d+\\.\\d+\\.tgz$`).test(candidate),
    );
    return file ? [{ package: name, file }] : [];
  });
}

/**
 * The tarballs at `PACKAGES_PATH/<file>`, read once. No key: they hold code, not data. Only the
 * names found at start are served, so no path reaches anything else.
 */
export function registerPackageRoutes(
  app: FastifyInstance,
  packages: ClientPackage[],
  folder: string,
): void {
  const served = new Map<string, Artifact>();
  const hidden = { schema: { hide: true } };
  app.get<{ Params: { file: string } }>(`${PACKAGES_PATH}/:file`, hidden, (request, reply) => {
    const found = packages.find((offered) => offered.file === request.params.file);
    if (!found) {
      const offered = packages.map((known) => known.file).join(', ');
      throw new ApiError(
        'not_found',
        `No package ${request.params.file}: ${offered ? `the packages are ${offered}` : 'this server was not built with its packages (npm run build)'}.`,
      );
    }
    let tarball = served.get(found.file);
    if (!tarball) {
      tarball = artifact(readFileSync(join(folder, found.file)), 'application/gzip');
      served.set(found.file, tarball);
    }
    reply.header('content-disposition', `attachment; filename="${found.file}"`);
    return serveArtifact(request, reply, tarball, 'public, max-age=300');
  });
}
