import { readFileSync } from 'node:fs';
import type { Server as HttpsServer } from 'node:https';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError } from '../errors.ts';

/** The PEM certificate (chain) and key `serve` listens with; an unreadable one stops the start. */
export function readCertificate(files: { certFile: string; keyFile: string }): {
  cert: Buffer;
  key: Buffer;
} {
  const read = (path: string, name: string) => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ConfigError(`cannot read ${name} ${path}: ${(error as Error).message}`);
    }
  };
  return { cert: read(files.certFile, 'TLS_CERT_FILE'), key: read(files.keyFile, 'TLS_KEY_FILE') };
}

/**
 * On SIGHUP the certificate files are read again and new connections use them, so a renewed
 * certificate needs no restart; one that cannot be read or used leaves the current one in place.
 * Returns what stops listening for SIGHUP.
 */
export function reloadCertificateOnHangUp(
  server: HttpsServer,
  files: { certFile: string; keyFile: string },
  logger: FastifyBaseLogger,
): () => void {
  const reload = () => {
    try {
      server.setSecureContext(readCertificate(files));
      logger.info({ certFile: files.certFile }, 'TLS certificate reloaded');
    } catch (error) {
      logger.error(
        { cause: (error as Error).message },
        'the TLS certificate could not be reloaded; the current one stays in use',
      );
    }
  };
  process.on('SIGHUP', reload);
  return () => process.off('SIGHUP', reload);
}
