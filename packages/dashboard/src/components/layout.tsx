import { Link, NavLink, Outlet, useNavigate } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { signOut, useSession } from '../api/session';

const LINKS = [
  ['/products', 'Products'],
  ['/exports', 'Exports'],
  ['/usage', 'Usage'],
  ['/experiments', 'Experiments'],
  ['/webhooks', 'Webhooks'],
  ['/keys', 'API keys'],
  ['/projects', 'Projects'],
  ['/organization', 'Organization'],
] as const;

export function Layout() {
  const { me, org, orgId, setOrgId } = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const out = async () => {
    await signOut().catch(() => undefined);
    client.clear();
    navigate('/sign-in');
  };
  return (
    <div className="shell">
      <header className="topbar">
        <Link className="brand" to="/products">
          <span className="brand-mark" aria-hidden="true" />
          Plinth
        </Link>
        <div className="topbar-right">
          {me.organizations.length > 1 ? (
            <label className="org-switch">
              <span className="sr-only">Switch organization</span>
              <select value={orgId} onChange={(e) => setOrgId(e.target.value)}>
                {me.organizations.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span className="org-name">{org?.name}</span>
          )}
          <span className="user muted">{me.user.email}</span>
          <button type="button" className="btn ghost" onClick={out}>
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidenav" aria-label="Main">
        <ul>
          {LINKS.map(([to, label]) => (
            <li key={to}>
              <NavLink to={to}>{label}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content" id="main">
        <Outlet />
      </main>
    </div>
  );
}
