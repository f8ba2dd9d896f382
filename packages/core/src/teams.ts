// Core's public names for teams (docs/teams.md): signing in, users, two-factor, OpenID Connect,
// the audit log and the export (docs/export.md).

// Signing in to the dashboard (docs/teams.md, Signing in).
export { StartSession, type StartedSession } from './users/start-session';
export { ResolveSession, type ResolvedSession } from './users/resolve-session';
export { INVALID_CREDENTIALS, SignIn, type SignedIn } from './users/sign-in';
export { SignOut } from './users/sign-out';
export { NO_CHANNEL_ACCESS, SessionPrincipal, type SessionChannel } from './users/session-principal';
export { ListSessions, RevokeSession, SESSION_NOT_FOUND } from './users/sessions';
export {
  ChangePassword,
  checkNewPassword,
  CURRENT_PASSWORD_INCORRECT,
  RequestPasswordReset,
  RESET_LINK_INVALID,
  RESET_REQUESTED,
  ResetPassword,
} from './users/passwords';
export { SignInPasswords, SignInUserRepository, UserSessionRepository, type ChannelAccess, type SignInUser, type UserSession } from './ports';
export { CreateChannel } from './channels/create-channel';

// The audit log (docs/teams.md).
export { AuditLog, type AuditActorType, type AuditEntry, type AuditLogFilter, type NewAuditEntry } from './ports';
export { AUDIT_LOG_ADMIN_ONLY, ListAuditLog } from './audit/list-audit-log';
export { RecordAuditEntries } from './audit/record-audit-entries';

// Users (docs/teams.md): system mail to users, password resets.
export { DashboardLinks, PasswordResetStore, SystemMail, type NewPasswordReset, type SystemMessage } from './ports';
export { IssuePasswordReset, type IssuedPasswordReset } from './users/issue-password-reset';
export {
  EMAIL_TAKEN,
  PasswordHasher,
  UserRepository,
  type NewUser,
  type PermissionPreset,
  type User,
  type UserChanges,
  type UserChannelPermission,
  type UserFilter,
} from './ports';
export { NOT_HELD, OUTRANKED, OWN_PERMISSIONS, requireUserManager, SUDO_UNTOUCHABLE, USER_NOT_FOUND, USERS_ADMIN_ONLY } from './users/user-access';
export { viewOf, permissionView, type ChannelPermissionView, type UserDetail, type UserView } from './users/user-view';
export { NOTHING_GRANTED, type ChannelGrant } from './users/channel-grant';
export { ListUsers } from './users/list-users';
export { GetUser } from './users/get-user';
export { CreateUser, type CreateUserInput, type CreateUserOutcome } from './users/create-user';
export { UpdateUser, type UpdateUserInput } from './users/update-user';
export { DeleteUser } from './users/delete-user';
export { SetUserActive } from './users/set-user-active';
export { ListChannelPermissions } from './users/list-channel-permissions';
export { PutChannelPermission } from './users/put-channel-permission';
export { BulkPutChannelPermissions, MAX_BULK_CHANNELS, type BulkOutcome } from './users/bulk-put-channel-permissions';
export { CHANNEL_PERMISSION_NOT_FOUND, DeleteChannelPermission } from './users/delete-channel-permission';
export { GetSystemPermissions } from './users/get-system-permissions';
export { UpdateSystemPermissions } from './users/update-system-permissions';
export { CreatePermissionPreset } from './users/create-permission-preset';
export { SetUserSudo } from './users/set-user-sudo';
// Two-factor sign-in (docs/teams.md).
export { QrCodes, Totp, TwoFactorStore, type TwoFactorUser } from './ports';
export { ConfirmTwoFactor, DisableTwoFactor, EnrolTwoFactor, VerifyTwoFactor } from './two-factor/two-factor';
export { OidcClient, OidcRefused, type OidcChecks, type OidcIdentity } from './ports';
export { SignInWithOidc, type OidcOutcome } from './oidc/sign-in-with-oidc';
// Export (docs/export.md).
export { ExportReader, type ExportRecord, type ExportScope } from './ports';
export {
  DownloadExportFileAsset,
  FILE_ASSET_NOT_FOUND,
  MIGRATION_ADMIN_ONLY,
  ReadExportCollection,
  ReadExportManifest,
  requireMigrationReader,
  type ExportManifest,
  type ExportPage,
} from './export/read-export';
