import { createRoot } from 'react-dom/client';

createRoot(document.getElementById('root')!).render(<main><h1>Plinth</h1></main>);
