import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { api, ApiError } from './client';
import type { Me } from './types';

const ORG_KEY = 'plinth.org';

interface Session {
  me: Me;
  orgId: string;
  org: Me['organizations'][number];
  canManage: boolean;
  setOrgId(id: string): void;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: () => api<Me>('/dashboard/api/me'),
    retry: (n, err) => !(err instanceof ApiError && err.status === 401) && n < 2,
    staleTime: 30_000,
  });
}

/** The organization every page reads and writes; remembered across visits for people with several. */
export function SessionProvider({ me, children }: { me: Me; children: ReactNode }) {
  const client = useQueryClient();
  const [chosen, setChosen] = useState(() => localStorage.getItem(ORG_KEY));
  const org = me.organizations.find((o) => o.id === chosen) ?? me.organizations[0];
  const setOrgId = useCallback(
    (id: string) => {
      localStorage.setItem(ORG_KEY, id);
      setChosen(id);
      // Everything on screen belongs to the previous organization.
      void client.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'me' });
    },
    [client],
  );
  const value = useMemo(
    () => ({ me, org, orgId: org?.id ?? '', canManage: org?.role === 'owner' || org?.role === 'admin', setOrgId }),
    [me, org, setOrgId],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export async function signOut() {
  await api('/auth/logout', { method: 'POST' });
}
