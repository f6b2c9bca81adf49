import { defineConfig, type Plugin } from 'vite';
import { CSP_META } from '@llm-nrm/site';

// The Content-Security-Policy meta tag comes from the same constant as the preview server's header.
const csp: Plugin = {
  name: 'llm-nrm-csp',
  transformIndexHtml: (html) => html.replace('%LLM_NRM_CSP%', CSP_META),
};

export default defineConfig({
  base: './',
  plugins: [csp],
  build: {
    outDir: 'dist/app',
    emptyOutDir: true,
    // No inline module-preload polyfill: the CSP forbids inline script.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
  },
  worker: { format: 'es' },
});
