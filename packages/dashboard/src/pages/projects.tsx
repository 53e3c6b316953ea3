import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useSession } from '../api/session';
import type { Project, ProjectList } from '../api/types';
import { Empty, ErrorBox, Loading, when } from '../components/states';
import { useTitle } from '../components/use-title';

export function ProjectsPage() {
  const { orgId, canManage } = useSession();
  const client = useQueryClient();
  const [name, setName] = useState('');
  useTitle('Projects');
  const projects = useQuery({ queryKey: ['projects', orgId], queryFn: () => api<ProjectList>('/v1/projects', { query: { org_id: orgId, limit: 100 } }) });
  const create = useMutation({
    mutationFn: () => api<Project>('/v1/projects', { method: 'POST', body: { name, allowed_domains: [], org_id: orgId } }),
    onSuccess: () => {
      setName('');
      return client.invalidateQueries({ queryKey: ['projects'] });
    },
  });
  return (
    <>
      <div className="page-head">
        <h1>Projects</h1>
      </div>
      <p className="muted">A project groups publishable keys with the shop domains allowed to show your products.</p>
      {projects.isPending ? (
        <Loading label="Loading projects…" />
      ) : projects.error ? (
        <ErrorBox error={projects.error} onRetry={() => projects.refetch()} />
      ) : projects.data.data.length === 0 ? (
        <Empty title="No projects yet">
          <p>Create one below, then a publishable key for it.</p>
        </Empty>
      ) : (
        projects.data.data.map((p) => <ProjectCard key={p.id} project={p} editable={canManage} />)
      )}
      {canManage && (
        <form
          className="card inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <label className="field grow">
            <span>New project name</span>
            <input required value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <button type="submit" className="btn" disabled={create.isPending}>
            Create project
          </button>
          {create.error && <ErrorBox error={create.error} />}
        </form>
      )}
    </>
  );
}

function ProjectCard({ project: p, editable }: { project: Project; editable: boolean }) {
  const client = useQueryClient();
  const [domains, setDomains] = useState(p.allowed_domains.join('\n'));
  const save = useMutation({
    mutationFn: () =>
      api<Project>(`/v1/projects/${p.id}`, {
        method: 'PATCH',
        body: { allowed_domains: domains.split(/[\s,]+/).map((d) => d.trim()).filter(Boolean) },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['projects'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <section className="card" aria-labelledby={`${p.id}-h`}>
      <div className="section-head">
        <h2 id={`${p.id}-h`}>{p.name}</h2>
        <span className="muted small mono">{p.id}</span>
      </div>
      <p className="small muted">Created {when(p.created_at)}</p>
      <form onSubmit={submit}>
        <label className="field">
          <span>Allowed domains for {p.name}</span>
          <textarea
            rows={3}
            value={domains}
            readOnly={!editable}
            placeholder={'https://shop.example\nhttps://*.brand.example'}
            onChange={(e) => setDomains(e.target.value)}
          />
        </label>
        <p className="small muted">One origin per line: an exact origin, or https://*.example.com for every subdomain.</p>
        {save.error && <ErrorBox error={save.error} />}
        {editable && (
          <div className="save-row">
            {save.isSuccess && (
              <span role="status" className="small ok-text">
                Saved
              </span>
            )}
            <button type="submit" className="btn primary" disabled={save.isPending}>
              Save domains
            </button>
          </div>
        )}
      </form>
    </section>
  );
}
