import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** What is used of esbuild (its types are not a dependency of this package). */
interface Esbuild {
  buildSync(options: Record<string, unknown>): { outputFiles: { text: string }[] };
}

/** Each worker program's JavaScript when the store runs from its TypeScript sources, built once per process. */
const fromSource = new Map<string, string>();

/**
 * Starts the worker program `<name>.ts` that sits beside the module `loaderUrl` (its
 * `import.meta.url`). Built (dist), the program is the compiled `<name>.js` next to the loader and
 * runs as it is. From the TypeScript sources (the tests: vite runs them, and a worker thread is
 * outside vite), the `.ts` file is bundled once per process into one CommonJS script — its
 * relative imports included, packages left to `require` from its own folder — with esbuild (the
 * one tsx depends on: a development dependency, never loaded in production) and evaluated.
 * A CommonJS script has no `import.meta`: a program and the modules it imports do without it (a
 * worker's inputs come in its `workerData`), so that both forms run the same code.
 */
export function startWorker(loaderUrl: string, name: string, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const compiled = new URL(`./${name}.js`, loaderUrl);
  if (!loaderUrl.endsWith('.ts') && existsSync(compiled)) return new Worker(compiled, options);
  return new Worker(sourceProgram(new URL(`./${name}.ts`, loaderUrl)), { ...options, eval: true });
}

function sourceProgram(url: URL): string {
  const file = fileURLToPath(url);
  let program = fromSource.get(file);
  if (program === undefined) {
    const requireHere = createRequire(import.meta.url);
    const esbuild = createRequire(requireHere.resolve('tsx/package.json'))('esbuild') as Esbuild;
    const built = esbuild.buildSync({
      entryPoints: [file],
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    });
    // An evaluated worker's own `require` resolves from the process's working directory: the
    // program's packages resolve from its file instead, as the compiled program's imports do.
    program = `(function (require) {\n${built.outputFiles[0].text}\n})(require('node:module').createRequire(${JSON.stringify(file)}));`;
    fromSource.set(file, program);
  }
  return program;
}
