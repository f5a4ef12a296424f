export {
  ADMINS_FILE_NAME,
  DEFAULT_ADMIN_NAME,
  createAdminStore,
  loadAdmins,
  validateAdminCredentials,
  type AdminCredentials,
  type AdminStore,
  type LoadAdminsOptions,
  type LoadedAdmins,
} from './admins.js';
export {
  ADMIN_ROLE,
  anonymous,
  authenticate,
  isAdmin,
  requireAdmin,
  requireDbAccess,
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
