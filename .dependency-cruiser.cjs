/**
 * The import rules of the house (npm run lint runs them):
 * the pipeline's imports follow its data flow, no two folders of src/ import each other, the
 * packages are entered by their names only, and development code stays out of the product.
 * test/unit/architecture/house-rules.test.ts checks what these rules cannot state (the change feed's
 * export count and doc comments, the size of startOpstream), one import rule stated only there (the
 * queue imports no src/cosmos, src/clusters-service or src/domain), and re-checks four of these on the
 * sources: changefeed-stands-alone, changefeed-by-name, processors-only-from-the-composition-root and
 * pipeline-queue-knows-no-neighbour.
 */
const STAND_INS =
  '^(infra/|node_modules/@opstream/(cosmos-emulator|service-bus-emulator|clusters-service-simulator|token-service|frontend-simulator|otlp-receiver|stand-in-kit|local-stack)/)';

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'Two folders of src/ import each other: one of them has to own the shared piece.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
      scope: 'folder',
    },
    {
      name: 'pipeline-contracts-import-no-stage',
      comment:
        "src/pipeline's shared files (context, events, …) are what the stages build on: they import none of them (the composition, operation-pipeline, and the state it reports, operation-state, sit above the stages).",
      severity: 'error',
      from: { path: '^src/pipeline/[^/]+\\.ts$', pathNot: '^src/pipeline/operation-(pipeline|state)\\.ts$' },
      to: { path: '^src/pipeline/(source|queue|reconcile)/' },
    },
    {
      name: 'pipeline-queue-knows-no-neighbour',
      comment: 'The queue owns the contract between the source and the reconciler (Outcome, settlements): it imports neither.',
      severity: 'error',
      from: { path: '^src/pipeline/queue/' },
      to: { path: '^src/pipeline/(source|reconcile)/' },
    },
    {
      name: 'pipeline-flows-forward',
      comment: "source → queue → reconcile: the reconciler knows the queue's contract, never the source; the source knows no reconciler.",
      severity: 'error',
      from: { path: '^src/pipeline/(reconcile|source)/' },
      to: { path: '^src/pipeline/(source|reconcile)/', pathNot: '^src/pipeline/$1/' },
    },
    {
      name: 'follow-knows-only-the-processor-contract',
      comment:
        'The status follow (src/pipeline/reconcile/follow/) serves the reconciler and the processors: of the reconcile stage it knows only the processor contract, so it never reaches back into what uses it.',
      severity: 'error',
      from: { path: '^src/pipeline/reconcile/follow/' },
      to: { path: '^src/pipeline/reconcile/[^/]+\\.ts$', pathNot: '^src/pipeline/reconcile/processor\\.ts$' },
    },
    {
      name: 'changefeed-stands-alone',
      comment: 'The change feed package depends on nothing of opstream.',
      severity: 'error',
      from: { path: '^src/changefeed/' },
      to: { pathNot: '^(src/changefeed/|node_modules/)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'service-bus-hands-in-through-pipeline-contracts',
      comment:
        "The Service Bus receivers hand events to the pipeline through the pipeline's own top-level contract files (cs-hints, reported-states), never a stage's.",
      severity: 'error',
      from: { path: '^src/service-bus/' },
      to: { path: '^src/pipeline/[^/]+/' },
    },
    {
      name: 'hint-sender-stands-alone',
      comment: "The frontend's hint sender package depends on nothing of opstream: a frontend installs it alone.",
      severity: 'error',
      from: { path: '^src/hint-sender/' },
      to: { pathNot: '^(src/hint-sender/|node_modules/)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'hint-sender-by-name',
      comment: 'Whoever uses the hint sender enters it by its name (@opstream/hint-sender), never by a path into it.',
      severity: 'error',
      from: { path: '^(src|processors|bench)/', pathNot: '^src/hint-sender/' },
      to: { path: '^src/hint-sender/', pathNot: '^src/hint-sender/dist/' },
    },
    {
      name: 'changefeed-no-cycles',
      comment:
        'No two modules of the change feed package import each other, type-only imports included: the shared piece gets a file of its own.',
      severity: 'error',
      from: { path: '^src/changefeed/' },
      to: { circular: true },
    },
    {
      name: 'changefeed-by-name',
      comment: 'opstream enters the change feed package by its name (@opstream/changefeed), never by a path into it.',
      severity: 'error',
      from: { path: '^(src|processors|bench)/', pathNot: '^src/changefeed/' },
      to: { path: '^src/changefeed/', pathNot: '^src/changefeed/dist/' },
    },
    {
      name: 'stand-ins-only-through-the-development-entry',
      comment: 'The product loads no stand-in: only `opstream start` (src/cli/embedded.ts) and the emulator commands do, lazily.',
      severity: 'error',
      from: { path: '^(src|processors)/', pathNot: '^src/cli/(embedded\\.ts|commands/(emulator-[a-z-]+|start)\\.ts)$' },
      to: { path: STAND_INS },
    },
    {
      name: 'processors-only-from-the-composition-root',
      comment: 'Only the composition root (the run and start commands) imports processors/.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/(embedded\\.ts|commands/run\\.ts)$' },
      to: { path: '^processors/' },
    },
    {
      name: 'processors-through-the-kit',
      comment:
        'A resource kind reaches the engine through its contract module only (src/kit): the processor interface, outcomes, the shared follow, documents, Clusters Service calls and errors.',
      severity: 'error',
      from: { path: '^processors/' },
      to: { path: '^src/', pathNot: '^src/kit/' },
    },
    {
      name: 'engine-knows-no-kind',
      comment: 'The engine (src/pipeline) and its contract (src/kit) import no resource kind: the composition root hands it the registry.',
      severity: 'error',
      from: { path: '^src/(pipeline|kit)/' },
      to: { path: '^processors/' },
    },
    {
      name: 'bench-imports-no-test',
      comment: 'Benchmarks stand on their own: what they share with the tests lives in the product or the stand-ins.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
  },
};
