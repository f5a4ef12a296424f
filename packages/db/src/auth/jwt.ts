/**
 * CouchDB 3's `jwt` handler: `Authorization: Bearer <token>` signed with a key from the
 * configuration (`[jwt_keys]`: `hmac:<kid>` = base64 secret, `rsa:<kid>` / `ec:<kid>` = PEM public
 * key, `_default` when the token names no `kid`). The name is the `sub` claim, the roles come from
 * a configured claim; `exp` and `nbf` are checked whenever present, `requiredClaims` must be there.
 */
import { createHmac, createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { CouchError } from '../errors.js';
import type { UserCtx } from './authenticate.js';

export interface JwtOptions {
  /** CouchDB's `[jwt_keys]`: `hmac:_default` → base64 secret, `rsa:kid` / `ec:kid` → PEM. */
  keys: Record<string, string>;
  /** Where the roles are: a member name, or a dotted path (default `_couchdb.roles`, a member). */
  rolesClaim?: string;
  /** Claims a token must carry (CouchDB's `[jwt_auth] required_claims`), e.g. `exp`. */
  requiredClaims?: readonly string[];
  /** Required claims that must also have a value (`[jwt_auth] required_claims = {iss, "x"}`). */
  requiredClaimValues?: Readonly<Record<string, string>>;
}

const ALGORITHMS: Record<string, { kind: 'hmac' | 'rsa' | 'ec'; digest: string }> = {
  HS256: { kind: 'hmac', digest: 'sha256' },
  HS384: { kind: 'hmac', digest: 'sha384' },
  HS512: { kind: 'hmac', digest: 'sha512' },
  RS256: { kind: 'rsa', digest: 'sha256' },
  RS384: { kind: 'rsa', digest: 'sha384' },
  RS512: { kind: 'rsa', digest: 'sha512' },
  ES256: { kind: 'ec', digest: 'sha256' },
  ES384: { kind: 'ec', digest: 'sha384' },
  ES512: { kind: 'ec', digest: 'sha512' },
};

export class JwtVerifier {
  readonly #options: JwtOptions;
  readonly #publicKeys = new Map<string, KeyObject>();

  constructor(options: JwtOptions) {
    this.#options = options;
    for (const [name, value] of Object.entries(options.keys)) {
      if (!name.startsWith('rsa:') && !name.startsWith('ec:')) continue;
      try {
        this.#publicKeys.set(name, createPublicKey(value));
      } catch (error) {
        throw new CouchError('bad_request', `JWT key ${name} is not a PEM public key: ${(error as Error).message}`);
      }
    }
  }

  /** The user of a Bearer token; a token that does not verify is a 401. */
  userOf(token: string, nowSec: number = Date.now() / 1000): UserCtx {
    const parts = token.split('.');
    if (parts.length !== 3) throw unauthorized('Malformed token');
    const [head, body, signature] = parts as [string, string, string];
    const header = decodePart(head);
    const claims = decodePart(body);
    const alg =
      typeof header.alg === 'string' && Object.hasOwn(ALGORITHMS, header.alg) ? ALGORITHMS[header.alg] : undefined;
    if (alg === undefined) throw unauthorized('Invalid alg header parameter');
    const kid = typeof header.kid === 'string' ? header.kid : '_default';
    const keyName = `${alg.kind}:${kid}`;
    const data = Buffer.from(`${head}.${body}`);
    const sig = Buffer.from(signature, 'base64url');
    let valid: boolean;
    if (alg.kind === 'hmac') {
      const secret = this.#options.keys[keyName];
      if (secret === undefined) throw unauthorized(`Key ${keyName} not found`);
      const expected = createHmac(alg.digest, Buffer.from(secret, 'base64')).update(data).digest();
      valid = expected.length === sig.length && timingSafeEqual(expected, sig);
    } else {
      const key = this.#publicKeys.get(keyName);
      if (key === undefined) throw unauthorized(`Key ${keyName} not found`);
      valid = verify(alg.digest, data, alg.kind === 'ec' ? { key, dsaEncoding: 'ieee-p1363' } : key, sig);
    }
    if (!valid) throw unauthorized('Signature verification failed');
    for (const claim of this.#options.requiredClaims ?? []) {
      if (!(claim in claims)) throw unauthorized(`Missing required claim: ${claim}`);
    }
    for (const [claim, value] of Object.entries(this.#options.requiredClaimValues ?? {})) {
      if (!(claim in claims)) throw unauthorized(`Missing required claim: ${claim}`);
      if (claims[claim] !== value) throw unauthorized(`Invalid ${claim} claim`);
    }
    if (claims.exp !== undefined && !(typeof claims.exp === 'number' && nowSec < claims.exp)) {
      throw unauthorized('Token expired');
    }
    if (claims.nbf !== undefined && !(typeof claims.nbf === 'number' && nowSec >= claims.nbf)) {
      throw unauthorized('Token is not yet valid');
    }
    if (typeof claims.sub !== 'string' || claims.sub === '') throw unauthorized('Token has no sub claim');
    return { name: claims.sub, roles: this.#rolesOf(claims) };
  }

  #rolesOf(claims: Record<string, unknown>): string[] {
    const path = this.#options.rolesClaim ?? '_couchdb.roles';
    // CouchDB's default names a member literally called `_couchdb.roles`; others may be paths.
    let value: unknown = claims[path];
    if (value === undefined && path.includes('.')) {
      value = path
        .split('.')
        .reduce<unknown>(
          (at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined),
          claims,
        );
    }
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((role) => typeof role === 'string')) {
      throw unauthorized('The roles claim must be a list of strings');
    }
    return value;
  }
}

function decodePart(part: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw unauthorized('Malformed token');
}

function unauthorized(reason: string): CouchError {
  return new CouchError('unauthorized', reason);
}
