import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger, SessionDeletedObserver, SessionMovedObserver, StateStore } from '@statehouse/state';

/**
 * What a plugin module may export (STATEHOUSE_PLUGINS lists module paths):
 * - `register(context)` (or a default export function): called once with
 *   `{ onSessionDeleted, onSessionMoved, logger }`;
 * - or `onSessionDeleted(event)` and/or `onSessionMoved(event)`: registered directly.
 * Observers run after commit, once per operation, fail-open and bounded by a timeout. A move (profile
 * repair) is its own event: the sessions live on (docs/domain.md §5.2).
 */
export interface PluginContext {
  onSessionDeleted(observer: SessionDeletedObserver): () => void;
  onSessionMoved(observer: SessionMovedObserver): () => void;
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
      onSessionMoved?: SessionMovedObserver;
    };
    const context: PluginContext = {
      onSessionDeleted: (observer) => store.hooks.onSessionDeleted(observer),
      onSessionMoved: (observer) => store.hooks.onSessionMoved(observer),
      logger,
    };
    const register =
      module.register ??
      (typeof module.default === 'function' ? (module.default as (c: PluginContext) => unknown) : undefined);
    if (register) await register(context);
    else if (module.onSessionDeleted || module.onSessionMoved) {
      if (module.onSessionDeleted) store.hooks.onSessionDeleted(module.onSessionDeleted);
      if (module.onSessionMoved) store.hooks.onSessionMoved(module.onSessionMoved);
    } else throw new Error(`plugin ${path} exports neither register() nor onSessionDeleted() nor onSessionMoved()`);
    loaded.push(path);
  }
  return loaded;
}
