import { useEffect } from 'react';

/** Each page names itself in the browser tab and history. */
export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Plinth`;
  }, [title]);
}
