import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { api } from '../api/client';
import { ErrorBox } from '../components/states';
import { useTitle } from '../components/use-title';

export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const navigate = useNavigate();
  const client = useQueryClient();
  useTitle('Sign in');
  const login = useMutation({
    mutationFn: () => api('/auth/login', { method: 'POST', body: { email, password } }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['me'] });
      navigate('/products');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <main className="signin">
      <form className="card signin-card" onSubmit={submit}>
        <div className="brand big">
          <span className="brand-mark" aria-hidden="true" />
          Plinth
        </div>
        <h1>Sign in</h1>
        <p className="muted">Review product images, publish 3D models and manage your catalogue.</p>
        <label className="field">
          <span>Email</span>
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          <span>Password</span>
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        {login.error && <ErrorBox error={login.error} />}
        <button type="submit" className="btn primary wide" disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
