/**
 * Import boundaries (STYLE.md): routes -> service -> repo/engine -> store/compute.
 * schemas/ is TypeBox only; the engine knows nothing of HTTP, tenants or stores; workers import only compute and the engine.
 */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'schemas-are-leaves',
      comment: 'schemas/ holds TypeBox schemas only and never imports the application.',
      severity: 'error',
      from: { path: '^schemas/' },
      to: { path: '^src/' },
    },
    {
      name: 'stores-know-no-resources',
      comment: 'store adapters never import a resource folder or the HTTP layer.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(http|api-keys|users|workspaces|organisations|me|sources|datasets|ontology|connectors|twins|simulations|reports|jobs|mcp)/' },
    },
    {
      name: 'services-and-repos-know-no-http',
      comment: 'behaviour (service.ts) and store access (repo.ts) never depend on the HTTP adapter.',
      severity: 'error',
      from: { path: '^src/[^/]+/(service|repo|access)\\.ts$' },
      to: { path: '^src/(http/|[^/]+/routes\\.ts$)' },
    },
    {
      name: 'repos-call-no-services',
      severity: 'error',
      from: { path: '^src/[^/]+/repo\\.ts$' },
      to: { path: '^src/[^/]+/(service|routes)\\.ts$' },
    },
    {
      name: 'engine-is-pure',
      comment: 'the causal engine knows nothing of HTTP, tenants or stores.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^src/(?!engine/|compute/|errors\\.ts|lib/)' },
    },
    {
      name: 'workers-are-lean',
      comment: 'pool workers run kernels and the pure engine, nothing that touches stores, tenants or HTTP.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '^src/(?!compute/|engine/|lib/|errors\\.ts)' },
    },
    {
      name: 'family-engines-are-lean',
      comment: 'a family or twin kind engine (src/families/<family>/engine.ts, src/twins/kinds/<kind>/engine.ts) is loaded by pool workers: the pure engine only (a panel family wraps another family\'s engine).',
      severity: 'error',
      from: { path: '^src/(families|twins/kinds)/[^/]+/engine\\.ts$' },
      to: { path: '^src/(?!compute/|engine/|lib/|errors\\.ts|families/[^/]+/engine\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
