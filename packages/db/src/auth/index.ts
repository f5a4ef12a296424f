export {
  ADMINS_FILE_NAME,
  DEFAULT_ADMIN_NAME,
  createAdminStore,
  loadAdmins,
  refreshAdmins,
  saveAdmins,
  validateAdminCredentials,
  type AdminCredentials,
  type AdminStore,
  type CacheCounts,
  type LoadAdminsOptions,
  type LoadedAdmins,
} from './admins.js';
export {
  ADMIN_ROLE,
  anonymous,
  isAdmin,
  METRICS_ROLE,
  requireAdmin,
  requireMetrics,
  type UserCtx,
} from './authenticate.js';
export { parseAuthorization, type BasicCredentials } from './basic.js';
export { LOCKED_REASON, Lockout, type LockoutOptions } from './lockout.js';
export {
  DEFAULT_ITERATIONS,
  DEFAULT_PRF,
  hashPassword,
  parseHash,
  verifyPassword,
  type HashOptions,
  type ParsedHash,
} from './passwords.js';
export { Authenticator, type Authenticated, type AuthenticatorOptions, type UserAccount } from './authenticator.js';
export { COOKIE_NAME, decodeCookie, encodeCookie, sessionCookieHeader, type CookieAttributes } from './cookie.js';
export { credentialsOf, verifyCredentials, type StoredCredentials } from './user-credentials.js';
export {
  DEFAULT_SECURITY,
  checkSecurityObject,
  isDbAdmin,
  isMember,
  requireDbAdmin,
  requireDbAdminForMaintenance,
  requireMember,
  securityOf,
  type SecurityObject,
} from './security.js';
export { JwtVerifier, type JwtOptions } from './jwt.js';
