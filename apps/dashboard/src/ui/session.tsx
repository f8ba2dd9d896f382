import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { can, type Identity } from './api';

export const SessionContext = createContext<Identity | null>(null);

/** The signed-in token's identity; pages call `useCan()` to show only what it may do. */
export function useIdentity(): Identity {
  const identity = useContext(SessionContext);
  if (!identity) throw new Error('useIdentity outside a session');
  return identity;
}

export function useCan(): (permission: string) => boolean {
  const identity = useIdentity();
  return (permission) => can(identity, permission);
}
