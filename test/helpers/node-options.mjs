// Loaded in every test process after tap's own preloads (.taprc node-arg). tap's type-strip-only
// setting keeps its TypeScript plugin from loading ts-node beside tsx (~4 s of CPU per test file,
// more than most files take to run), but it also puts "--no-warnings --experimental-strip-types"
// in NODE_OPTIONS, for this process and every process a test starts: a Node 20 that a test runs
// refuses the flag (test/e2e/start.test.ts), and warnings are part of what some tests read. tsx
// compiles the tests, so neither flag is needed. The plugin's preload has already read
// TAP_TYPE_STRIP_ONLY (and skipped ts-node) when this runs; turning it off here keeps the plugin
// from adding the flags again when the test file loads tap, and the flags are taken out.
/* global process */
process.env.TAP_TYPE_STRIP_ONLY = '0'
const drop = new Set(['--no-warnings', '--experimental-strip-types'])
// tap writes the options quoted ("--no-warnings" "--import=file:///…"): compare them unquoted.
const tokens = (process.env.NODE_OPTIONS ?? '').match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? []
const kept = tokens.filter((o) => !drop.has(o.replace(/^"(.*)"$/, '$1')))
if (kept.length) process.env.NODE_OPTIONS = kept.join(' ')
else delete process.env.NODE_OPTIONS
