import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The web app, built into the server package's dist/web (shipped with it: no CDN, nothing fetched at run time).
// No inline script or style anywhere in the output: the server's Content-Security-Policy is `default-src 'self'`.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
