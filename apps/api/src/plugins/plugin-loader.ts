import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger, SessionDeletedObserver, StateStore } from '@statehouse/state';

/**
 * What a plugin module may export (STATEHOUSE_PLUGINS lists module paths):
 * - `register(context)` (or a default export function): called once with `{ onSessionDeleted, logger }`;
 * - or `onSessionDeleted(event)`: registered as a deletion observer directly.
 * Observers run after commit, once per operation, fail-open and bounded by a timeout.
 */
export interface PluginContext {
  onSessionDeleted(observer: SessionDeletedObserver): () => void;
  logger: Logger;
}

export async function loadPlugins(paths: readonly string[], store: StateStore, logger: Logger): Promise<string[]> {
  const loaded: string[] = [];
  for (const path of paths) {
    const url = pathToFileURL(resolve(path)).href;
    const module = (await import(url)) as {
      register?: (context: PluginContext) => unknown;
      default?: unknown;
      onSessionDeleted?: SessionDeletedObserver;
    };
    const context: PluginContext = { onSessionDeleted: (observer) => store.hooks.onSessionDeleted(observer), logger };
    const register =
      module.register ??
      (typeof module.default === 'function' ? (module.default as (c: PluginContext) => unknown) : undefined);
    if (register) await register(context);
    else if (module.onSessionDeleted) store.hooks.onSessionDeleted(module.onSessionDeleted);
    else throw new Error(`plugin ${path} exports neither register() nor onSessionDeleted()`);
    loaded.push(path);
  }
  return loaded;
}
