import { useState } from 'react';

/** Copies text; says so for a moment, for sighted users and screen readers alike. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard needs a secure context; fall back to a selection the user can copy.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 2000);
  };
  return (
    <span className="copy">
      <button type="button" className="btn" onClick={copy}>
        {label}
      </button>
      <span role="status" className="copied">
        {done ? 'Copied' : ''}
      </span>
    </span>
  );
}
