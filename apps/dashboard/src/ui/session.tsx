import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { can, type Identity } from './api';

export const SessionContext = createContext<Identity | null>(null);

/** What the signed-in tab can do to its own sign-in: switch channel, re-read the session, sign out. */
export interface Account {
  switchChannel(id: number): Promise<void>;
  refresh(): Promise<void>;
  signOut(): void;
}
export const AccountContext = createContext<Account | null>(null);

/** The signed-in token's or user's identity; pages call `useCan()` to show only what it may do. */
export function useIdentity(): Identity {
  const identity = useContext(SessionContext);
  if (!identity) throw new Error('useIdentity outside a session');
  return identity;
}

export function useAccount(): Account {
  const account = useContext(AccountContext);
  if (!account) throw new Error('useAccount outside a session');
  return account;
}

export function useCan(): (permission: string) => boolean {
  const identity = useIdentity();
  return (permission) => can(identity, permission);
}

/**
 * The team pages a signed-in user may open (docs/dashboard.md, "Team pages"): Users with the
 * system permission user_management (or sudo), the audit log for sudo users only. A token sees
 * neither: tokens are for programs.
 */
export function useTeamAccess(): { users: boolean; audit: boolean } {
  const { user } = useIdentity();
  if (!user) return { users: false, audit: false };
  return { users: user.sudo || user.system_permissions.user_management === true, audit: user.sudo };
}
