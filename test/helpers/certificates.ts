import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** A throwaway self-signed certificate for 127.0.0.1 (and `dnsNames`), made by openssl. */
export function makeCertificate(
  folder: string,
  name: string,
  dnsNames: readonly string[] = [],
): { certFile: string; keyFile: string } {
  const certFile = join(folder, `${name}.crt`);
  const keyFile = join(folder, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=${['IP:127.0.0.1', ...dnsNames.map((dns) => `DNS:${dns}`)].join(',')}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'pipe' },
  );
  return { certFile, keyFile };
}
