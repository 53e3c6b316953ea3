import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { ApiError } from './api/client';
import { SessionProvider, useMe } from './api/session';
import { Layout } from './components/layout';
import { ErrorBox, Loading } from './components/states';
import { ExportsPage } from './pages/exports';
import { KeysPage } from './pages/keys';
import { OrganizationPage } from './pages/organization';
import { ProductPage } from './pages/product';
import { ProductsPage } from './pages/products';
import { ProjectsPage } from './pages/projects';
import { SignInPage } from './pages/sign-in';

import { WebhooksPage } from './pages/webhooks';
import './styles.css';

// Charts are the largest dependency; only the usage page needs them.
const UsagePage = lazy(() => import('./pages/usage').then((m) => ({ default: m.UsagePage })));
const ExperimentsPage = lazy(() => import('./pages/experiments').then((m) => ({ default: m.ExperimentsPage })));

const client = new QueryClient({
  defaultOptions: {
    queries: { retry: (n, err) => !(err instanceof ApiError && err.status < 500 && err.status !== 429) && n < 2, refetchOnWindowFocus: false },
  },
});

/** Everything but sign-in needs a session; a 401 anywhere means sign in again. */
function Authenticated() {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <Loading label="Loading your account…" />;
  if (me.error instanceof ApiError && me.error.status === 401) return <Navigate to="/sign-in" replace state={{ from: location.pathname }} />;
  if (me.error) {
    return (
      <main className="centered">
        <ErrorBox error={me.error} onRetry={() => me.refetch()} />
      </main>
    );
  }
  return (
    <SessionProvider me={me.data}>
      <Routes>
        <Route element={<Layout />}>
          <Route path="/products" element={<ProductsPage />} />
          <Route path="/products/:id" element={<ProductPage />} />
          <Route path="/exports" element={<ExportsPage />} />
          <Route path="/usage" element={<Suspense fallback={<Loading label="Loading usage…" />}><UsagePage /></Suspense>} />
          <Route path="/experiments" element={<Suspense fallback={<Loading label="Loading experiments…" />}><ExperimentsPage /></Suspense>} />
          <Route path="/webhooks" element={<WebhooksPage />} />
          <Route path="/keys" element={<KeysPage />} />
          <Route path="/projects" element={<ProjectsPage />} />
          <Route path="/organization" element={<OrganizationPage />} />
          <Route path="*" element={<Navigate to="/products" replace />} />
        </Route>
      </Routes>
    </SessionProvider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <BrowserRouter>
        <Routes>
          <Route path="/sign-in" element={<SignInPage />} />
          <Route path="/*" element={<Authenticated />} />
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
