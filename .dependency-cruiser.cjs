/**
 * The floors of libs/state/src (docs/architecture.md, "Modules of libs/state/src"), bottom to top.
 * A module imports from its own floor and the floors below it, never from a floor above: each rule
 * below names one floor and what it may not import. Tests are left out of the cruise: they stand
 * above everything (they open a whole store through testing/).
 *
 *   shared/        plain helpers: errors, clock, ids, logger, context, cursors, hashing
 *   db/            persistence plumbing: schema, connections, dialects, migrations, unit of work,
 *                  prepared statements, idempotency records, write chunks, wake-ups
 *   repositories/  every *.repository.ts: the code that reads and writes tables
 *   domain/        shared rules: guards, titles, lifecycle, message content, gateway owner,
 *                  deletion participants, end reasons, receipts' chain, observers' registry
 *   search/        the search ports and their SQLite and PostgreSQL implementations
 *   services/      the services, with the engines and writers they share
 *   importers/     the Hermes importer and the import service that runs it
 *   store.ts       the composition root
 *   restore/, seed/, testing/   above the store: they open one
 *   index.ts       the public entry
 */
const SRC = '^libs/state/src/';
const SHARED = `${SRC}shared/`;
const DB = `${SRC}db/`;
const REPOSITORIES = `${SRC}repositories/`;
const DOMAIN = `${SRC}domain/`;
const SEARCH = `${SRC}search/`;
const SERVICES = `${SRC}services/`;
const IMPORTERS = `${SRC}importers/`;
const STORE = `${SRC}store\\.ts$`;
const ABOVE_STORE = `${SRC}(restore|seed|testing)/`;
const ENTRY = `${SRC}index\\.ts$`;
const FLOORS = [SHARED, DB, REPOSITORIES, DOMAIN, SEARCH, SERVICES, IMPORTERS, STORE, ABOVE_STORE, ENTRY];

/** A floor's rule: from that floor, nothing of libs/state/src outside `allowed` (itself and below). */
function floor(name, path, allowed, comment) {
  return { name, comment, severity: 'error', from: { path }, to: { path: SRC, pathNot: allowed } };
}

module.exports = {
  forbidden: [
    floor('shared-imports-nothing-above', SHARED, [SHARED], 'shared/ is the ground floor: no database, no domain.'),
    floor(
      'db-imports-only-shared',
      DB,
      [SHARED, DB],
      'db/ is persistence plumbing: it knows tables and connections, not repositories or rules.',
    ),
    floor(
      'repositories-import-only-db-and-shared',
      REPOSITORIES,
      [SHARED, DB, REPOSITORIES],
      'A repository reads and writes rows: no rules, no services.',
    ),
    floor(
      'domain-imports-no-service',
      DOMAIN,
      [SHARED, DB, REPOSITORIES, DOMAIN],
      'domain/ holds rules the services share; it may read through repositories, never call a service.',
    ),
    floor(
      'search-imports-no-service',
      SEARCH,
      [SHARED, DB, REPOSITORIES, DOMAIN, SEARCH],
      'The search ports and adapters sit under the services that use them.',
    ),
    floor(
      'services-import-no-importer-or-store',
      SERVICES,
      [SHARED, DB, REPOSITORIES, DOMAIN, SEARCH, SERVICES],
      'Services use each other and everything below; the importers and the store are built on them.',
    ),
    floor(
      'importers-import-no-store',
      IMPORTERS,
      [SHARED, DB, REPOSITORIES, DOMAIN, SEARCH, SERVICES, IMPORTERS],
      'The importers reuse the services’ rules; the store wires them in.',
    ),
    floor(
      'store-imports-nothing-above-it',
      STORE,
      [SHARED, DB, REPOSITORIES, DOMAIN, SEARCH, SERVICES, IMPORTERS],
      'store.ts composes every floor below it; restore, seed and testing open a store.',
    ),
    floor(
      'restore-seed-testing-import-no-entry',
      ABOVE_STORE,
      [SHARED, DB, REPOSITORIES, DOMAIN, SEARCH, SERVICES, IMPORTERS, STORE, ABOVE_STORE],
      'restore/, seed/ and testing/ stand on the store, under the public entry.',
    ),
    {
      name: 'every-module-on-a-floor',
      comment: 'A module of libs/state/src sits on one of the floors: a new folder is added to this file first.',
      severity: 'error',
      from: { path: SRC, pathNot: FLOORS },
      to: {},
    },
    {
      name: 'no-circular',
      comment:
        'No module reaches itself through the imports that run. A type-only import is erased when compiled: a worker and its loader may share message types both ways.',
      severity: 'error',
      from: { path: SRC },
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-folder-loop',
      comment: 'No folder of libs/state/src reaches itself through its imports.',
      severity: 'error',
      scope: 'folder',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'state-imports-no-app',
      comment: 'libs/state is used by apps/api, bench and tests; it never imports an app or the client.',
      severity: 'error',
      from: { path: '^libs/state/' },
      to: { path: '^(apps|clients)/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    exclude: { path: ['\\.test\\.ts$', '(^|/)node_modules/', '/dist/'] },
    doNotFollow: { path: ['node_modules', '^libs/contracts/'] },
    tsPreCompilationDeps: true,
    // An absolute path: the TypeScript compiler resolves the file's `extends` from it.
    tsConfig: { fileName: require('node:path').join(__dirname, 'libs/state/tsconfig.json') },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@statehouse/source', 'import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
