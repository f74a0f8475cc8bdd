// The generated parts of the docs match the code's tables (docs and code cannot drift).
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { HTTP_REFUSE } from '../../src/http/mcp.js'
import { REFUSE } from '../../src/mcp/wire.js'
import { GENERATED, generatedParts } from '../../scripts/docs.js'
import { ALL_TOOLS, CORE_TOOL_NAMES } from '../../src/mcp/tools/index.js'

t.test('the generated parts of the docs are current (npm run docs)', async (t) => {
  for (const { path, name, text } of GENERATED) {
    const parts = generatedParts(readFileSync(path, 'utf8'), name)
    for (const [i, part] of parts.entries()) t.equal(part, text(), `${path} "${name}" (${i + 1} of ${parts.length})`)
  }
})

t.test('no tool count is typed: every "<n> tools" of README.md and docs/ is generated', async (t) => {
  for (const path of ['README.md', ...readdirSync('docs').map((f) => `docs/${f}`)]) {
    if (!path.endsWith('.md')) continue
    const typed = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => new RegExp(`\\b(${ALL_TOOLS.length}|${CORE_TOOL_NAMES.length}|ten)( MCP)? tools\\b`).test(line))
    t.same(typed, [], `${path}: a tool count is a generated part (tool-count, core-count)`)
  }
})

/** The fixed refusals of /mcp: the HTTP transport's and the pipeline's. */
const FIXED = { ...HTTP_REFUSE, ...REFUSE }

/** The row of docs/mcp.md "Statuses" that describes each fixed refusal, by how it begins. */
const STATUS_ROWS: Record<keyof typeof FIXED, string> = {
  origin: 'Origin header',
  keylessHost: 'No key, and a Host',
  notAcceptable: 'Accept header',
  mediaType: 'Content-Type',
  parse: 'Body is not JSON',
  batch: 'Batch',
  httpMethod: '`GET` or `DELETE`',
}

t.test(
  'docs/mcp.md "Statuses" gives each fixed refusal (HTTP_REFUSE, REFUSE) its HTTP status and JSON-RPC code',
  async (t) => {
    const section = readFileSync('docs/mcp.md', 'utf8').split('### Statuses')[1]!.split('\n#')[0]!
    const rows = section
      .split('\n')
      .filter((l) => l.startsWith('| '))
      .map((l) =>
        l
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      )
    for (const [rule, refusal] of Object.entries(FIXED) as [keyof typeof FIXED, (typeof FIXED)[keyof typeof FIXED]][]) {
      const row = rows.find(([request]) => request!.startsWith(STATUS_ROWS[rule]))
      t.ok(row, `${rule}: a row beginning "${STATUS_ROWS[rule]}"`)
      t.match(row?.[1], new RegExp(`^${refusal.httpStatus}\\b`), `${rule}: HTTP ${refusal.httpStatus}`)
      t.match(row?.[2], new RegExp(`^${refusal.error.code}\\b`), `${rule}: JSON-RPC ${refusal.error.code}`)
    }
  },
)
