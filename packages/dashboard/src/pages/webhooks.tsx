import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useSession } from '../api/session';
import type { WebhookDeliveryList, WebhookEndpoint, WebhookEndpointList, WebhookEndpointWithSecret } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { Table } from '../components/table';
import { Badge, Empty, ErrorBox, Loading, when } from '../components/states';
import { useTitle } from '../components/use-title';

export function WebhooksPage() {
  const { orgId } = useSession();
  const client = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  useTitle('Webhooks');
  const endpoints = useQuery({
    queryKey: ['webhooks', orgId],
    queryFn: () => api<WebhookEndpointList>('/v1/webhooks', { query: { org_id: orgId, limit: 100 } }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/v1/webhooks/${id}`, { method: 'DELETE', query: { org_id: orgId } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['webhooks'] }),
  });
  const current = endpoints.data?.data.find((e) => e.id === selected) ?? endpoints.data?.data[0];
  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
      </div>
      <p className="muted">Plinth POSTs signed events (Standard Webhooks) to your endpoints and retries failures with backoff.</p>
      <AddEndpoint onCreated={(id) => setSelected(id)} />
      {remove.error && <ErrorBox error={remove.error} />}
      {endpoints.isPending ? (
        <Loading label="Loading endpoints…" />
      ) : endpoints.error ? (
        <ErrorBox error={endpoints.error} onRetry={() => endpoints.refetch()} />
      ) : endpoints.data.data.length === 0 ? (
        <Empty title="No endpoints yet">
          <p>Add the URL of your server above to receive product and export events.</p>
        </Empty>
      ) : (
        <div className="split">
          <ul className="endpoint-list" aria-label="Endpoints">
            {endpoints.data.data.map((e) => (
              <li key={e.id} className={e.id === current?.id ? 'active' : ''}>
                <button type="button" className="endpoint-btn" aria-pressed={e.id === current?.id} onClick={() => setSelected(e.id)}>
                  <span className="mono small ellipsis">{e.url}</span>
                  <span className="small muted">
                    {e.description || e.events.join(', ')} {!e.enabled && <Badge tone="bad">disabled</Badge>}
                  </span>
                </button>
              </li>
            ))}
          </ul>
          {current && <Endpoint endpoint={current} onDelete={() => window.confirm(`Delete the endpoint ${current.url}?`) && remove.mutate(current.id)} />}
        </div>
      )}
    </>
  );
}

function AddEndpoint({ onCreated }: { onCreated(id: string): void }) {
  const { orgId } = useSession();
  const client = useQueryClient();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () => api<WebhookEndpointWithSecret>('/v1/webhooks', { method: 'POST', query: { org_id: orgId }, body: { url, description: description || null } }),
    onSuccess: (e) => {
      setUrl('');
      setDescription('');
      onCreated(e.id);
      return client.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="card inline-form" onSubmit={submit}>
      <label className="field grow">
        <span>Endpoint URL</span>
        <input type="url" required placeholder="https://shop.example/hooks/plinth" value={url} onChange={(e) => setUrl(e.target.value)} />
      </label>
      <label className="field">
        <span>Description</span>
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <button type="submit" className="btn primary" disabled={create.isPending}>
        Add endpoint
      </button>
      {create.error && <ErrorBox error={create.error} />}
      {create.data?.secret && (
        <div className="secret-row full">
          <span className="small">Signing secret, shown once:</span>
          <code className="secret" aria-label="Signing secret">
            {create.data.secret}
          </code>
          <CopyButton text={create.data.secret} label="Copy secret" />
        </div>
      )}
    </form>
  );
}

function Endpoint({ endpoint: e, onDelete }: { endpoint: WebhookEndpoint; onDelete(): void }) {
  const { orgId } = useSession();
  const client = useQueryClient();
  const deliveries = useQuery({
    queryKey: ['deliveries', e.id],
    queryFn: () => api<WebhookDeliveryList>(`/v1/webhooks/${e.id}/deliveries`, { query: { org_id: orgId, limit: 20 } }),
    refetchInterval: (q) => (q.state.data?.data.some((d) => d.status === 'pending') ? 2000 : false),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ['deliveries', e.id] });
  const test = useMutation({
    mutationFn: () => api(`/v1/webhooks/${e.id}/test`, { method: 'POST', query: { org_id: orgId } }),
    onSuccess: refresh,
  });
  const retry = useMutation({
    mutationFn: (id: string) => api(`/v1/webhooks/${e.id}/deliveries/${id}/retry`, { method: 'POST', query: { org_id: orgId } }),
    onSuccess: refresh,
  });
  return (
    <section className="card grow" aria-labelledby="endpoint-h">
      <div className="section-head">
        <h2 id="endpoint-h" className="ellipsis">
          {e.url}
        </h2>
        <div className="row-actions">
          <button type="button" className="btn" disabled={test.isPending} onClick={() => test.mutate()}>
            Send test event
          </button>
          <button type="button" className="btn danger" onClick={onDelete}>
            Delete endpoint
          </button>
        </div>
      </div>
      <p className="small muted">
        Events: {e.events.join(', ')} · created {when(e.created_at)}
      </p>
      {(test.error || retry.error) && <ErrorBox error={test.error ?? retry.error} />}
      <h3>Deliveries</h3>
      {deliveries.isPending ? (
        <Loading />
      ) : deliveries.error ? (
        <ErrorBox error={deliveries.error} onRetry={() => deliveries.refetch()} />
      ) : deliveries.data.data.length === 0 ? (
        <p className="muted">No deliveries yet. Send a test event to try the endpoint.</p>
      ) : (
        <Table caption="Deliveries" columns={['Event', 'Status', 'Response', 'Attempts', 'When', { label: 'Actions', hidden: true }]}>
              {deliveries.data.data.map((d) => {
                const last = d.attempts.at(-1);
                return (
                  <tr key={d.id}>
                    <td className="mono small">{d.event_type}</td>
                    <td>
                      <Badge tone={d.status === 'succeeded' ? 'ok' : d.status === 'failed' ? 'bad' : 'busy'}>{d.status}</Badge>
                    </td>
                    <td className="small">
                      {d.last_response_status ?? '—'}
                      {last?.duration_ms != null && <span className="muted"> · {last.duration_ms} ms</span>}
                      {last?.error && <div className="bad-text">{last.error.message}</div>}
                    </td>
                    <td className="num">{d.attempt_count}</td>
                    <td className="small">{when(d.created_at)}</td>
                    <td>
                      {d.status !== 'pending' && (
                        <button type="button" className="btn small" aria-label={`Retry ${d.event_type} delivery`} onClick={() => retry.mutate(d.id)}>
                          Retry
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </Table>
      )}
    </section>
  );
}
