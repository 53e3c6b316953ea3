/** Everything interpolated into the demo page passes through here; titles are user text. */
function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, sans-serif; color: #1f2328; background: #f6f6f3; }
  body { margin: 0; }
  main { max-width: 760px; margin: 0 auto; padding: 32px 20px 48px; }
  h1 { font-size: 1.5rem; font-weight: 600; margin: 0 0 4px; }
  p { color: #57606a; margin: 0 0 20px; }
  service-model { border-radius: 14px; background: #fff; box-shadow: 0 1px 3px rgb(0 0 0 / 8%); }
  pre { background: #fff; border-radius: 10px; padding: 14px 16px; overflow-x: auto; font-size: 0.8rem; margin-top: 24px; }
`;

export interface DemoPageInput {
  productId: string;
  title: string | null;
  publishableKey: string;
  /** where the page loads the element from: the versioned, immutable URL */
  scriptPath: string;
  /** shown in the copyable snippet; the element itself defaults api-base to its script's origin */
  publicUrl: string;
}

export function demoPageHtml(input: DemoPageInput): string {
  const title = input.title?.trim() || input.productId;
  const snippet =
    `<script type="module" src="${input.publicUrl}/embed.js"></script>\n` +
    `<service-model product-id="${input.productId}"\n  publishable-key="${input.publishableKey}"\n  api-base="${input.publicUrl}"></service-model>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(title)} · Plinth demo</title>
<script type="module" src="${esc(input.scriptPath)}"></script>
<style>${STYLE}</style>
</head>
<body>
<main>
  <h1>${esc(title)}</h1>
  <p>A published product of the demo organization, shown by the &lt;service-model&gt; element.</p>
  <service-model product-id="${esc(input.productId)}" publishable-key="${esc(input.publishableKey)}"></service-model>
  <pre><code>${esc(snippet)}</code></pre>
</main>
</body>
</html>
`;
}

export function demoNotFoundHtml(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Not found · Plinth demo</title><style>${STYLE}</style></head>
<body><main>
  <h1>Not found</h1>
  <p>There is no published product with this id in the demo organization.</p>
</main></body>
</html>
`;
}
