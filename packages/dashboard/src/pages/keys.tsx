import * as Dialog from '@radix-ui/react-dialog';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useSession } from '../api/session';
import type { ApiKeyList, CreatedApiKey, ProjectList } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { Table } from '../components/table';
import { Badge, Empty, ErrorBox, Loading, when } from '../components/states';
import { useTitle } from '../components/use-title';

const SCOPES = ['products:read', 'products:write', 'usage:read', 'webhooks:manage', 'beacon:write'];

export function KeysPage() {
  const { orgId, canManage } = useSession();
  const client = useQueryClient();
  useTitle('API keys');
  const keys = useQuery({ queryKey: ['keys', orgId], queryFn: () => api<ApiKeyList>('/v1/api_keys', { query: { org_id: orgId, limit: 100 } }) });
  const revoke = useMutation({
    mutationFn: (id: string) => api(`/v1/api_keys/${id}`, { method: 'DELETE' }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['keys'] }),
  });
  return (
    <>
      <div className="page-head">
        <h1>API keys</h1>
        {canManage && <CreateKey />}
      </div>
      <p className="muted">
        Secret keys (sk_) are for your servers. Publishable keys (pk_) go in shop pages and work only from a project&apos;s allowed domains.
      </p>
      {!canManage && <p className="note">Only owners and admins create and revoke keys.</p>}
      {revoke.error && <ErrorBox error={revoke.error} />}
      {keys.isPending ? (
        <Loading label="Loading keys…" />
      ) : keys.error ? (
        <ErrorBox error={keys.error} onRetry={() => keys.refetch()} />
      ) : keys.data.data.length === 0 ? (
        <Empty title="No keys yet">
          <p>Create a secret key for your developer, or a publishable key for the embed.</p>
        </Empty>
      ) : (
        <Table caption="API keys" columns={['Name', 'Key', 'Scopes', 'Last used', { label: 'Actions', hidden: true }]}>
              {keys.data.data.map((k) => (
                <tr key={k.id} className={k.revoked_at ? 'revoked' : ''}>
                  <td>
                    {k.name || <span className="muted">Unnamed</span>} <Badge tone={k.type === 'secret' ? 'warn' : 'muted'}>{k.type}</Badge>
                  </td>
                  <td className="mono">{k.prefix}…</td>
                  <td className="small">{k.scopes.length ? k.scopes.join(', ') : 'full access'}</td>
                  <td className="small">{k.revoked_at ? `Revoked ${when(k.revoked_at)}` : when(k.last_used_at)}</td>
                  <td>
                    {!k.revoked_at && canManage && (
                      <button
                        type="button"
                        className="btn small danger"
                        aria-label={`Revoke ${k.name || k.prefix}`}
                        onClick={() => window.confirm(`Revoke ${k.name || k.prefix}? Requests using it will fail at once.`) && revoke.mutate(k.id)}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </Table>
      )}
    </>
  );
}

function CreateKey() {
  const { orgId } = useSession();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [type, setType] = useState<'secret' | 'publishable'>('secret');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [projectId, setProjectId] = useState('');
  const projects = useQuery({
    queryKey: ['projects', orgId],
    queryFn: () => api<ProjectList>('/v1/projects', { query: { org_id: orgId, limit: 100 } }),
    enabled: open,
  });
  const create = useMutation({
    mutationFn: () =>
      api<CreatedApiKey>('/v1/api_keys', {
        method: 'POST',
        body: {
          type,
          name: name || null,
          scopes,
          ...(type === 'publishable' ? { project_id: projectId || projects.data?.data[0]?.id } : { org_id: orgId }),
        },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['keys'] }),
  });
  const close = (o: boolean) => {
    setOpen(o);
    if (!o) {
      create.reset();
      setName('');
      setScopes([]);
    }
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Dialog.Root open={open} onOpenChange={close}>
      <Dialog.Trigger asChild>
        <button type="button" className="btn primary">
          Create key
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog" aria-describedby={undefined}>
          <Dialog.Title>{create.data ? 'Your new key' : 'Create key'}</Dialog.Title>
          {create.data?.key ? (
            <>
              <p>Copy this key now. It is shown only once; Plinth keeps only a hash of it.</p>
              <div className="secret-row">
                <code className="secret" aria-label="New key" tabIndex={0}>
                  {create.data.key}
                </code>
                <CopyButton text={create.data.key} label="Copy key" />
              </div>
              <div className="dialog-actions">
                <Dialog.Close asChild>
                  <button type="button" className="btn primary">
                    Done
                  </button>
                </Dialog.Close>
              </div>
            </>
          ) : (
            <form onSubmit={submit}>
              <fieldset className="radio-row">
                <legend>Type</legend>
                <label className="check">
                  <input type="radio" name="type" checked={type === 'secret'} onChange={() => setType('secret')} /> Secret (server)
                </label>
                <label className="check">
                  <input type="radio" name="type" checked={type === 'publishable'} onChange={() => setType('publishable')} /> Publishable (browser)
                </label>
              </fieldset>
              <label className="field">
                <span>Name</span>
                <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Shop backend" />
              </label>
              {type === 'publishable' && (
                <label className="field">
                  <span>Project</span>
                  <select value={projectId} onChange={(e) => setProjectId(e.target.value)}>
                    {projects.data?.data.map((p) => (
                      <option key={p.id} value={p.id}>
                        {p.name}
                      </option>
                    ))}
                  </select>
                </label>
              )}
              <fieldset>
                <legend>Scopes (none ticked: full access for the key type)</legend>
                <div className="scopes">
                  {SCOPES.map((s) => (
                    <label key={s} className="check">
                      <input
                        type="checkbox"
                        checked={scopes.includes(s)}
                        onChange={(e) => setScopes((all) => (e.target.checked ? [...all, s] : all.filter((x) => x !== s)))}
                      />
                      <span className="mono">{s}</span>
                    </label>
                  ))}
                </div>
              </fieldset>
              {create.error && <ErrorBox error={create.error} />}
              <div className="dialog-actions">
                <Dialog.Close asChild>
                  <button type="button" className="btn">
                    Cancel
                  </button>
                </Dialog.Close>
                <button type="submit" className="btn primary" disabled={create.isPending}>
                  Create
                </button>
              </div>
            </form>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
