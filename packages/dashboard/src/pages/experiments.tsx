import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Bar, BarChart, CartesianGrid, ErrorBar, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api } from '../api/client';
import { useSession } from '../api/session';
import type { Experiment, ExperimentList, ExperimentResults } from '../api/types';
import { Table } from '../components/table';
import { Badge, Empty, ErrorBox, Loading } from '../components/states';
import { useTitle } from '../components/use-title';

const pct = (x: number | null | undefined, digits = 1) => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(digits)}%`);
const ARM_LABEL = { '3d': '3D viewer', poster: 'Image only' } as const;

export function ExperimentsPage() {
  const { orgId } = useSession();
  const client = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  useTitle('Experiments');
  const list = useQuery({
    queryKey: ['experiments', orgId],
    queryFn: () => api<ExperimentList>('/v1/experiments', { query: { org_id: orgId, limit: 100 } }),
  });
  const stop = useMutation({
    mutationFn: (id: string) => api<Experiment>(`/v1/experiments/${id}/stop`, { method: 'POST', query: { org_id: orgId } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['experiments'] }),
  });
  const current = list.data?.data.find((e) => e.id === selected) ?? list.data?.data[0];
  return (
    <>
      <div className="page-head">
        <h1>Experiments</h1>
      </div>
      <p className="muted">
        Does 3D sell? While an experiment runs, the embed shows each shopper either the 3D viewer or the product image
        alone, always the same for the same shopper, and compares how many of each converted.
      </p>
      <NewExperiment onCreated={setSelected} />
      {list.isPending ? (
        <Loading label="Loading experiments…" />
      ) : list.error ? (
        <ErrorBox error={list.error} onRetry={() => list.refetch()} />
      ) : !list.data.data.length ? (
        <Empty title="No experiments yet" />
      ) : (
        <section className="card" aria-labelledby="experiments-h">
          <h2 id="experiments-h">All experiments</h2>
          <Table caption="Experiments" columns={['Name', 'Status', 'Split', 'Products', 'Started', '']}>
            {list.data.data.map((e) => (
              <tr key={e.id}>
                <td>
                  <button type="button" className="endpoint-btn" aria-pressed={e.id === current?.id} onClick={() => setSelected(e.id)}>
                    {e.name}
                  </button>
                </td>
                <td>{e.status === 'running' ? <Badge tone="busy">running</Badge> : <Badge>stopped</Badge>}</td>
                <td>
                  3D {pct(e.arms['3d'], 0)} · image {pct(e.arms.poster, 0)}
                </td>
                <td>{e.product_ids ? e.product_ids.length : 'All'}</td>
                <td>{new Date(e.created_at).toLocaleDateString()}</td>
                <td>
                  {e.status === 'running' && (
                    <button type="button" className="btn small" aria-label={`Stop ${e.name}`} disabled={stop.isPending} onClick={() => stop.mutate(e.id)}>
                      Stop
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
          {stop.error && <ErrorBox error={stop.error} />}
        </section>
      )}
      {current && <Results experiment={current} />}
    </>
  );
}

function NewExperiment({ onCreated }: { onCreated(id: string): void }) {
  const { orgId } = useSession();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [products, setProducts] = useState('');
  const [share, setShare] = useState(50);
  const create = useMutation({
    mutationFn: () => {
      const ids = products.split(/[\s,]+/).filter(Boolean);
      return api<Experiment>('/v1/experiments', {
        method: 'POST',
        query: { org_id: orgId },
        body: { name, ...(ids.length && { product_ids: ids }), arms: { '3d': share / 100, poster: 1 - share / 100 } },
      });
    },
    onSuccess: (e) => {
      setName('');
      setProducts('');
      onCreated(e.id);
      return client.invalidateQueries({ queryKey: ['experiments'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="card inline-form" onSubmit={submit} aria-label="New experiment">
      <label className="field grow">
        <span>Name</span>
        <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} placeholder="Chairs, spring" />
      </label>
      <label className="field grow">
        <span>Product ids (empty: every product)</span>
        <input value={products} onChange={(e) => setProducts(e.target.value)} placeholder="prod_…, prod_…" />
      </label>
      <label className="field">
        <span>Shown 3D (%)</span>
        <input type="number" min={1} max={99} required value={share} onChange={(e) => setShare(Number(e.target.value))} />
      </label>
      <button type="submit" className="btn primary" disabled={create.isPending}>
        Start experiment
      </button>
      {create.error && <ErrorBox error={create.error} />}
    </form>
  );
}

function Results({ experiment }: { experiment: Experiment }) {
  const { orgId } = useSession();
  const results = useQuery({
    queryKey: ['experiment-results', experiment.id, experiment.status],
    queryFn: () => api<ExperimentResults>(`/v1/experiments/${experiment.id}/results`, { query: { org_id: orgId } }),
  });
  const r = results.data;
  // Bars are conversion rates; the whiskers are each rate's 95% Wilson interval.
  const rows = r?.arms.map((a) => ({
    arm: ARM_LABEL[a.arm],
    rate: (a.conversion_rate ?? 0) * 100,
    interval: a.interval && a.conversion_rate !== null ? [(a.conversion_rate - a.interval.lower) * 100, (a.interval.upper - a.conversion_rate) * 100] : [0, 0],
  }));
  return (
    <section className="card" aria-labelledby="results-h">
      <h2 id="results-h">Results: {experiment.name}</h2>
      {results.isPending ? (
        <Loading label="Loading results…" />
      ) : results.error ? (
        <ErrorBox error={results.error} onRetry={() => results.refetch()} />
      ) : (
        <>
          <p>
            <strong>
              {r!.verdict === '3d_better'
                ? `3D converts better: +${pct(r!.lift!.estimate)} (95% interval ${pct(r!.lift!.lower)} to ${pct(r!.lift!.upper)}).`
                : r!.verdict === 'poster_better'
                  ? `The image alone converts better: ${pct(r!.lift!.estimate)} (95% interval ${pct(r!.lift!.lower)} to ${pct(r!.lift!.upper)}).`
                  : r!.lift
                    ? `No verdict yet: lift ${pct(r!.lift.estimate)}, but its 95% interval (${pct(r!.lift.lower)} to ${pct(r!.lift.upper)}) includes 0.`
                    : 'No verdict yet: both arms need conversions.'}
            </strong>{' '}
            {r!.p_value !== null && <span className="muted">p = {r!.p_value.toPrecision(2)}</span>}
          </p>
          <div className="chart" role="img" aria-label={`Conversion rate by arm with 95% intervals: ${r!.arms.map((a) => `${ARM_LABEL[a.arm]} ${pct(a.conversion_rate)}`).join(', ')}`}>
            <ResponsiveContainer width="100%" height={240}>
              <BarChart data={rows} layout="vertical" margin={{ top: 8, right: 24, bottom: 0, left: 24 }}>
                <CartesianGrid strokeDasharray="3 3" horizontal={false} stroke="#e6e8ec" />
                <XAxis type="number" unit="%" tick={{ fontSize: 12, fill: '#5b6270' }} domain={[0, 'auto']} />
                <YAxis type="category" dataKey="arm" tick={{ fontSize: 12, fill: '#5b6270' }} width={90} />
                <Tooltip formatter={(v) => `${Number(v).toFixed(2)}%`} />
                <Bar dataKey="rate" name="Conversion rate" fill="#3d5a80" radius={[0, 3, 3, 0]} isAnimationActive={false}>
                  <ErrorBar dataKey="interval" width={8} strokeWidth={2} stroke="#1f2328" direction="x" />
                </Bar>
              </BarChart>
            </ResponsiveContainer>
          </div>
          <Table
            caption="Results by arm"
            columns={['Arm', { label: 'Viewers', num: true }, { label: 'Converted', num: true }, { label: 'Rate', num: true }, '95% interval', { label: 'Value', num: true }]}
          >
            {r!.arms.map((a) => (
              <tr key={a.arm}>
                <td>{ARM_LABEL[a.arm]}</td>
                <td className="num">{a.viewers.toLocaleString()}</td>
                <td className="num">{a.converters.toLocaleString()}</td>
                <td className="num">{pct(a.conversion_rate, 2)}</td>
                <td>{a.interval ? `${pct(a.interval.lower, 2)} – ${pct(a.interval.upper, 2)}` : '—'}</td>
                <td className="num">{a.value.toLocaleString()}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </section>
  );
}
