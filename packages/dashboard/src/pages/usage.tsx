import * as Switch from '@radix-ui/react-switch';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api } from '../api/client';
import { useSession } from '../api/session';
import type { UsageReport } from '../api/types';
import { Table } from '../components/table';
import { Empty, ErrorBox, Loading } from '../components/states';
import { useTitle } from '../components/use-title';

const DAYS = [7, 30, 90] as const;

export function UsagePage() {
  const { orgId } = useSession();
  const [days, setDays] = useState<(typeof DAYS)[number]>(30);
  const [internal, setInternal] = useState(false);
  useTitle('Usage');
  // Whole days in UTC, so a bucket is never cut in two.
  const range = useMemo(() => {
    const end = new Date();
    end.setUTCHours(24, 0, 0, 0);
    const start = new Date(end.getTime() - days * 86_400_000);
    return { start: start.toISOString(), end: end.toISOString() };
  }, [days]);
  const query = { org_id: orgId, ...range, granularity: 'day', include_internal: internal, group_by: 'product' };
  const usage = useQuery({ queryKey: ['usage', query], queryFn: () => api<UsageReport>('/v1/usage', { query }) });
  const deviceQuery = { ...query, group_by: 'device' };
  const devices = useQuery({ queryKey: ['usage', deviceQuery], queryFn: () => api<UsageReport>('/v1/usage', { query: deviceQuery }) });
  const rows = usage.data?.buckets.map((b) => ({
    day: new Date(b.start).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' }),
    Views: b.view,
    'AR sessions': b.ar_enter,
  }));
  const totals: Partial<UsageReport['totals']> = usage.data?.totals ?? {};
  return (
    <>
      <div className="page-head">
        <h1>Usage</h1>
        <div className="toolbar">
          <label className="field inline">
            <span>Period</span>
            <select value={days} onChange={(e) => setDays(Number(e.target.value) as (typeof DAYS)[number])}>
              {DAYS.map((d) => (
                <option key={d} value={d}>
                  Last {d} days
                </option>
              ))}
            </select>
          </label>
          <span className="switch-row">
            <Switch.Root id="internal" className="switch" checked={internal} onCheckedChange={setInternal}>
              <Switch.Thumb className="switch-thumb" />
            </Switch.Root>
            <label htmlFor="internal">Include internal traffic</label>
          </span>
        </div>
      </div>
      {usage.isPending ? (
        <Loading label="Loading usage…" />
      ) : usage.error ? (
        <ErrorBox error={usage.error} onRetry={() => usage.refetch()} />
      ) : (
        <>
          <div className="stats">
            <Stat label="Views" value={totals.view ?? 0} />
            <Stat label="AR sessions" value={totals.ar_enter ?? 0} />
            <Stat label="AR sessions ended" value={totals.ar_session_ended ?? 0} />
            <Stat label="Interactions" value={totals.interaction ?? 0} />
            <Stat label="Variant changes" value={totals.variant_change ?? 0} />
            <Stat label="Hotspots opened" value={totals.hotspot_open ?? 0} />
            <Stat label="AR call-to-action taps" value={totals.ar_cta_tap ?? 0} />
            <Stat label="Conversions" value={totals.conversion ?? 0} />
          </div>
          <section className="card" aria-labelledby="by-day-h">
            <h2 id="by-day-h">Views and AR by day</h2>
            {(totals.view ?? 0) + (totals.ar_enter ?? 0) === 0 ? (
              <p className="muted">
                No views in this period. Views are counted when a published product is shown by the embed on a shop page
                {internal ? '' : ' (your own visits from the dashboard are internal traffic)'}.
              </p>
            ) : (
              <div className="chart" role="img" aria-label={`Bar chart: ${totals.view ?? 0} views and ${totals.ar_enter ?? 0} AR sessions over ${days} days`}>
                <ResponsiveContainer width="100%" height={260}>
                  <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
                    <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e6e8ec" />
                    <XAxis dataKey="day" tick={{ fontSize: 12, fill: '#5b6270' }} interval="preserveStartEnd" minTickGap={24} />
                    <YAxis allowDecimals={false} tick={{ fontSize: 12, fill: '#5b6270' }} />
                    <Tooltip />
                    <Legend />
                    <Bar dataKey="Views" fill="#3d5a80" radius={[3, 3, 0, 0]} isAnimationActive={false} />
                    <Bar dataKey="AR sessions" fill="#e09f3e" radius={[3, 3, 0, 0]} isAnimationActive={false} />
                  </BarChart>
                </ResponsiveContainer>
              </div>
            )}
          </section>
          <section className="card" aria-labelledby="device-h">
            <h2 id="device-h">By device</h2>
            {!devices.data?.by_device?.length ? (
              <Empty title="No shop traffic by device yet" />
            ) : (
              <Table
                caption="Usage by device"
                columns={['Device', { label: 'Views', num: true }, { label: 'Interactions', num: true }, { label: 'AR sessions', num: true }, { label: 'Conversions', num: true }]}
              >
                {devices.data.by_device.map((d) => (
                  <tr key={d.device}>
                    <td>{d.device}</td>
                    <td className="num">{d.view}</td>
                    <td className="num">{d.interaction}</td>
                    <td className="num">{d.ar_enter}</td>
                    <td className="num">{d.conversion}</td>
                  </tr>
                ))}
              </Table>
            )}
          </section>
          <section className="card" aria-labelledby="top-h">
            <h2 id="top-h">Top products</h2>
            {!usage.data.by_product?.length ? (
              <Empty title="No product views yet" />
            ) : (
              <Table
                caption="Top products"
                columns={['Product', { label: 'Views', num: true }, { label: 'Interactions', num: true }, { label: 'AR sessions', num: true }, { label: 'Conversions', num: true }]}
              >
                    {usage.data.by_product.map((r) => (
                      <tr key={r.product_id}>
                        <td>
                          <Link to={`/products/${r.product_id}`}>{r.title || r.product_id}</Link>
                        </td>
                        <td className="num">{r.view}</td>
                        <td className="num">{r.interaction}</td>
                        <td className="num">{r.ar_enter}</td>
                        <td className="num">{r.conversion}</td>
                      </tr>
                    ))}
                  </Table>
            )}
          </section>
        </>
      )}
    </>
  );
}

function Stat({ label, value }: { label: string; value: number }) {
  return (
    <div className="card stat">
      <span className="muted small">{label}</span>
      <span className="big-number">{value.toLocaleString()}</span>
    </div>
  );
}
