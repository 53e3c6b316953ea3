import * as Dialog from '@radix-ui/react-dialog';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type DragEvent } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../api/client';
import { useSession } from '../api/session';
import { IN_FLIGHT } from '../api/products';
import type { Product, Quote, Upload } from '../api/types';
import { ErrorBox, Progress } from './states';
import { stepLabel } from './status';

type Phase = 'choose' | 'uploading' | 'quoted' | 'committing' | 'done';

interface Plan {
  title: string;
  files: File[];
  quote?: Quote;
}

/**
 * Photos (one product, or one per photo) or a video URL → uploads → the quote with its credits,
 * shown before anything is charged → commit with the resume token → live progress per product.
 */
export function AddProducts() {
  const { orgId } = useSession();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [title, setTitle] = useState('');
  const [tags, setTags] = useState('');
  const [videoUrl, setVideoUrl] = useState('');
  const [each, setEach] = useState(false);
  const [generate, setGenerate] = useState(true);
  const [phase, setPhase] = useState<Phase>('choose');
  const [uploaded, setUploaded] = useState(0);
  const [plans, setPlans] = useState<Plan[]>([]);
  const [created, setCreated] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [dragging, setDragging] = useState(false);

  const reset = () => {
    setFiles([]);
    setTitle('');
    setTags('');
    setVideoUrl('');
    setPhase('choose');
    setUploaded(0);
    setPlans([]);
    setCreated([]);
    setError(null);
  };

  const addFiles = (list: FileList | null) => {
    if (!list) return;
    setFiles((f) => [...f, ...Array.from(list).filter((x) => x.type.startsWith('image/') || x.type.startsWith('video/'))]);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    addFiles(e.dataTransfer.files);
  };

  const tagList = tags.split(',').map((t) => t.trim()).filter(Boolean);

  const getQuotes = async () => {
    setError(null);
    setPhase('uploading');
    setUploaded(0);
    try {
      const groups: Plan[] = videoUrl
        ? [{ title: title || 'Video product', files: [] }]
        : each
          ? files.map((f) => ({ title: f.name.replace(/\.[^.]+$/, ''), files: [f] }))
          : [{ title: title || files[0]?.name.replace(/\.[^.]+$/, '') || 'New product', files }];
      const quoted: Plan[] = [];
      for (const g of groups) {
        const paths: string[] = [];
        for (const f of g.files) {
          const up = await api<{ path: string }>('/v1/uploads', { method: 'POST', query: { org_id: orgId }, file: f });
          paths.push(up.path);
          setUploaded((n) => n + 1);
        }
        const input = videoUrl ? { video_url: videoUrl } : { image_paths: paths };
        const quote = await api<Quote>('/v1/products', {
          method: 'POST',
          body: { ...input, title: g.title, tags: tagList, generate_model: generate, org_id: orgId },
        });
        quoted.push({ ...g, quote });
      }
      setPlans(quoted);
      setPhase('quoted');
    } catch (e) {
      setError(e);
      setPhase('choose');
    }
  };

  const commit = async () => {
    setError(null);
    setPhase('committing');
    try {
      const ids: string[] = [];
      for (const p of plans) {
        const product = await api<Product>('/v1/products', { method: 'POST', body: { resume_token: p.quote!.resume_token } });
        ids.push(product.id);
        setCreated([...ids]);
      }
      await client.invalidateQueries({ queryKey: ['products'] });
      await client.invalidateQueries({ queryKey: ['me'] });
      setPhase('done');
    } catch (e) {
      setError(e);
      setPhase('quoted');
    }
  };

  const total = plans.reduce((n, p) => n + (p.quote?.credits ?? 0), 0);
  const balance = plans[0]?.quote?.balance_credits;
  const seconds = plans.reduce((n, p) => n + (p.quote?.estimated_seconds ?? 0), 0);
  const ready = videoUrl.trim() !== '' || files.length > 0;

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        if (!o) reset();
      }}
    >
      <Dialog.Trigger asChild>
        <button type="button" className="btn primary">
          Add products
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog wide-dialog" aria-describedby={undefined}>
          <Dialog.Title>Add products</Dialog.Title>
          {phase === 'choose' || phase === 'uploading' ? (
            <>
              <label
                className={`dropzone${dragging ? ' over' : ''}`}
                onDragOver={(e) => {
                  e.preventDefault();
                  setDragging(true);
                }}
                onDragLeave={() => setDragging(false)}
                onDrop={onDrop}
              >
                <strong>Drop photos here</strong>
                <span className="muted small">or choose files: JPEG, PNG or WebP, all sides of one product</span>
                <input type="file" multiple accept="image/jpeg,image/png,image/webp" aria-label="Photos" onChange={(e) => addFiles(e.target.files)} />
              </label>
              {files.length > 0 && (
                <div className="file-list">
                  <p className="small">
                    {files.length} photo{files.length === 1 ? '' : 's'} chosen{' '}
                    <button type="button" className="link-btn" onClick={() => setFiles([])}>
                      Clear
                    </button>
                  </p>
                  <ul className="thumbs-row">
                    {files.slice(0, 12).map((f, i) => (
                      <li key={i}>
                        <FilePreview file={f} />
                      </li>
                    ))}
                  </ul>
                </div>
              )}
              <label className="field">
                <span>Or a video URL</span>
                <input type="url" placeholder="https://…/turntable.mp4" value={videoUrl} onChange={(e) => setVideoUrl(e.target.value)} />
              </label>
              <div className="row2">
                <label className="field">
                  <span>Title</span>
                  <input value={title} onChange={(e) => setTitle(e.target.value)} disabled={each && !videoUrl} />
                </label>
                <label className="field">
                  <span>Tags</span>
                  <input value={tags} placeholder="chairs, oak" onChange={(e) => setTags(e.target.value)} />
                </label>
              </div>
              <label className="check">
                <input type="checkbox" checked={each} onChange={(e) => setEach(e.target.checked)} disabled={!!videoUrl} />
                One product per photo
              </label>
              <label className="check">
                <input type="checkbox" checked={generate} onChange={(e) => setGenerate(e.target.checked)} />
                Build a 3D model
              </label>
              {phase === 'uploading' && (
                <div aria-live="polite">
                  <Progress value={files.length ? Math.round((uploaded / files.length) * 100) : 50} label="Upload progress" />
                  <p className="small muted">
                    Uploading {uploaded} of {files.length}…
                  </p>
                </div>
              )}
              {error != null && <ErrorBox error={error} />}
              <div className="dialog-actions">
                <Dialog.Close asChild>
                  <button type="button" className="btn">
                    Cancel
                  </button>
                </Dialog.Close>
                <button type="button" className="btn primary" disabled={!ready || phase === 'uploading'} onClick={getQuotes}>
                  Get quote
                </button>
              </div>
            </>
          ) : phase === 'quoted' || phase === 'committing' ? (
            <>
              <div className="quote" aria-live="polite">
                <p className="quote-credits">
                  <strong>{total}</strong> credit{total === 1 ? '' : 's'}
                </p>
                <p className="muted">
                  {plans.length} product{plans.length === 1 ? '' : 's'} · balance {balance ?? '—'} credits · about {Math.max(1, Math.round(seconds / 60))} min
                </p>
                <ul className="plain small">
                  {plans.map((p, i) => (
                    <li key={i}>
                      {p.title}: {p.quote?.credits} credits ({p.quote?.operation})
                    </li>
                  ))}
                </ul>
                <p className="small muted">Nothing is charged until you create. The quote expires at {new Date(plans[0]?.quote?.expires_at ?? '').toLocaleTimeString()}.</p>
              </div>
              {error != null && <ErrorBox error={error} />}
              <div className="dialog-actions">
                <button type="button" className="btn" onClick={() => setPhase('choose')}>
                  Back
                </button>
                <button type="button" className="btn primary" disabled={phase === 'committing'} onClick={commit}>
                  {plans.length === 1 ? 'Create product' : `Create ${plans.length} products`}
                </button>
              </div>
            </>
          ) : (
            <>
              <p>Processing has started. You can close this window; progress continues on the products page.</p>
              <ul className="plain">
                {created.map((id) => (
                  <CreatedProgress key={id} id={id} onOpen={() => setOpen(false)} />
                ))}
              </ul>
              <div className="dialog-actions">
                <Dialog.Close asChild>
                  <button type="button" className="btn primary">
                    Done
                  </button>
                </Dialog.Close>
              </div>
            </>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function FilePreview({ file }: { file: File }) {
  const [url] = useState(() => URL.createObjectURL(file));
  return <img src={url} alt={file.name} width={56} height={56} />;
}

function CreatedProgress({ id, onOpen }: { id: string; onOpen(): void }) {
  const q = useQuery({
    queryKey: ['product', id],
    queryFn: () => api<Product>(`/v1/products/${id}`),
    refetchInterval: (qr) => (!qr.state.data || IN_FLIGHT(qr.state.data) ? 2000 : false),
  });
  const p = q.data;
  return (
    <li className="created">
      <Link to={`/products/${id}`} onClick={onOpen}>
        {p?.title || id}
      </Link>
      {p && IN_FLIGHT(p) ? (
        <>
          <Progress value={p.progress} label={`Progress of ${p.title || id}`} />
          <span className="small muted">
            {stepLabel(p.step)} · {p.progress ?? 0}%
          </span>
        </>
      ) : p ? (
        <span className="small">{p.error ? p.error.message : `Images ${p.images_status} · 3D ${p.model_status}`}</span>
      ) : null}
    </li>
  );
}
