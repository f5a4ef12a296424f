/**
 * A self-signed certificate for 127.0.0.1, made with openssl in a temporary folder (the TLS
 * tests' server certificate, and the authority a client is told to trust).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { makeTempDir } from './tmp-dir.js';

export interface TestCertificate {
  certFile: string;
  keyFile: string;
  /** The certificate's PEM text. */
  cert: Buffer;
  key: Buffer;
  cleanup: () => void;
}

export function makeTestCertificate(): TestCertificate {
  const temp = makeTempDir('divan-cert-');
  const certFile = `${temp.dir}/cert.pem`;
  const keyFile = `${temp.dir}/key.pem`;
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
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, cert: readFileSync(certFile), key: readFileSync(keyFile), cleanup: () => temp.cleanup() };
}
