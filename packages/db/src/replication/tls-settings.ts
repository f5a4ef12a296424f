/**
 * How the replicator trusts a remote endpoint's TLS certificate, from CouchDB's `[replicator]`
 * keys: `verify_ssl_certificates` and `ssl_trusted_certificates_file` (PEM certificates trusted
 * beside the system's). CouchDB does not verify unless told to; Divan verifies unless told not to,
 * since a replication sends its credentials to the peer (docs/replication.md).
 */
import { readFileSync } from 'node:fs';
import { CouchError } from '../errors.js';

export interface ReplicatorTls {
  /** Refuse a peer whose certificate no trusted authority signed, or that names another host. */
  verify: boolean;
  /** PEM certificates trusted besides node's bundled authorities; undefined for those alone. */
  trusted: string | undefined;
}

export const DEFAULT_TLS: ReplicatorTls = { verify: true, trusted: undefined };

/** The settings of a `[replicator]` section; an unusable value is a 400 naming its key. */
export function replicatorTls(section: Readonly<Record<string, string>> | undefined): ReplicatorTls {
  const verifyText = section?.verify_ssl_certificates?.trim();
  if (verifyText !== undefined && verifyText !== 'true' && verifyText !== 'false') {
    throw new CouchError('bad_request', '[replicator] verify_ssl_certificates must be true or false.');
  }
  const file = section?.ssl_trusted_certificates_file?.trim();
  let trusted: string | undefined;
  if (file !== undefined && file !== '') {
    try {
      trusted = readFileSync(file, 'utf8');
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new CouchError('bad_request', `[replicator] ssl_trusted_certificates_file cannot be read (${why}).`);
    }
    if (!trusted.includes('-----BEGIN CERTIFICATE-----')) {
      throw new CouchError('bad_request', '[replicator] ssl_trusted_certificates_file holds no PEM certificate.');
    }
  }
  return { verify: verifyText !== 'false', trusted };
}
