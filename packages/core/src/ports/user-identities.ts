/**
 * The little whoami says of a signed-in dashboard user (docs/discovery.md, "A signed-in user"):
 * the seam discovery needs from the users area, so it does not depend on the whole of it.
 */
export interface UserIdentities {
  /** null when no such user. */
  findIdentity(userId: number): Promise<{ id: number; email: string } | null>;
}
export const UserIdentities = Symbol.for('mailcast.UserIdentities');
