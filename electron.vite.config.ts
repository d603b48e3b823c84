// One build for the three parts of the desktop app (`npm run build`):
// - main: the Electron main process (main/electron/main.ts and the core it
//   starts), ESM, Node built-ins and npm dependencies left external;
// - preload: ONE CommonJS file (a sandboxed preload cannot load ESM or
//   relative imports) exposing named control methods only;
// - renderer: the React UI, the same files `airlock serve --ui` serves to a
//   browser. xterm and the Activity table load on first use (their own chunks).
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // The QuickJS worker and the process that prepares API documents are entries of their own: a worker thread or a
      // child process loads a file, so they ship as out/main/quickjsWorker.js and out/main/prepareProcess.js.
      lib: {
        entry: {
          main: resolve(import.meta.dirname, 'main/electron/main.ts'),
          quickjsWorker: resolve(import.meta.dirname, 'main/core/sandbox/quickjs/quickjsWorker.ts'),
          prepareProcess: resolve(import.meta.dirname, 'main/core/search/prepareProcess.ts'),
        },
        formats: ['es'],
      },
      rollupOptions: {
        external: [
          /^node:/,
          'electron',
          'electron-updater',
          /^@modelcontextprotocol\//,
          'quickjs-emscripten',
          '@napi-rs/keyring',
          '@anthropic-ai/sandbox-runtime',
          '@readme/openapi-parser',
          'yaml',
          'minisearch',
          'zod',
          'commander',
        ],
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      lib: { entry: resolve(import.meta.dirname, 'preload/index.ts'), formats: ['cjs'], fileName: () => 'index.cjs' },
      rollupOptions: { external: ['electron'] },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'renderer'),
    // Relative asset URLs: the same files load from the Electron app protocol and from /ui/ in a browser.
    base: './',
    plugins: [react()],
    build: {
      outDir: resolve(import.meta.dirname, 'out/renderer'),
      emptyOutDir: true,
      sourcemap: false,
      rollupOptions: { input: resolve(import.meta.dirname, 'renderer/index.html') },
    },
  },
});
