import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useSession } from '../api/session';
import type { Credits, MemberList, Role } from '../api/types';
import { Table } from '../components/table';
import { Empty, ErrorBox, Loading, Pager, when } from '../components/states';
import { useTitle } from '../components/use-title';

export function OrganizationPage() {
  const { org } = useSession();
  useTitle('Organization');
  return (
    <>
      <div className="page-head">
        <h1>Organization</h1>
      </div>
      <p className="muted">
        {org.name} · your role: {org.role} · plan: {org.plan}
      </p>
      <CreditsCard />
      <MembersCard />
    </>
  );
}

function CreditsCard() {
  const { orgId } = useSession();
  const [offset, setOffset] = useState(0);
  const credits = useQuery({
    queryKey: ['credits', orgId, offset],
    queryFn: () => api<Credits>(`/dashboard/api/organizations/${orgId}/credits`, { query: { limit: 10, offset } }),
  });
  return (
    <section className="card" aria-labelledby="credits-h">
      <h2 id="credits-h">Credits</h2>
      {credits.isPending ? (
        <Loading />
      ) : credits.error ? (
        <ErrorBox error={credits.error} onRetry={() => credits.refetch()} />
      ) : (
        <>
          <p className="big-number">
            {credits.data.balance.toLocaleString()} <span className="muted small">credits</span>
          </p>
          {credits.data.ledger.data.length === 0 ? (
            <p className="muted">No credit movements yet.</p>
          ) : (
            <Table caption="Credit ledger" columns={['When', { label: 'Change', num: true }, { label: 'Balance', num: true }, 'Reason']}>
                  {credits.data.ledger.data.map((e) => (
                    <tr key={e.id}>
                      <td className="small">{when(e.created_at)}</td>
                      <td className={`num ${e.delta < 0 ? 'bad-text' : 'ok-text'}`}>{e.delta > 0 ? `+${e.delta}` : e.delta}</td>
                      <td className="num">{e.balance_after}</td>
                      <td>
                        {e.reason} {e.ref && <span className="muted small mono">{e.ref}</span>}
                      </td>
                    </tr>
                  ))}
                </Table>
          )}
          <Pager total={credits.data.ledger.total} limit={10} offset={offset} onChange={setOffset} />
        </>
      )}
    </section>
  );
}

function MembersCard() {
  const { orgId, canManage, me, org } = useSession();
  const client = useQueryClient();
  const members = useQuery({
    queryKey: ['members', orgId],
    queryFn: () => api<MemberList>(`/dashboard/api/organizations/${orgId}/members`, { query: { limit: 100 } }),
  });
  const invalidate = () => client.invalidateQueries({ queryKey: ['members'] });
  const change = useMutation({
    mutationFn: (m: { userId: string; role: Role }) =>
      api(`/dashboard/api/organizations/${orgId}/members/${m.userId}`, { method: 'PATCH', body: { role: m.role } }),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: (userId: string) => api(`/dashboard/api/organizations/${orgId}/members/${userId}`, { method: 'DELETE' }),
    onSuccess: invalidate,
  });
  const roles: Role[] = org.role === 'owner' ? ['owner', 'admin', 'member'] : ['admin', 'member'];
  return (
    <section className="card" aria-labelledby="members-h">
      <h2 id="members-h">Members</h2>
      {(change.error || remove.error) && <ErrorBox error={change.error ?? remove.error} />}
      {members.isPending ? (
        <Loading />
      ) : members.error ? (
        <ErrorBox error={members.error} onRetry={() => members.refetch()} />
      ) : members.data.data.length === 0 ? (
        <Empty title="No members" />
      ) : (
        <Table caption="Members" columns={['Email', 'Role', 'Since', { label: 'Actions', hidden: true }]}>
              {members.data.data.map((m) => {
                const editable = canManage && (m.role !== 'owner' || org.role === 'owner');
                return (
                  <tr key={m.user_id}>
                    <td>
                      {m.email} {m.user_id === me.user.id && <span className="muted small">(you)</span>}
                    </td>
                    <td>
                      {editable ? (
                        <select
                          aria-label={`Role of ${m.email}`}
                          value={m.role}
                          onChange={(e) => change.mutate({ userId: m.user_id, role: e.target.value as Role })}
                        >
                          {roles.map((r) => (
                            <option key={r}>{r}</option>
                          ))}
                        </select>
                      ) : (
                        m.role
                      )}
                    </td>
                    <td className="small">{when(m.created_at)}</td>
                    <td>
                      {editable && (
                        <button
                          type="button"
                          className="btn small danger"
                          aria-label={`Remove ${m.email}`}
                          onClick={() => window.confirm(`Remove ${m.email} from ${org.name}?`) && remove.mutate(m.user_id)}
                        >
                          Remove
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </Table>
      )}
      {canManage && <AddMember roles={roles} onAdded={invalidate} />}
    </section>
  );
}

function AddMember({ roles, onAdded }: { roles: Role[]; onAdded(): void }) {
  const { orgId } = useSession();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [password, setPassword] = useState('');
  const add = useMutation({
    mutationFn: () =>
      api(`/dashboard/api/organizations/${orgId}/members`, { method: 'POST', body: { email, role, ...(password && { password }) } }),
    onSuccess: () => {
      setEmail('');
      setPassword('');
      onAdded();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <form className="inline-form add-member" onSubmit={submit}>
      <label className="field grow">
        <span>New member email</span>
        <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label className="field">
        <span>Role</span>
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {roles.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>First password (new people)</span>
        <input type="password" autoComplete="new-password" minLength={10} value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      <button type="submit" className="btn" disabled={add.isPending}>
        Add member
      </button>
      {add.error && <ErrorBox error={add.error} />}
    </form>
  );
}
